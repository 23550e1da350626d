"""Embedding → text: a frozen causal LM reads a few tokens mapped from an embedding and writes the text.

The LM never trains; only a small mapping network and a handful of learned input vectors do, so a
decoder is a few megabytes of weights plus a *reference* to the base model. Layout of the input:

- plain LM: `[bos] task×5 mapped×k delimiter` and the answer follows the delimiter;
- chat LM (`chat=True`): the task and mapped tokens sit inside the user turn of the tokenizer's
  chat template and the answer is the assistant turn, so the model stays in its trained format.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from torch import nn

SPEC_FILE = "decoder.json"
WEIGHTS_FILE = "decoder.safetensors"
_USER_SLOT = "\x00SEMCSE_SLOT\x00"

Engine = Literal["transformers", "vllm"]


@dataclass
class DecoderSpec:
    """Everything needed to rebuild a decoder around its base LM (saved as decoder.json)."""

    base_model: str
    embedding_dim: int
    aspect: str = ""
    task_tokens: int = 5
    mapped_tokens: int = 5
    hidden_dim: int = 768
    chat: bool = False
    max_length: int = 96


class EmbeddingDecoder(nn.Module):
    """A frozen causal LM conditioned on an embedding through learned input vectors."""

    def __init__(self, lm: Any, tokenizer: Any, spec: DecoderSpec) -> None:
        super().__init__()
        # a Hugging Face causal LM; its embedding table and generate() are reached through transformers' own API
        self.lm: Any = lm.requires_grad_(False).eval()
        self.tokenizer = tokenizer
        self.spec = spec
        table = lm.get_input_embeddings().weight
        self.d_model = table.shape[1]
        scale = float(table.detach().float().std())
        self.mapping = nn.Sequential(
            nn.Linear(spec.embedding_dim, spec.hidden_dim),
            nn.Sigmoid(),
            nn.Linear(spec.hidden_dim, spec.mapped_tokens * self.d_model),
        )
        self.task_tokens = nn.Parameter(torch.randn(spec.task_tokens, self.d_model) * scale)
        head, tail = self._frame_ids(tokenizer, spec.chat)
        self.register_buffer("head_ids", torch.tensor(head, dtype=torch.long), persistent=False)
        self.register_buffer("tail_ids", torch.tensor(tail, dtype=torch.long), persistent=False)
        # A chat template already separates the prompt from the answer; a plain LM needs a learned delimiter.
        if spec.chat:
            self.register_parameter("delimiter", None)
        else:
            self.delimiter = nn.Parameter(torch.randn(1, self.d_model) * scale)
        self.eos_id = tokenizer.eos_token_id
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        if self.eos_id is None:
            raise ValueError(f"the tokenizer of {spec.base_model} has no eos token; the decoder needs one to stop")

    @staticmethod
    def _frame_ids(tokenizer: Any, chat: bool) -> tuple[list[int], list[int]]:
        """Token ids before and after the learned tokens: `[bos]` / nothing, or the chat user turn."""
        if not chat:
            return ([tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []), []
        if not getattr(tokenizer, "chat_template", None):
            raise ValueError("chat=True but the tokenizer has no chat template; use chat=False for a plain LM")
        rendered = tokenizer.apply_chat_template(
            [{"role": "user", "content": _USER_SLOT}], tokenize=False, add_generation_prompt=True
        )
        before, after = rendered.split(_USER_SLOT)

        def encode(text: str) -> list[int]:
            return list(tokenizer(text, add_special_tokens=False)["input_ids"])

        return encode(before), encode(after)

    # ----- construction, saving, loading -------------------------------------------------------------------

    @classmethod
    def create(cls, base_model: str | Path, embedding_dim: int, **spec: Any) -> EmbeddingDecoder:
        """A fresh (untrained) decoder around a local causal LM."""
        location = str(Path(base_model).expanduser().resolve()) if Path(base_model).exists() else str(base_model)
        lm, tokenizer = _load_lm(location)
        return cls(lm, tokenizer, DecoderSpec(base_model=location, embedding_dim=embedding_dim, **spec))

    def trainable_state(self) -> dict[str, torch.Tensor]:
        return {k: v.detach().cpu().contiguous() for k, v in self.state_dict().items() if not k.startswith("lm.")}

    def save(self, path: str | Path) -> Path:
        """Write decoder.json + decoder.safetensors; the base LM is referenced by path, never copied."""
        from safetensors.torch import save_file

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / SPEC_FILE).write_text(json.dumps(asdict(self.spec), indent=2))
        save_file(self.trainable_state(), str(path / WEIGHTS_FILE))
        return path

    @classmethod
    def load(
        cls, ref: str | Path, base_model: str | None = None, tracking: Any = None, dtype: torch.dtype | None = None
    ) -> EmbeddingDecoder:
        """Load a saved decoder (a directory or `models:/semcse-decoder@alias`), optionally re-pointing its LM."""
        from safetensors.torch import load_file

        from semcse.core.tracking import resolve_model

        root = Path(resolve_model(str(ref), tracking))
        if not (root / SPEC_FILE).is_file():
            raise FileNotFoundError(f"{root} is not a saved decoder: {SPEC_FILE} is missing")
        spec = DecoderSpec(**json.loads((root / SPEC_FILE).read_text()))
        if base_model is not None:
            spec.base_model = base_model
        lm, tokenizer = _load_lm(spec.base_model, dtype)
        decoder = cls(lm, tokenizer, spec)
        missing, unexpected = decoder.load_state_dict(load_file(str(root / WEIGHTS_FILE)), strict=False)
        missing = [k for k in missing if not k.startswith("lm.")]
        if missing or unexpected:
            raise ValueError(f"{root}: weights do not fit this decoder (missing {missing}, unexpected {unexpected})")
        return decoder

    def train(self, mode: bool = True) -> EmbeddingDecoder:
        """Switch the trainable parts only: the frozen LM always stays in eval mode (no dropout)."""
        super().train(mode)
        self.lm.eval()
        return self

    # ----- forward ------------------------------------------------------------------------------------------

    @property
    def device(self) -> torch.device:
        return self.task_tokens.device

    def check_embeddings(self, embeddings: Any) -> torch.Tensor:
        """A float tensor [B, embedding_dim] on the decoder's device, or a clear error."""
        tensor = torch.as_tensor(np.asarray(embeddings, dtype=np.float32))
        if tensor.ndim == 1:
            tensor = tensor[None]
        if tensor.ndim != 2 or tensor.shape[1] != self.spec.embedding_dim:
            raise ValueError(
                f"expected embeddings of dimension {self.spec.embedding_dim}, got shape {tuple(tensor.shape)}"
            )
        if not torch.isfinite(tensor).all():
            raise ValueError("embeddings contain NaN or infinite values; there is no text to decode from them")
        return tensor.to(self.device)

    def prefix(self, embeddings: torch.Tensor | None, batch: int) -> torch.Tensor:
        """Input vectors [B, P, d]; `embeddings=None` leaves out the mapped tokens (the unconditioned control)."""
        table = self.lm.get_input_embeddings()
        dtype = table.weight.dtype
        parts = [table(self.head_ids).expand(batch, -1, -1), self.task_tokens.to(dtype).expand(batch, -1, -1)]
        if embeddings is not None:
            parts.append(self.mapping(embeddings.float()).view(batch, self.spec.mapped_tokens, self.d_model).to(dtype))
        if self.delimiter is not None:
            parts.append(self.delimiter.to(dtype).expand(batch, -1, -1))
        else:
            parts.append(table(self.tail_ids).expand(batch, -1, -1))
        return torch.cat(parts, dim=1)

    def tokenize(self, texts: list[str]) -> dict[str, torch.Tensor]:
        """Answer tokens (text + eos), right-padded; no bos: the prefix already opened the sequence."""
        ids = self.tokenizer(list(texts), add_special_tokens=False, truncation=True, max_length=self.spec.max_length)
        rows = [row + [self.eos_id] for row in ids["input_ids"]]
        width = max(len(row) for row in rows)
        input_ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            input_ids[i, : len(row)] = torch.tensor(row)
            mask[i, : len(row)] = 1
        return {"input_ids": input_ids.to(self.device), "attention_mask": mask.to(self.device)}

    def forward(
        self, embeddings: torch.Tensor | None, input_ids: torch.Tensor, attention_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-sequence summed NLL of the answer tokens and their count (the loss is on the answer only)."""
        batch = input_ids.shape[0]
        prefix = self.prefix(embeddings, batch)
        width = prefix.shape[1]
        inputs = torch.cat([prefix, self.lm.get_input_embeddings()(input_ids)], dim=1)
        mask = torch.cat(
            [torch.ones(batch, width, dtype=attention_mask.dtype, device=input_ids.device), attention_mask], 1
        )
        logits = self.lm(inputs_embeds=inputs, attention_mask=mask).logits
        predicted = logits[:, width - 1 : width - 1 + input_ids.shape[1]].float()
        nll = nn.functional.cross_entropy(predicted.transpose(1, 2), input_ids, reduction="none") * attention_mask
        return nll.sum(1), attention_mask.sum(1)

    def loss(self, embeddings: Any, texts: list[str]) -> torch.Tensor:
        """Mean token NLL of `texts` given `embeddings` (the training objective)."""
        nll, count = self(self.check_embeddings(embeddings), **self.tokenize(texts))
        return nll.sum() / count.sum()

    @torch.no_grad()
    def perplexity(self, embeddings: Any | None, texts: list[str], batch_size: int = 16) -> np.ndarray:
        """Per-text perplexity; `embeddings=None` scores the texts given the learned tokens only."""
        texts = list(texts)
        vectors = None if embeddings is None else self.check_embeddings(embeddings)
        if vectors is not None and len(vectors) != len(texts):
            raise ValueError(f"{len(vectors)} embeddings for {len(texts)} texts; pass one embedding per text")
        out = []
        for start in range(0, len(texts), batch_size):
            chunk = texts[start : start + batch_size]
            nll, count = self(None if vectors is None else vectors[start : start + batch_size], **self.tokenize(chunk))
            out.append(torch.exp(nll / count).cpu())
        return torch.cat(out).numpy() if out else np.zeros(0)

    # ----- generation ---------------------------------------------------------------------------------------

    @torch.no_grad()
    def decode(
        self,
        embeddings: Any,
        max_new_tokens: int = 64,
        temperature: float = 0.7,
        top_p: float = 0.95,
        engine: Engine = "transformers",
        seed: int | None = None,
    ) -> list[str]:
        """One text per embedding; temperature 0 decodes greedily."""
        vectors = self.check_embeddings(embeddings)
        prefix = self.prefix(vectors, len(vectors))
        if engine == "vllm":
            return self._decode_vllm(prefix, max_new_tokens, temperature, top_p, seed)
        if engine != "transformers":
            raise ValueError(f"unknown decoding engine {engine!r}; expected transformers or vllm")
        if seed is not None:
            torch.manual_seed(seed)
        sampling = {"do_sample": True, "temperature": temperature, "top_p": top_p} if temperature > 0 else {}
        generated = self.lm.generate(
            inputs_embeds=prefix,
            attention_mask=torch.ones(prefix.shape[:2], dtype=torch.long, device=prefix.device),
            max_new_tokens=max_new_tokens,
            pad_token_id=self.pad_id,
            eos_token_id=self.eos_id,
            **(sampling or {"do_sample": False}),
        )
        return [text.strip() for text in self.tokenizer.batch_decode(generated, skip_special_tokens=True)]

    def _decode_vllm(
        self, prefix: torch.Tensor, max_new_tokens: int, temperature: float, top_p: float, seed: int | None
    ) -> list[str]:
        """GPU generation from prompt embeddings (bf16), on the one vLLM engine of this base LM.

        Each row gets its own seed (`seed + row`), so N copies of one embedding (`map explain
        --samples N`) give N different samples instead of one text N times.
        """
        from vllm import SamplingParams

        engine = vllm_engine(self.spec.base_model)
        params = [
            SamplingParams(max_tokens=max_new_tokens, temperature=temperature, top_p=top_p, seed=row_seed)
            for row_seed in row_seeds(seed, len(prefix))
        ]
        prompts = [{"prompt_embeds": row.to(torch.bfloat16).cpu()} for row in prefix]
        outputs = engine.generate(prompts, params, use_tqdm=False)
        return [out.outputs[0].text.strip() for out in outputs]


_VLLM_ENGINES: dict[str, Any] = {}


def vllm_engine(base_model: str) -> Any:
    """One vLLM engine per base LM in this process, shared by every decoder built on that LM.

    A vLLM engine claims most of the GPU's memory when it starts, so a second engine for the same
    weights (a second aspect's decoder) would not fit; the decoders differ only in their prefixes.
    """
    if base_model not in _VLLM_ENGINES:
        from vllm import LLM

        _VLLM_ENGINES[base_model] = LLM(model=base_model, enable_prompt_embeds=True, dtype="bfloat16")
    return _VLLM_ENGINES[base_model]


def row_seeds(seed: int | None, rows: int) -> list[int | None]:
    """A seed per generated row: `seed`, `seed + 1`, …; None (unseeded) stays None for every row."""
    return [None if seed is None else seed + row for row in range(rows)]


def _load_lm(location: str, dtype: torch.dtype | None = None) -> tuple[nn.Module, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from semcse.core.tracking import resolve_model

    if Path(location).is_absolute() and not Path(location).exists():
        raise FileNotFoundError(f"base LM not found: {location} (pass base_model= to point at its new location)")
    location = resolve_model(location)  # a storage URI or registry reference is fetched to this node
    lm = AutoModelForCausalLM.from_pretrained(location, dtype=dtype or torch.float32)
    return lm, AutoTokenizer.from_pretrained(location)


@dataclass
class DecoderExamples:
    """One row per abstract: id, aspect embedding, and the summaries it should decode to."""

    ids: list[str]
    embeddings: np.ndarray
    summaries: list[list[str]]

    def __len__(self) -> int:
        return len(self.ids)

    def subset(self, index: list[int] | np.ndarray) -> DecoderExamples:
        return DecoderExamples(
            [self.ids[i] for i in index],
            self.embeddings[np.asarray(index, dtype=int)],
            [self.summaries[i] for i in index],
        )

    def pairs(self) -> tuple[np.ndarray, list[str]]:
        """Every (embedding, summary) pair: the deterministic set validation and evaluation score."""
        owners = [i for i, texts in enumerate(self.summaries) for _ in texts]
        return self.embeddings[owners], [text for texts in self.summaries for text in texts]

    def rows(self) -> list[dict[str, Any]]:
        return [
            {"id": i, "embedding": e.astype(np.float32), "summaries": list(s)}
            for i, e, s in zip(self.ids, self.embeddings, self.summaries)
        ]
