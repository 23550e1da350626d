"""Keeping the base model's in-batch similarities (`training.base_similarity_weight`): the term, its frozen
reference, and a real run that stays nearer the base model's similarities than the same run without it."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
import torch

from semcse.core.config import TrainingConfig
from semcse.models.losses import BaseSimilarityLoss
from semcse.models.token_batches import TokenBatches
from semcse.stages.training.engine import build_encoder
from semcse.stages.training.objective import BASE, TEXTS, PairObjective
from semcse.stages.training.reference import BaseReference
from semcse.stages.training.trainer import train
from tests.fixtures.training import PLAIN_CROPS, slow_similarity_kl


def test_the_term_matches_its_formula_and_is_zero_at_the_base() -> None:
    torch.manual_seed(0)
    a, p, base_a, base_p = (torch.randn(5, 8) for _ in range(4))
    a.requires_grad_(True)
    loss = BaseSimilarityLoss(temperature=0.1)
    value = loss(a, p, base_a, base_p)
    assert torch.allclose(value, slow_similarity_kl(a, p, base_a, base_p, 0.1), atol=1e-5)
    value.backward()
    assert a.grad is not None and a.grad.abs().sum() > 0
    assert loss(base_a, base_p, base_a, base_p).item() == pytest.approx(0.0, abs=1e-6)


def test_the_own_positive_is_left_to_the_contrastive_loss() -> None:
    """Only an anchor's similarity to its own positive moves: the term does not change. Another pair's does: it does.

    Anchors are the first four axes; positive 0 trades its weight on axis 0 (anchor 0's) against axis 7 (no
    anchor's) at a constant norm, so its cosine with anchors 1–3 stays as it was.
    """
    torch.manual_seed(1)
    anchors = torch.eye(8)[:4]
    positives, base_a, base_p = torch.randn(4, 8), torch.randn(4, 8), torch.randn(4, 8)
    positives[:, 4:7] = 0
    loss = BaseSimilarityLoss(temperature=0.05)
    before = loss(anchors, positives, base_a, base_p).item()
    radius = float(positives[0, [0, 7]].norm())
    turned = positives.clone()
    turned[0, 0], turned[0, 7] = radius * 0.6, radius * 0.8
    assert loss(anchors, turned, base_a, base_p).item() == pytest.approx(before, rel=1e-6)
    other = positives.clone()
    other[1, 0], other[1, 7] = other[1, 7].item(), other[1, 0].item()  # positive 1's cosine with anchor 0 moves
    assert loss(anchors, other, base_a, base_p).item() != pytest.approx(before, rel=1e-3)


def test_the_reference_is_a_frozen_copy_of_the_base_and_the_objective_adds_the_weighted_term(
    tiny_encoder_dir: Path,
) -> None:
    cfg = TrainingConfig(pairs="crops", base_model=str(tiny_encoder_dir), base_similarity_weight=2.0, cpu_bf16=False)
    assert BaseReference.for_run(build_encoder(cfg), cfg.model_copy(update={"base_similarity_weight": 0.0})) is None
    model = build_encoder(cfg)
    reference = BaseReference.for_run(model, cfg)
    assert reference is not None
    reference.ready(torch.device("cpu"), cfg, bf16=False)
    anchors = ["Invasive plants alter soil microbes.", "Ants spread seeds far.", "Cane toads poison predators."]
    texts = anchors + ["Soil fungi follow the plants.", "Seeds move with ants.", "Predators die after eating toads."]
    batch = {TEXTS: TokenBatches.build(model.tokenizer, texts, 32, chunk_size=2)}
    model.eval()
    with torch.no_grad():
        assert torch.allclose(reference.embed(batch[TEXTS]), batch[TEXTS].encode(model), atol=1e-6)
        for p in model.parameters():
            p.add_(0.05)  # training moves the model...
    assert all(not p.requires_grad for p in reference.module.parameters())
    base = reference.embed(batch[TEXTS])
    assert not torch.allclose(base, batch[TEXTS].encode(model).detach(), atol=1e-3)  # ...not the reference

    objective = PairObjective(cfg)
    plain = PairObjective(cfg.model_copy(update={"base_similarity_weight": 0.0}))
    batch[BASE] = base
    with torch.no_grad():
        vectors = batch[TEXTS].encode(model)
        term = BaseSimilarityLoss(cfg.recipe.temperature)(vectors[:3], vectors[3:], base[:3], base[3:])
        assert term.item() > 0
        combined, contrastive = objective.loss(model, batch), plain.loss(model, batch)
    assert combined.item() == pytest.approx(contrastive.item() + 2.0 * term.item(), rel=1e-5)
    assert objective.terms["base_kl"].item() == pytest.approx(term.item(), rel=1e-5)  # what the loop logs
    assert objective.terms["pair_loss"].item() == pytest.approx(contrastive.item(), rel=1e-5)
    assert plain.terms == {}


def test_the_unified_models_distillation_refuses_it_and_leaves_trainings_to_pair_runs(make_config) -> None:
    from semcse.stages.training.distill import distill
    from semcse.stages.training.driver import TrainingSetupError

    asked = make_config(**{"multi.distill": '{"base_similarity_weight": 1}'})
    with pytest.raises(TrainingSetupError, match="multi.distill.base_similarity_weight"):
        distill(asked)
    inherited = make_config(**{"training.base_similarity_weight": 1})  # passes that check, stops at the next one
    with pytest.raises(TrainingSetupError, match="distillation needs aspect encoders"):
        distill(inherited)


def test_a_run_that_keeps_the_bases_similarities_stays_nearer_them(
    plain_crops_run, make_config, tracking, caplog
) -> None:
    """The same pairs, steps and seed with and without the term: the term's run drifts less from the base on the
    validation abstracts (`val_base_drift`), and logs the term beside the loss (the step line and MLflow), so a user
    sees whether λ makes it count."""
    from mlflow.tracking import MlflowClient

    caplog.set_level(logging.INFO, logger="semcse")
    plain_run = plain_crops_run[1].run_id
    kept_run = train(make_config(**PLAIN_CROPS | {"training.base_similarity_weight": 20.0})).run_id
    client = MlflowClient(tracking_uri=tracking.tracking_uri)

    def logged(run_id: str | None, key: str) -> dict[int, float]:
        assert run_id is not None
        return {m.step: m.value for m in client.get_metric_history(run_id, key)}

    plain_drift, kept_drift = logged(plain_run, "val_base_drift"), logged(kept_run, "val_base_drift")
    assert plain_drift.keys() == kept_drift.keys() == {0, 4, 8}  # the base model's evaluation, then every 4 steps
    assert plain_drift[0] == kept_drift[0] == pytest.approx(0.0, abs=1e-7)
    assert plain_drift[8] > 0
    assert kept_drift[8] < 0.5 * plain_drift[8], (kept_drift, plain_drift)

    loss, pair_loss, base_kl = (logged(kept_run, key) for key in ("loss", "pair_loss", "base_kl"))
    assert loss and loss.keys() == pair_loss.keys() == base_kl.keys()
    for step in loss:  # each logged figure is a mean over the same steps, so the parts add up
        assert loss[step] == pytest.approx(pair_loss[step] + 20.0 * base_kl[step], rel=1e-4)
    assert logged(plain_run, "base_kl") == {} and logged(plain_run, "pair_loss") == {}
    printed = caplog.text
    number = r"[\d.]+(?:e-\d+)?"
    assert re.search(rf"step \d+/8 loss {number} pair_loss {number} base_kl {number} ", printed), printed[-2000:]
