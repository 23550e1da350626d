"""The register step's rule: promote only on a paired interval that excludes zero; a tie or a loss never promotes."""

from __future__ import annotations

import numpy as np
import pytest

from semcse.config import load_config
from semcse.evaluation.uncertainty import Bootstrap, paired_difference
from semcse.pipeline import Pipeline
from semcse.tracking import Tracker, alias_version

RANKS = np.random.default_rng(0).integers(1, 40, 300).astype(float)


def comparison(trained: np.ndarray, incumbent: np.ndarray) -> dict:
    """trained − incumbent on an average rank (lower is better), on shared bootstrap draws."""
    bootstrap = Bootstrap(1000)
    estimates = {
        "trained": {"half_half": bootstrap.mean("half_half", trained)},
        "base": {"half_half": bootstrap.mean("half_half", incumbent)},
    }
    return paired_difference(estimates, "trained", "base", "half_half", higher_is_better=False).to_dict()


@pytest.fixture
def registered(pipeline_config, tmp_path, request):
    """A pipeline whose train step registered version 1 of its own model (no champion yet), ready for `register`."""
    name = f"promotion-{request.node.name}"[:60]
    cfg = load_config(pipeline_config(pipeline={"metric": "semantic:half_half"}, training={"register_name": name}))
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "weights.txt").write_text("a model")
    with Tracker.start(cfg.tracking, run_name="train") as tracker:
        tracker.log_artifact(tmp_path / "model", artifact_path="model")
        version = tracker.register_model("model", cfg.training.register_name)

    def run(difference: dict, knn: dict | None = None) -> dict:
        pipeline = Pipeline(cfg)
        suites = {"semantic": {"versus_incumbent": {"half_half": difference}}}
        if knn is not None:
            suites["knn"] = {"versus_incumbent": knn}
        pipeline.state.steps = {
            "train": {"outputs": {"version": version}},
            "evaluate": {"outputs": {"incumbent": "base", "suites": suites}},
        }
        return pipeline.register()

    return cfg, version, run


def test_a_tie_and_a_loss_never_promote(registered):
    cfg, _, run = registered
    tie = run(comparison(RANKS, RANKS))
    assert not tie["champion"] and tie["verdict"].startswith("no significant difference")
    assert "95% CI [+0.000, +0.000]" in tie["verdict"] and "keeping the base" in tie["verdict"]
    jitter = np.random.default_rng(1).normal(0, 5, len(RANKS))
    noise = run(comparison(RANKS + jitter - jitter.mean(), RANKS))  # differs on every query, not on average
    assert not noise["champion"] and noise["verdict"].startswith("no significant difference")
    loss = run(comparison(RANKS + 2, RANKS))
    assert not loss["champion"] and loss["verdict"].startswith("the trained model is worse")
    assert alias_version(cfg.tracking, cfg.training.register_name, "champion") is None


def test_a_significant_win_promotes(registered):
    cfg, version, run = registered
    win = run(comparison(RANKS - 0.5, RANKS))
    assert win["champion"] and f"@champion = version {version}" in win["verdict"]
    assert "trained − base on semantic:half_half: -0.5" in win["verdict"]
    assert alias_version(cfg.tracking, cfg.training.register_name, "champion") == version


def test_a_win_that_loses_on_a_guard_metric_never_promotes(registered):
    """Better title ranks bought with blurred topics: the label metrics guard the promotion."""
    cfg, _, run = registered
    agreement = np.random.default_rng(2).choice([0.2, 0.4, 0.6, 0.8], len(RANKS))
    bootstrap = Bootstrap(1000)
    estimates = {
        "trained": {"label_agreement": bootstrap.mean("knn", agreement - 0.2)},
        "base": {"label_agreement": bootstrap.mean("knn", agreement)},
    }
    loss = paired_difference(estimates, "trained", "base", "label_agreement", higher_is_better=True).to_dict()
    blurred = run(comparison(RANKS - 0.5, RANKS), {"label_agreement": loss})
    assert not blurred["champion"] and set(blurred["guard_losses"]) == {"knn:label_agreement"}
    assert "worse on a guard metric (trained − base on knn:label_agreement: -0.200" in blurred["verdict"]
    assert alias_version(cfg.tracking, cfg.training.register_name, "champion") is None
    steady = paired_difference(
        {"trained": {"label_agreement": estimates["base"]["label_agreement"]}} | {"base": estimates["base"]},
        "trained",
        "base",
        "label_agreement",
        higher_is_better=True,
    ).to_dict()
    assert run(comparison(RANKS - 0.5, RANKS), {"label_agreement": steady})["champion"]  # no loss: promoted


def test_a_guard_the_evaluation_did_not_compute_is_said_not_checked(registered, caplog):
    """`knn:label_agreement` without the knn suite (or without labels) is never a silent pass."""
    import logging

    cfg, _, run = registered
    with caplog.at_level(logging.INFO, logger="semcse"):
        better = run(comparison(RANKS - 3, RANKS), knn={"knn_accuracy": comparison(RANKS, RANKS)})
    unchecked = [g for g in cfg.pipeline.guards if g != "knn:knn_accuracy"]
    assert better["guards_not_checked"] == unchecked
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("not checked:")]
    assert said == [
        f"not checked: {', '.join(unchecked)} (the evaluation computed no such column: a suite that "
        "did not run, or a corpus without labels); promotion goes by the guards that were"
    ]
