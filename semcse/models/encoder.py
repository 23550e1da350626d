"""A Hugging Face backbone + pooling + optional linear projection, saved as sentence-transformers.

We run our own forward pass (training needs the raw module under DeepSpeed) but save through
sentence-transformers' own modules, so a saved directory loads with `SentenceTransformer(path)`,
MTEB and embedding servers exactly as it loads here.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
import torch
from torch import nn

from semcse.models.token_batches import TokenBatches

if TYPE_CHECKING:
    from transformers import PreTrainedModel

    from semcse.core.config import TrackingConfig

Pooling = Literal["cls", "mean", "last"]
Similarity = Literal["cosine", "euclidean"]
POOLING_MODES: tuple[str, ...] = ("cls", "mean", "last")
ENCODE_BLOCK_BATCHES = 64
_ST_POOLING = {"cls": "cls", "mean": "mean", "last": "lasttoken"}
_FROM_ST_POOLING = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_lasttoken": "last",
}


def as_pooling(mode: str) -> Pooling:
    """`mode` checked to be one of the pooling modes."""
    if mode not in POOLING_MODES:
        raise ValueError(f"unknown pooling {mode!r}; expected one of {POOLING_MODES}")
    return cast(Pooling, mode)


def pool(hidden: torch.Tensor, mask: torch.Tensor, mode: str) -> torch.Tensor:
    """Reduce token states [B, T, H] to one vector per text; works for left or right padding."""
    if mode == "mean":
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    rows = torch.arange(hidden.shape[0], device=hidden.device)
    if mode == "cls":  # the first real token: position 0 only with right padding
        return hidden[rows, mask.argmax(1)]
    if mode == "last":
        return hidden[rows, mask.shape[1] - 1 - mask.flip(1).argmax(1)]
    raise ValueError(f"unknown pooling {mode!r}; expected one of {POOLING_MODES}")


def find_layers(backbone: nn.Module) -> nn.ModuleList | None:
    """The transformer block list of any HF architecture (the ModuleList of num_hidden_layers)."""
    n = getattr(backbone.config, "num_hidden_layers", None)
    for module in backbone.modules():
        if isinstance(module, nn.ModuleList) and len(module) == n:
            return module
    return None


class TextEncoder(nn.Module):
    """Texts → vectors. `aspects == [""]`: one vector per text (multi-aspect models list names)."""

    aspects: list[str] = [""]

    def __init__(
        self,
        backbone: PreTrainedModel,
        tokenizer: Any,
        pooling: Pooling = "mean",
        projection_dim: int | None = None,
        normalize: bool = False,
        similarity: Similarity = "cosine",
        max_length: int = 256,
    ) -> None:
        super().__init__()
        self.backbone = backbone
        self.tokenizer = tokenizer
        self.pooling = as_pooling(pooling)
        self.normalize = normalize
        self.similarity = similarity
        self.max_length = max_length
        hidden = backbone.config.hidden_size
        self.projection = nn.Linear(hidden, projection_dim) if projection_dim else None

    @property
    def dim(self) -> int:
        return self.projection.out_features if self.projection is not None else self.backbone.config.hidden_size

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, **extra: torch.Tensor) -> torch.Tensor:
        inputs = {"input_ids": input_ids, "attention_mask": attention_mask}
        if "token_type_ids" in extra:
            inputs["token_type_ids"] = extra["token_type_ids"]
        hidden = self.backbone(**inputs).last_hidden_state
        vectors = pool(hidden, attention_mask, self.pooling)
        if self.projection is not None:
            vectors = self.projection(vectors)
        if self.normalize:
            vectors = nn.functional.normalize(vectors, dim=-1)
        return vectors

    def encode(
        self,
        texts: list[str],
        batch_size: int = 64,
        normalize: bool | None = None,
        show_progress: bool = False,
        max_length: int | None = None,
    ) -> np.ndarray:
        """Embed texts in token-length-sorted batches (less padding), returned in input order as float32.

        `max_length` truncates for this call only (validation during training uses the training length).
        """
        return self.encode_counted(texts, batch_size, normalize, show_progress, max_length)[0]

    @torch.no_grad()  # not inference_mode: ZeRO-3 validation gathers parameters in place inside this call
    def encode_counted(
        self,
        texts: list[str],
        batch_size: int = 64,
        normalize: bool | None = None,
        show_progress: bool = False,
        max_length: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """`encode`, plus each text's token count after truncation (what an API bills), from the same pass.

        Texts are tokenised in blocks of `ENCODE_BLOCK_BATCHES` batches (bounded memory on a large
        corpus; blocks follow character length, so each holds similar lengths) and each block is cut
        into `TokenBatches` sorted by the tokenizer's own counts.
        """
        texts = list(texts)
        was_training = self.training
        self.eval()
        device = next(self.parameters()).device
        by_chars = np.argsort([-len(t) for t in texts], kind="stable")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        counts = np.zeros(len(texts), dtype=np.int64)
        progress = None
        if show_progress:
            from tqdm.auto import tqdm

            progress = tqdm(total=-(-len(texts) // batch_size), desc="encode", unit="batch")
        block = batch_size * ENCODE_BLOCK_BATCHES
        for start in range(0, len(texts), block):
            rows = by_chars[start : start + block]
            block_texts = [texts[i] for i in rows]
            batches = TokenBatches.build(self.tokenizer, block_texts, max_length or self.max_length, batch_size)
            counts[rows] = batches.lengths
            for positions, chunk in batches.indexed():
                vectors = self(**{key: value.to(device) for key, value in chunk.items()}).float()
                if normalize:
                    vectors = nn.functional.normalize(vectors, dim=-1)
                out[rows[positions]] = vectors.cpu().numpy()
                if progress is not None:
                    progress.update()
        if progress is not None:
            progress.close()
        self.train(was_training)
        return out, counts

    def freeze(self, embeddings: bool = False, layers: int | Literal["half"] = 0) -> int:
        """Freeze the input embeddings and/or the first `layers` transformer blocks (`"half"`: the lower half, rounded
        down, whatever the depth); returns how many blocks are frozen. Refused, before anything is frozen, when it
        would leave nothing to train."""
        blocks = find_layers(self.backbone) if layers else nn.ModuleList()
        if blocks is None:
            raise ValueError("cannot find the transformer layers of this backbone to freeze")
        count = len(blocks) // 2 if layers == "half" else int(layers)
        if count > len(blocks):
            raise ValueError(f"freeze_layers={layers} but the backbone has only {len(blocks)} layers")
        if embeddings and count and count == len(blocks) and self.projection is None:
            raise ValueError(
                f"freezing the embeddings and all {count} layers leaves nothing to train; freeze fewer layers or "
                "add a projection head (training.projection)"
            )
        if embeddings:
            embedding_module = getattr(self.backbone, "embeddings", None) or self.backbone.get_input_embeddings()
            embedding_module.requires_grad_(False)
        for block in blocks[:count]:
            block.requires_grad_(False)
        return count

    def save(self, path: str | Path) -> Path:
        """Write a sentence-transformers directory (modules.json, pooling config, safetensors)."""
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.base.modules import Dense, Transformer
        from sentence_transformers.base.modules.normalize import Normalize
        from sentence_transformers.sentence_transformer.modules import Pooling as STPooling

        path = Path(path)
        with tempfile.TemporaryDirectory() as tmp:
            self.backbone.save_pretrained(tmp, safe_serialization=True)
            self.tokenizer.save_pretrained(tmp)
            modules: list[nn.Module] = [
                Transformer(tmp, max_seq_length=self.max_length),
                STPooling(self.backbone.config.hidden_size, pooling_mode=_ST_POOLING[self.pooling]),
            ]
            if self.projection is not None:
                modules.append(
                    Dense(
                        self.projection.in_features,
                        self.projection.out_features,
                        activation_function=nn.Identity(),
                        init_weight=self.projection.weight.detach().cpu().clone(),
                        init_bias=self.projection.bias.detach().cpu().clone(),
                    )
                )
            if self.normalize:
                modules.append(Normalize())
            model = SentenceTransformer(modules=modules, device="cpu", similarity_fn_name=self.similarity)
            model.save(str(path))
        return path

    @classmethod
    def load(
        cls,
        ref: str | Path,
        pooling: Pooling | None = None,
        max_length: int | None = None,
        projection_dim: int | None = None,
        tracking: TrackingConfig | None = None,
    ) -> TextEncoder:
        """Load a sentence-transformers directory, `models:/name@alias`, or a plain HF encoder.

        A plain HF directory gets `pooling` (default mean) and, when asked, a fresh projection.
        """
        from transformers import AutoModel, AutoTokenizer

        from semcse.core.tracking import resolve_model

        location = resolve_model(str(ref), tracking)
        root = Path(location)
        modules_file = root / "modules.json"
        if not modules_file.is_file():
            backbone = AutoModel.from_pretrained(location)
            tokenizer = AutoTokenizer.from_pretrained(location)
            return cls(backbone, tokenizer, pooling or "mean", projection_dim, max_length=max_length or 256)
        modules = json.loads(modules_file.read_text())
        kinds = {m["type"].rsplit(".", 1)[-1]: root / m["path"] for m in modules}
        if "Transformer" not in kinds:
            raise ValueError(f"{root}: modules.json has no Transformer module; cannot load {sorted(kinds)}")
        transformer_dir = kinds["Transformer"]
        backbone = AutoModel.from_pretrained(transformer_dir)
        tokenizer = AutoTokenizer.from_pretrained(transformer_dir)
        st_config = _read_json(transformer_dir / "sentence_bert_config.json") or _read_json(
            root / "sentence_bert_config.json"
        )
        saved_pooling: Pooling = "mean"
        if "Pooling" in kinds:
            pooling_cfg = _read_json(kinds["Pooling"] / "config.json")
            saved_pooling = _pooling_from_config(pooling_cfg)
        similarity = (_read_json(root / "config_sentence_transformers.json") or {}).get(
            "similarity_fn_name"
        ) or "cosine"
        encoder = cls(
            backbone,
            tokenizer,
            pooling=pooling or saved_pooling,
            normalize="Normalize" in kinds,
            similarity="euclidean" if similarity == "euclidean" else "cosine",
            max_length=max_length or st_config.get("max_seq_length") or 256,
        )
        if "Dense" in kinds:
            encoder.projection = _load_dense(kinds["Dense"])
        elif projection_dim:
            encoder.projection = nn.Linear(backbone.config.hidden_size, projection_dim)
        return encoder


def _read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {}


def _pooling_from_config(cfg: dict[str, Any]) -> Pooling:
    mode = cfg.get("pooling_mode")
    if isinstance(mode, str):
        return as_pooling({"lasttoken": "last"}.get(mode, mode))
    if isinstance(mode, list) and len(mode) == 1:
        name = str(mode[0])
        return as_pooling({"lasttoken": "last"}.get(name, name))
    chosen = [ours for key, ours in _FROM_ST_POOLING.items() if cfg.get(key)]
    if len(chosen) != 1:
        raise ValueError(f"unsupported pooling configuration {cfg}; expected exactly one of cls, mean, last")
    return as_pooling(chosen[0])


def _load_dense(directory: Path) -> nn.Linear:
    from safetensors.torch import load_file

    cfg = _read_json(directory / "config.json")
    activation = cfg.get("activation_function", "torch.nn.modules.linear.Identity")
    if not activation.endswith("Identity"):
        raise ValueError(f"{directory}: only linear (Identity-activation) Dense heads are supported, got {activation}")
    weights_file = directory / "model.safetensors"
    state = load_file(str(weights_file)) if weights_file.is_file() else torch.load(directory / "pytorch_model.bin")
    linear = nn.Linear(cfg["in_features"], cfg["out_features"], bias=cfg.get("bias", True))
    linear.load_state_dict({k.removeprefix("linear."): v for k, v in state.items()})
    return linear
