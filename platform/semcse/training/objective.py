"""What one training step computes: rows of a batch → tensors → a loss.

The loop only knows this interface (`collate_fn`, `loss`), so another objective (an aspect encoder
is the same class with another pairs mode; a distillation objective maps rows to texts and target
vectors) plugs into the same Ray Train + DeepSpeed loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
import torch
from torch import nn

from semcse.config import TrainingConfig
from semcse.data.positives import PairSampler
from semcse.losses import build_pair_loss

Batch = dict[str, torch.Tensor]


class Objective(Protocol):
    """A picklable recipe; `collate_fn` and `loss` run inside each worker."""

    def collate_fn(self, model: nn.Module, rng: np.random.Generator) -> Callable[[dict[str, np.ndarray]], Batch]: ...

    def loss(self, model: nn.Module, batch: Batch) -> torch.Tensor: ...


class PairObjective:
    """Contrastive training on (anchor, positive) pairs drawn per batch by the pairs mode.

    Anchors and positives are tokenised and encoded as one padded batch of 2b texts: one forward
    pass instead of two, and each row still gets its own dropout mask, which is all the
    `same-input` / `dropout` modes need.
    """

    def __init__(self, cfg: TrainingConfig) -> None:
        self.sampler = PairSampler(cfg.pairs, cfg.positive_mix)
        self.max_length = cfg.max_length
        self.criterion = build_pair_loss(
            cfg.effective_loss,
            temperature=cfg.effective_temperature,
            margin=cfg.margin,
            anchor_l2_weight=cfg.anchor_l2_weight,
        )

    def collate_fn(self, model: nn.Module, rng: np.random.Generator) -> Callable[[dict[str, np.ndarray]], Batch]:
        tokenizer = model.tokenizer

        def collate(rows: dict[str, np.ndarray]) -> Batch:
            anchors, positives = self.sampler.sample(rows, rng)
            return dict(
                tokenizer(
                    anchors + positives,
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                )
            )

        return collate

    def loss(self, model: nn.Module, batch: Batch) -> torch.Tensor:
        vectors = model(**batch)
        half = vectors.shape[0] // 2
        return self.criterion(vectors[:half], vectors[half:])
