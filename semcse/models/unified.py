"""SemCSE-Multi's unified model: one shared encoder, one linear head per aspect.

The point of distilling the aspect encoders into this model is cost: every aspect vector of a text
comes out of ONE backbone forward pass (the heads are a few matrix products on the pooled vector),
where running the aspect encoders costs one full pass per aspect.

The trunk is a `TextEncoder` without projection or normalisation, so tokenisation, pooling and
length-sorted batching are the single-vector encoder's own. A saved model is a self-describing
directory:

    unified.json         {"format": "semcse-multi", "aspects": [...], "dim": 150, "similarity": ...}
    heads.safetensors    one `<aspect>.weight` / `<aspect>.bias` pair per head
    trunk/               the shared encoder as a sentence-transformers directory (pooled, no heads)

Interface shared with `TextEncoder`: `aspects`, `similarity`, `dim`, and `encode(texts, aspects=[...])`
returning `{aspect: [n, dim] float32}` (what `models.aspects.encode_aspects` and the search index use).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from semcse.models.encoder import Pooling, Similarity, TextEncoder

UNIFIED_FILE, HEADS_FILE, TRUNK_DIR = "unified.json", "heads.safetensors", "trunk"
FORMAT = "semcse-multi"


class UnknownAspect(ValueError):
    """An aspect name the model has no head for."""


class UnifiedEncoder(nn.Module):
    """Texts → one vector per aspect, all from one forward pass of a shared backbone."""

    def __init__(self, trunk: TextEncoder, aspects: list[str], dim: int, similarity: Similarity = "cosine") -> None:
        super().__init__()
        if not aspects or len(set(aspects)) != len(aspects) or "" in aspects:
            raise ValueError(f"a unified model needs distinct, non-empty aspect names, got {aspects}")
        trunk.projection, trunk.normalize = None, False
        self.trunk = trunk
        self.heads = nn.ModuleDict({a: nn.Linear(trunk.dim, dim) for a in aspects})
        self.head_dim = dim
        self.similarity: Similarity = similarity

    @property
    def aspects(self) -> list[str]:
        return list(self.heads)

    @property
    def dim(self) -> int:
        return self.head_dim

    @property
    def tokenizer(self) -> Any:
        """The trunk's tokenizer (the training objectives tokenise through `model.tokenizer`)."""
        return self.trunk.tokenizer

    @classmethod
    def create(
        cls,
        base_model: str | Path,
        aspects: list[str],
        dim: int = 150,
        pooling: Pooling | None = None,
        max_length: int | None = None,
        similarity: Similarity = "cosine",
        tracking: Any = None,
    ) -> UnifiedEncoder:
        """Fresh heads on a base encoder (a HF or sentence-transformers directory, or `models:/...`)."""
        trunk = TextEncoder.load(base_model, pooling=pooling, max_length=max_length, tracking=tracking)
        return cls(trunk, aspects, dim, similarity)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, **extra: torch.Tensor) -> torch.Tensor:
        """[batch, aspects, dim]: every head applied to the one pooled vector of each text."""
        pooled = self.trunk(input_ids, attention_mask, **extra)
        return torch.stack([head(pooled) for head in self.heads.values()], dim=1)

    def resolve(self, aspects: list[str] | None) -> list[str]:
        """The requested aspects (all when None), refusing unknown names with the known ones listed."""
        if aspects is None:
            return self.aspects
        unknown = [a for a in aspects if a not in self.heads]
        if unknown:
            raise UnknownAspect(f"unknown aspect(s) {unknown}; this model has {self.aspects}")
        return list(aspects)

    def encode(
        self,
        texts: list[str],
        aspects: list[str] | None = None,
        batch_size: int = 64,
        normalize: bool | None = None,
        show_progress: bool = False,
    ) -> dict[str, np.ndarray]:
        """{aspect: float32 [n, dim]} for the requested aspects, from one trunk pass over `texts`."""
        return self.encode_counted(texts, aspects, batch_size, normalize, show_progress)[0]

    @torch.no_grad()  # not inference_mode: ZeRO-3 validation gathers parameters in place inside this call
    def encode_counted(
        self,
        texts: list[str],
        aspects: list[str] | None = None,
        batch_size: int = 64,
        normalize: bool | None = None,
        show_progress: bool = False,
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """`encode`, plus each text's token count after truncation, from the same pass."""
        chosen = self.resolve(aspects)
        trunk, counts = self.trunk.encode_counted(texts, batch_size=batch_size, show_progress=show_progress)
        pooled = torch.from_numpy(trunk)
        device = next(self.heads.parameters()).device
        pooled = pooled.to(device=device, dtype=next(self.heads.parameters()).dtype)
        out = {}
        for aspect in chosen:
            vectors = self.heads[aspect](pooled).float()
            if normalize:
                vectors = nn.functional.normalize(vectors, dim=-1)
            out[aspect] = vectors.cpu().numpy()
        return out, counts

    def save(self, path: str | Path) -> Path:
        """Write the self-describing directory (see the module docstring)."""
        from safetensors.torch import save_file

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self.trunk.save(path / TRUNK_DIR)
        state = {
            f"{a}.{k}": v.detach().cpu().contiguous() for a, h in self.heads.items() for k, v in h.state_dict().items()
        }
        save_file(state, str(path / HEADS_FILE))
        meta = {"format": FORMAT, "aspects": self.aspects, "dim": self.dim, "similarity": self.similarity}
        (path / UNIFIED_FILE).write_text(json.dumps(meta, indent=2))
        return path

    @classmethod
    def load(cls, ref: str | Path, tracking: Any = None) -> UnifiedEncoder:
        """Load a saved directory or a registered `models:/semcse-multi@alias`."""
        from safetensors.torch import load_file

        from semcse.core.tracking import resolve_model

        root = Path(resolve_model(str(ref), tracking))
        if not is_unified(root):
            raise ValueError(f"{root} is not a unified multi-aspect model: {UNIFIED_FILE} is missing")
        meta = json.loads((root / UNIFIED_FILE).read_text())
        model = cls(TextEncoder.load(root / TRUNK_DIR), meta["aspects"], meta["dim"], meta.get("similarity", "cosine"))
        state = load_file(str(root / HEADS_FILE))
        for aspect, head in model.heads.items():
            head.load_state_dict({k: state[f"{aspect}.{k}"] for k in ("weight", "bias")})
        return model


def is_unified(path: str | Path) -> bool:
    return (Path(path) / UNIFIED_FILE).is_file()


def load_encoder(ref: str | Path, tracking: Any = None, **kwargs: Any) -> UnifiedEncoder | TextEncoder:
    """Either kind of model behind a reference: a unified directory, else whatever `TextEncoder.load` reads.

    `kwargs` (pooling, max_length) apply to single-vector encoders only.
    """
    from semcse.core.tracking import resolve_model

    location = resolve_model(str(ref), tracking)
    if is_unified(location):
        return UnifiedEncoder.load(location)
    return TextEncoder.load(location, tracking=tracking, **kwargs)
