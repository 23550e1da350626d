"""The frozen base model a run keeps its similarities close to (`training.base_similarity_weight`).

Each worker copies the freshly built model before DeepSpeed wraps it (a resumed run builds the base
model again, so its reference is the same), and embeds every step's texts with it once, without
gradients, in the precision the trained model's forwards use. The objective decides what to do with
those embeddings (`objective.BASE`); the copy costs one more set of weights per worker and one forward
pass per step, no optimizer state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch
from torch import nn

from semcse.core.config import TrainingConfig
from semcse.models.token_batches import TokenBatches
from semcse.stages.training import precision


class BaseReference:
    """A frozen, eval-mode copy of the base model on the training device (no dropout: the target is the
    base model's own similarities, not a noisy sample of them)."""

    def __init__(self, model: nn.Module) -> None:
        self.module = copy.deepcopy(model).eval().requires_grad_(False)
        self.forward: Callable[..., torch.Tensor] = self.module

    @classmethod
    def for_run(cls, model: nn.Module, cfg: TrainingConfig) -> BaseReference | None:
        """The reference where the run keeps the base model's similarities, else None (nothing is copied)."""
        return cls(model) if cfg.base_similarity_weight else None

    def ready(self, device: torch.device, cfg: TrainingConfig, bf16: bool) -> BaseReference:
        """On the engine's device, in bf16 on GPU as DeepSpeed trains there (`engine.deepspeed_config`), and on CPU
        in the precision the run's forwards settled on (`bf16`, `precision.run_precision`)."""
        self.module.to(device, dtype=torch.bfloat16 if cfg.use_gpu else None)
        self.forward = precision.training_forward(self.module, bf16)
        return self

    def embed(self, texts: TokenBatches) -> torch.Tensor:
        """The base model's fp32 embeddings of a step's texts, in input order."""
        with torch.no_grad():
            return texts.encode(self.forward).float()
