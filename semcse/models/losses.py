"""Contrastive losses over (anchor, positive) embedding pairs, with negatives from the whole global batch.

Both losses treat every *other* positive in the batch as a negative for an anchor. Under data
parallelism each worker only sees its local slice, so positives are gathered from all workers with
a differentiable all-gather: the gradient a worker's anchors send to another worker's positives
travels back to that worker (as in sentence-transformers' gathered MNRL). Each worker's loss is the
mean over its own anchors, DeepSpeed averages the workers' gradients, and so the update equals
the single-process update on the whole global batch, whatever the number of workers
(`tests/model/test_worker_invariance.py` checks 1 vs 2 workers).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist
from torch import nn


class _GatherRows(torch.autograd.Function):
    """All-gather whose backward returns to each worker the sum of every worker's gradient for its rows."""

    @staticmethod
    def forward(ctx: Any, local: torch.Tensor) -> torch.Tensor:
        parts = [torch.empty_like(local) for _ in range(dist.get_world_size())]
        dist.all_gather(parts, local.contiguous())
        ctx.rows, ctx.rank = local.shape[0], dist.get_rank()
        return torch.cat(parts)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        total = grad.contiguous().clone()
        dist.all_reduce(total)
        return total[ctx.rank * ctx.rows : (ctx.rank + 1) * ctx.rows]


def _world_size() -> int:
    """The workers in the process group; 1 without one (a single process, a test)."""
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def gather_with_grad(local: torch.Tensor) -> tuple[torch.Tensor, int]:
    """All workers' rows stacked in rank order, and the offset of this worker's rows.

    Every row keeps its gradient path: the backward pass sums the gradients all workers computed
    for a worker's rows and hands the sum to that worker (what sentence-transformers gets from
    `torch.distributed.nn.functional.all_gather`, written out here because that function is
    deprecated). Every worker must pass the same number of rows (the loop drops ragged last batches).
    """
    if _world_size() == 1:
        return local, 0
    gathered: torch.Tensor = _GatherRows.apply(local)  # type: ignore[no-untyped-call]  # torch declares apply untyped
    return gathered, dist.get_rank() * local.shape[0]


def cosine_logits(anchors: torch.Tensor, positives: torch.Tensor, temperature: float) -> torch.Tensor:
    """[b, |B|] cosine similarities of every anchor with every positive, in fp32, over τ."""
    a = nn.functional.normalize(anchors.float(), dim=-1)
    p = nn.functional.normalize(positives.float(), dim=-1)
    return a @ p.T / temperature


class TripletEuclideanLoss(nn.Module):
    """SemCSE's triplet loss in Euclidean space, with every other positive of the batch as a negative.

    For a batch of pairs (a_i, p_i) each pair yields |B|-1 triples (a_i, p_i, p_j), j != i:

        L = 1/|B| Σ_i 1/(|B|-1) Σ_{j≠i} relu(‖a_i - p_i‖ - ‖a_i - p_j‖ + margin)  +  λ · 1/|B| Σ_i ‖a_i‖²

    Using all other positives instead of one random negative keeps informative (non-zero) triples in
    the batch as the model improves. The weak L2 penalty on anchors (λ = 1/250 in the paper) keeps
    the unconstrained Euclidean space compact; without it the margin is met by inflating the scale.

    Args:
        margin: required gap between the positive and negative distance (the paper uses 1; the scale
            of the space adapts, so the exact value matters little).
        anchor_l2_weight: λ, the weight of the mean squared L2 norm of the anchor embeddings.

    Inputs:
        anchors: [b, d] embeddings of this worker's anchors.
        positives: [b, d] embeddings of their positives (row i matches anchor i).
        With several workers, negatives come from every worker's positives (|B| = b × world size).

    Example:
        >>> loss = TripletEuclideanLoss()
        >>> a, p = torch.randn(4, 8, requires_grad=True), torch.randn(4, 8)
        >>> loss(a, p).backward()
    """

    def __init__(self, margin: float = 1.0, anchor_l2_weight: float = 1 / 250) -> None:
        super().__init__()
        self.margin = margin
        self.anchor_l2_weight = anchor_l2_weight

    def forward(self, anchors: torch.Tensor, positives: torch.Tensor) -> torch.Tensor:
        all_positives, offset = gather_with_grad(positives)
        if all_positives.shape[0] < 2:
            raise ValueError("the triplet loss needs at least two pairs in the (global) batch")
        rows = torch.arange(anchors.shape[0], device=anchors.device)
        distances = torch.cdist(anchors.float(), all_positives.float())  # [b, |B|]
        positive = distances[rows, rows + offset].unsqueeze(1)
        hinge = torch.relu(positive - distances + self.margin)
        is_negative = torch.ones_like(hinge, dtype=torch.bool)
        is_negative[rows, rows + offset] = False
        triplet = (hinge * is_negative).sum(1) / is_negative.sum(1)
        penalty = anchors.float().pow(2).sum(1)
        return (triplet + self.anchor_l2_weight * penalty).mean()


class InfoNCECosineLoss(nn.Module):
    """InfoNCE (NT-Xent) with cosine similarity: each anchor must pick its positive among all positives.

        L = -1/|B| Σ_i log( exp(cos(a_i, p_i)/τ) / Σ_j exp(cos(a_i, p_j)/τ) )

    The SimCSE-style objective of SemCSE's cosine ablation and of the cropping paper; equivalent to
    sentence-transformers' MultipleNegativesRankingLoss with scale 1/τ, but with negatives gathered
    from every worker.

    Args:
        temperature: τ (0.07 for SemCSE, 0.05 for crops); lower values sharpen the softmax.

    Inputs:
        anchors: [b, d] embeddings of this worker's anchors.
        positives: [b, d] embeddings of their positives (row i matches anchor i).

    Example:
        >>> loss = InfoNCECosineLoss(temperature=0.05)
        >>> a, p = torch.randn(4, 8, requires_grad=True), torch.randn(4, 8)
        >>> loss(a, p).backward()
    """

    def __init__(self, temperature: float = 0.07) -> None:
        super().__init__()
        self.temperature = temperature

    def forward(self, anchors: torch.Tensor, positives: torch.Tensor) -> torch.Tensor:
        all_positives, offset = gather_with_grad(positives)
        logits = cosine_logits(anchors, all_positives, self.temperature)
        labels = torch.arange(anchors.shape[0], device=anchors.device) + offset
        return nn.functional.cross_entropy(logits, labels)


class BaseSimilarityLoss(nn.Module):
    """ListNet distillation of the frozen base model's in-batch similarities (RankCSE, Liu et al., ACL 2023).

    Contrastive pairs say which texts belong together, not how alike two *different* papers are; a few
    hundred steps on crops or titles then reorder the unrelated pairs a strong base model ranked well
    (held-out methodology similarity falls whatever the LLM-free pairs; docs/tune.md). This term keeps,
    for every anchor, the student's distribution over the other pairs' positives close to the base
    model's:

        L = 1/|B| Σ_i KL( softmax_{j≠i}(cos(a'_i, p'_j)/τ) ‖ softmax_{j≠i}(cos(a_i, p_j)/τ) )

    with a', p' the base model's embeddings of the same texts. The own positive (j = i) is left out,
    so the term never argues with the contrastive loss about it. Student positives are gathered with
    their gradient, as in `InfoNCECosineLoss`, so the result does not depend on the worker count.

    Args:
        temperature: τ, the contrastive loss's.

    Inputs:
        anchors, positives: [b, d] the student's embeddings of this worker's pairs.
        base_anchors, base_positives: [b, d] the base model's embeddings of the same texts (no gradient).

    Example:
        >>> loss = BaseSimilarityLoss(temperature=0.1)
        >>> a, p = torch.randn(4, 8, requires_grad=True), torch.randn(4, 8)
        >>> loss(a, p, torch.randn(4, 8), torch.randn(4, 8)).backward()
    """

    def __init__(self, temperature: float) -> None:
        super().__init__()
        self.temperature = temperature

    def forward(
        self, anchors: torch.Tensor, positives: torch.Tensor, base_anchors: torch.Tensor, base_positives: torch.Tensor
    ) -> torch.Tensor:
        all_positives, offset = gather_with_grad(positives)
        all_base_positives, _ = gather_with_grad(base_positives.detach())
        if all_positives.shape[0] < 2:
            raise ValueError("keeping the base model's similarities needs at least two pairs in the (global) batch")
        base_anchors = base_anchors.detach()
        return similarity_kl(anchors, all_positives, base_anchors, all_base_positives, self.temperature, offset)


def similarity_kl(
    anchors: torch.Tensor,
    positives: torch.Tensor,
    base_anchors: torch.Tensor,
    base_positives: torch.Tensor,
    temperature: float,
    offset: int = 0,
) -> torch.Tensor:
    """`BaseSimilarityLoss`'s formula on given rows, with no gathering: anchor i's own positive is row i + `offset`
    of `positives`. Validation calls it on one worker (each text its own anchor and positive) to say how far a step
    has moved from the base model's similarities (`val_base_drift`)."""
    rows = torch.arange(anchors.shape[0], device=anchors.device)
    columns = torch.arange(positives.shape[0], device=anchors.device)
    others = columns[None, :] != (rows + offset)[:, None]  # [b, |B|], False at each anchor's own positive

    def log_distribution(a: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        return cosine_logits(a, p, temperature)[others].view(len(rows), -1).log_softmax(-1)

    student = log_distribution(anchors, positives)
    base = log_distribution(base_anchors, base_positives)
    return nn.functional.kl_div(student, base, log_target=True, reduction="batchmean")


def build_pair_loss(
    name: str, temperature: float = 0.07, margin: float = 1.0, anchor_l2_weight: float = 1 / 250
) -> nn.Module:
    """The loss named in the training config (`triplet` | `infonce`)."""
    if name == "triplet":
        return TripletEuclideanLoss(margin=margin, anchor_l2_weight=anchor_l2_weight)
    if name == "infonce":
        return InfoNCECosineLoss(temperature=temperature)
    raise ValueError(f"unknown loss {name!r}; expected 'triplet' or 'infonce'")


class MaskedL2Loss(nn.Module):
    """Squared L2 distance between predicted and target aspect embeddings, over applicable aspects only.

        L = Σ_{i,a} m_ia ‖ŷ_ia − y_ia‖² / max(1, Σ_{i,a} m_ia)    (sums over the global batch, all workers)

    Inputs:
        predictions: [b, A, d] the heads' outputs.
        targets: [b, A, d] mean aspect-encoder embeddings (anything where the mask is 0).
        mask: [b, A] 1 where the abstract has an applicable summary of the aspect, else 0.

    Example:
        >>> loss = MaskedL2Loss()(torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.tensor([[1, 0, 1], [0, 0, 1.0]]))
    """

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        squared = (predictions.float() - targets.float()).pow(2).sum(-1)
        return (squared * mask).sum() / _mean_count(mask.sum().float())


def _mean_count(local: torch.Tensor) -> torch.Tensor:
    """The workers' mean of a count (this worker's own without a process group), at least one count's share.

    Divided by it, a worker's sum becomes its share of the global mean: once DeepSpeed averages the workers'
    gradients, the update is that of Σ/Σ over the whole global batch, however the masked entries fall between
    workers. Divided by its own count instead, a worker with one entry would weigh as much as one with thirty.
    A worker's value is then its share scaled to the global mean (the loop logs rank 0's: an estimate of it,
    as rank 0's pair loss is of the global pair loss).
    """
    world = _world_size()
    if world == 1:
        return local.clamp(min=1.0)
    total = local.detach().clone()
    dist.all_reduce(total)
    return (total / world).clamp(min=1.0 / world)
