"""The base model is candidate zero: a run whose training only hurts delivers the base and registers nothing.

all-MiniLM-L6-v2 ranks the held-out crop pairs of the sample corpus almost perfectly; a learning rate
of 0.05 wrecks it within two steps, so every trained evaluation is worse than the base. Early
stopping must end that run after `patience` evaluations, the delivered directory must encode like
the base model (and keep its `max_seq_length` and pooling, not the training length), the run must
say it did not improve, and no model version may appear in the registry.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from semcse.stages.training.checkpoints import CANDIDATE_SCORE, LoopState, best_of
from semcse.stages.training.driver import STATUS_FILE
from semcse.stages.training.trainer import train


@pytest.mark.slow
def test_training_that_only_hurts_delivers_the_base_and_registers_nothing(
    make_config, minilm_dir: Path, tracking, caplog
) -> None:
    from mlflow.tracking import MlflowClient
    from sentence_transformers import SentenceTransformer

    cfg = make_config(
        **{
            "training.pairs": "crops",
            "training.base_model": str(minilm_dir),
            "training.learning_rate": 0.05,
            "training.warmup_steps": 0,
            "training.max_steps": 20,
            "training.eval_every": 2,
            "training.patience": 2,
            "training.register_name": "test-base-guard",
            "corpus.label_col": "topic",
        }
    )
    caplog.set_level(logging.INFO, logger="semcse")
    result = train(cfg)

    status = json.loads((Path(result.model_dir) / STATUS_FILE).read_text())
    assert not result.improved and status["improved"] is False and status["best_step"] == 0
    assert status["last_val_score"] > status["base_val_score"], status
    # the delivered base has not moved from its own similarities; the step that only hurt has
    assert status["best_val_base_drift"] == pytest.approx(0.0, abs=1e-7), status
    assert status["last_val_base_drift"] > 1e-4, status
    assert result.model_version is None
    client = MlflowClient(tracking_uri=tracking.tracking_uri)
    assert client.search_model_versions("name='test-base-guard'") == []
    assert client.get_run(result.run_id).data.tags["improved"] == "false"
    assert result.metrics["step"] == 4 and result.metrics["early_stopped"], result.metrics  # 2 evals without a win
    printed = caplog.text  # the run's lines, as the loop and the driver logged them
    assert "NO IMPROVEMENT" in printed and "label agreement" in printed  # the guard ran

    delivered, base = SentenceTransformer(str(result.model_dir)), SentenceTransformer(str(minilm_dir))
    assert delivered.max_seq_length == base.max_seq_length == 256  # the training length (64) is not exported
    assert delivered[1].get_config_dict()["pooling_mode"] == base[1].get_config_dict()["pooling_mode"] == "mean"
    texts = ["Invasive plants change soil microbes.", "Heart failure patients received a new drug."]
    np.testing.assert_allclose(delivered.encode(texts), base.encode(texts), atol=1e-5)


def test_a_later_tie_never_displaces_the_base_model() -> None:
    """Ranks often tie on a small validation set (MiniLM scores 1.02 before and after a few steps)."""
    state = LoopState()
    kept = []
    for step, score in [(0, 1.02), (15, 1.02), (30, 1.10), (45, 1.02)]:
        state.step = step
        improved = state.record(score)
        kept.append((f"checkpoint-{step}", {CANDIDATE_SCORE: score if improved else math.inf, "step": step}))
    assert (state.best_step, state.base_score, state.evals_without_improvement) == (0, 1.02, 3)
    checkpoint, metrics = best_of(kept)
    assert checkpoint == "checkpoint-0" and metrics["step"] == 0


def test_a_step_better_only_by_noise_never_displaces_the_base_model() -> None:
    """With `improvement: significant`, a lower mean rank must also beat the base abstract by abstract."""
    rng = np.random.default_rng(0)
    base = rng.uniform(1, 20, size=200)
    state = LoopState()
    assert state.record(float(base.mean()), base, significant=True)  # step 0: the base model
    noise = base + rng.normal(0, 4, size=200)
    noise -= noise.mean() - base.mean() + 0.05  # lower on average by 0.05, abstract by abstract noise
    state.step = 10
    assert not state.record(float(noise.mean()), noise, significant=True)
    assert state.best_step == 0 and state.evals_without_improvement == 1
    state.step = 20
    lucky = replace(state)
    assert lucky.record(float(noise.mean()), noise, significant=False)  # the strict rule takes any lower score
    better = base - rng.uniform(0, 1, size=200)  # every abstract ranks a little better
    assert state.record(float(better.mean()), better, significant=True)
    assert state.best_step == 20 and state.evals_without_improvement == 0


def test_a_step_that_blurs_the_labels_is_never_delivered_however_good_its_ranks() -> None:
    """Label agreement is a guard, not a score: better ranks cannot buy a loss of topic structure, and a step
    must show it is non-inferior (within the margin), not merely escape a significant loss."""
    rng = np.random.default_rng(1)
    ranks = rng.uniform(1, 20, size=200)
    agreement = rng.choice([0.4, 0.6, 0.8], size=200)  # shares of 5 neighbours, room to move either way
    state = LoopState()
    assert state.record(float(ranks.mean()), ranks, significant=True, label_items=agreement)
    better_ranks = ranks - rng.uniform(0.5, 1.5, size=200)
    blurred = agreement - rng.choice([0.0, 0.2], size=200)  # 0.1 lower on average
    state.step = 10
    assert not state.record(float(better_ranks.mean()), better_ranks, significant=True, label_items=blurred)
    assert state.refused.startswith("label agreement -0.098 [") and state.best_step == 0  # the change, its interval
    assert state.scored_better  # the score alone would have made it the best: the guard stopped it
    assert "more validation abstracts" not in state.refused  # a real loss: no interval would pass it
    noisy = agreement + rng.choice([-0.2, 0.0, 0.2], size=200)  # moves either way: no systematic loss
    state.step = 20
    # its interval (about ±0.023) includes zero: not significantly worse, yet not shown within a margin of 0.01
    assert not state.record(float(better_ranks.mean()), better_ranks, True, noisy, label_margin=0.01)
    assert "within 0.01" in state.refused
    # the estimate is inside the margin, its interval not: the line says what would narrow it
    assert "more validation abstracts narrow it" in state.refused
    state.step = 30
    assert state.record(float(better_ranks.mean()), better_ranks, True, noisy, label_margin=0.05)
    assert not state.refused and state.best_step == 30
    state.step = 40  # worse ranks and blurred labels: refused, and never better in the first place
    assert not state.record(float(ranks.mean()), ranks, True, blurred)
    assert state.refused and not state.scored_better


def test_a_step_significantly_worse_on_a_guarded_check_is_never_delivered() -> None:
    """Crops may sharpen crop↔crop ranks while blurring what a paper is about: title→abstract ranks guard it."""
    rng = np.random.default_rng(2)
    base = {"pair": rng.uniform(1, 20, size=150), "title": rng.uniform(1, 20, size=150)}
    state = LoopState()
    items = (base["pair"] + base["title"]) / 2
    assert state.record(float(items.mean()), items, significant=True, checks=base)
    sharper = {"pair": base["pair"] - 6, "title": base["title"] + rng.uniform(1, 3, size=150)}
    items = (sharper["pair"] + sharper["title"]) / 2  # better on average, by a lot
    state.step = 10
    assert not state.record(float(items.mean()), items, significant=True, checks=sharper)
    assert state.refused == "significantly worse than the base model on title ranks" and state.best_step == 0
    assert state.scored_better
