"""What one training step computes: rows of a batch → tensors → a loss.

The loop only knows this interface (`collate_fn`, `loss`), so another objective (an aspect encoder
is the same class with another pairs mode; a distillation objective maps rows to texts and target
vectors) plugs into the same Ray Train + DeepSpeed loop. Every objective's batch carries its texts
as `TEXTS`: `TokenBatches`, tokenised once and encoded in length-sorted chunks of
`training.forward_batch_size` (the same loss and gradients as one padded batch, for less compute).
Where the run keeps the base model's similarities, the loop adds the frozen base model's embeddings of
those texts as `BASE` (`training.reference`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import torch
from torch import nn

from semcse.core.config import TrainingConfig
from semcse.models.losses import BaseSimilarityLoss, build_pair_loss
from semcse.models.token_batches import TokenBatches
from semcse.stages.training.positives import PairSampler

Batch = dict[str, Any]
TEXTS = "texts"
BASE = "base"


class Objective(Protocol):
    """A picklable recipe; `collate_fn` and `loss` run inside each worker.

    A batch maps names to tensors or `TokenBatches` (anything with `.to(device)`); `batch[TEXTS]`
    holds the texts the model encodes, and `batch[BASE]`, where `training.base_similarity_weight` > 0,
    the base model's embeddings of them (only objectives that use it accept that setting).

    `terms` holds the last `loss` call's named parts beside the loss itself, detached (empty where the loss has
    one part): the loop logs them next to the loss, so a user sees how much each part weighs.
    """

    terms: dict[str, torch.Tensor]

    def collate_fn(self, model: nn.Module, seed: int) -> Callable[[dict[str, np.ndarray]], Batch]:
        """Rows → a batch; whatever a row's draw picks is seeded by `seed` and the row's `DRAW` (its place in
        the epoch's global order), never by the worker, so the batch does not depend on the worker count."""
        ...

    def loss(self, model: Callable[..., torch.Tensor], batch: Batch) -> torch.Tensor:
        """The batch's loss; `model(**chunk)` embeds a chunk of texts (the loop may wrap the engine to run its
        forwards in another precision, `training.precision`)."""
        ...


class PairObjective:
    """Contrastive training on (anchor, positive) pairs drawn per batch by the pairs mode.

    Anchors and positives are tokenised together as 2b texts and encoded in length-sorted chunks
    (`TokenBatches`); each row gets its own dropout mask, which is all the `same-input` / `dropout`
    modes need. With `training.base_similarity_weight` λ > 0 the loss adds λ times the distance of the
    batch's similarities from the base model's (`losses.BaseSimilarityLoss`).
    """

    def __init__(self, cfg: TrainingConfig) -> None:
        self.sampler = PairSampler(cfg.recipe.pairs, cfg.positive_mix)
        self.max_length = cfg.max_length
        self.forward_batch_size = cfg.forward_batch_size
        self.criterion = build_pair_loss(
            cfg.recipe.loss,
            temperature=cfg.recipe.temperature,
            margin=cfg.margin,
            anchor_l2_weight=cfg.anchor_l2_weight,
        )
        self.base_weight = cfg.base_similarity_weight
        self.keep_base = BaseSimilarityLoss(cfg.recipe.temperature)
        self.terms: dict[str, torch.Tensor] = {}

    def collate_fn(self, model: nn.Module, seed: int) -> Callable[[dict[str, np.ndarray]], Batch]:
        tokenizer = model.tokenizer

        def collate(rows: dict[str, np.ndarray]) -> Batch:
            anchors, positives = self.sampler.sample(rows, seed)
            texts = anchors + positives
            return {TEXTS: TokenBatches.build(tokenizer, texts, self.max_length, self.forward_batch_size)}

        return collate

    def loss(self, model: Callable[..., torch.Tensor], batch: Batch) -> torch.Tensor:
        vectors = batch[TEXTS].encode(model)
        half = vectors.shape[0] // 2
        loss = self.criterion(vectors[:half], vectors[half:])
        if not self.base_weight:
            return loss
        base = batch[BASE]
        kept = self.keep_base(vectors[:half], vectors[half:], base[:half], base[half:])
        self.terms = {"pair_loss": loss.detach(), "base_kl": kept.detach()}
        return loss + self.base_weight * kept
