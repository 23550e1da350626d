"""The `decoder` section: the embedding-to-text decoder's model, training and sampling."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from semcse.core.config.base import Section


class DecoderConfig(Section):
    """Embedding → text decoder: base LM, where its training pairs come from, optimisation, sampling.

    Defaults follow SemCSE-Multi (A.8): 5 task + 5 mapped tokens, a 768-wide sigmoid mapping, AdamW
    with batch size 4 (over all workers), learning rate 1e-3, weight decay 1e-4, validation every 250 updates.
    It trains through the encoders' loop (`launcher`, `num_workers`: as `training`'s). The
    evaluation settings: `predictor` embeds held-out abstracts (default `encoder`; the unified model
    for aspect decoders), `bertscore_model` (+ `bertscore_layers`) scores generated text with BERTScore,
    `reconstructed` adds the map round-trip column (one t-SNE layout per held-out abstract).
    """

    base_model: str | None = None
    encoder: str | None = None
    texts: str | None = None
    aspect: str = "summary"
    out: str | None = None
    chat: bool = False
    task_tokens: int = Field(5, gt=0)
    mapped_tokens: int = Field(5, gt=0)
    hidden_dim: int = Field(768, gt=0)
    max_length: int = Field(96, gt=0)
    batch_size: int = Field(4, gt=0)
    learning_rate: float = Field(1e-3, gt=0)
    weight_decay: float = Field(1e-4, ge=0)
    max_steps: int = Field(5000, gt=0)
    eval_every: int = Field(250, gt=0)
    patience: int = Field(4, gt=0)
    launcher: Literal["ray", "local"] = "ray"
    num_workers: int = Field(1, gt=0)
    use_gpu: bool = False
    cpus_per_worker: float = Field(1.0, gt=0)
    seed: int = 0
    engine: Literal["transformers", "vllm"] = "transformers"
    max_new_tokens: int = Field(64, gt=0)
    temperature: float = Field(0.7, ge=0)
    top_p: float = Field(0.95, gt=0, le=1)
    predictor: str | None = None
    bertscore_model: str | None = None
    bertscore_layers: int | None = Field(None, gt=0)
    reconstructed: bool = False
    register_name: str = "semcse-decoder"
    register_alias: str = "candidate"

    @field_validator("aspect")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        if value != "summary" and not (value.startswith("aspect:") and len(value) > len("aspect:")):
            raise ValueError(f"aspect must be 'summary' or 'aspect:<name>', got {value!r}")
        return value
