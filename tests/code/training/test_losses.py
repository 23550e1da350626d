"""The losses against their formulas, computed the slow, obvious way."""

from __future__ import annotations

import torch

from semcse.models.losses import InfoNCECosineLoss, TripletEuclideanLoss


def test_triplet_matches_the_paper_formula() -> None:
    torch.manual_seed(0)
    a, p = torch.randn(5, 4), torch.randn(5, 4)
    expected = 0.0
    for i in range(5):
        triples = [torch.relu((a[i] - p[i]).norm() - (a[i] - p[j]).norm() + 1.0) for j in range(5) if j != i]
        expected += sum(triples) / 4
    expected = expected / 5 + (a.pow(2).sum(1).mean()) / 250
    assert torch.allclose(TripletEuclideanLoss()(a, p), expected, atol=1e-6)


def test_triplet_is_zero_when_pairs_are_well_separated() -> None:
    a = torch.tensor([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    assert TripletEuclideanLoss(anchor_l2_weight=0)(a, a.clone()).item() == 0.0


def test_infonce_matches_the_formula_and_has_gradients() -> None:
    torch.manual_seed(0)
    a, p = torch.randn(6, 8, requires_grad=True), torch.randn(6, 8)
    loss = InfoNCECosineLoss(temperature=0.05)(a, p)
    sims = torch.nn.functional.cosine_similarity(a[:, None], p[None], dim=-1) / 0.05
    expected = -(sims.diag() - sims.logsumexp(1)).mean()
    assert torch.allclose(loss, expected, atol=1e-5)
    loss.backward()
    assert a.grad is not None and a.grad.abs().sum() > 0
