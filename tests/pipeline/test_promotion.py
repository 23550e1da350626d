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
def registered(pipeline_config, tmp_path):
    """A pipeline whose train step registered version 1 (no champion yet), ready for `register`."""
    cfg = load_config(pipeline_config(pipeline={"metric": "semantic:half_half"}))
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "weights.txt").write_text("a model")
    with Tracker.start(cfg.tracking, run_name="train") as tracker:
        tracker.log_artifact(tmp_path / "model", artifact_path="model")
        version = tracker.register_model("model", cfg.training.register_name)

    def run(difference: dict) -> dict:
        pipeline = Pipeline(cfg)
        pipeline.state.steps = {
            "train": {"outputs": {"version": version}},
            "evaluate": {
                "outputs": {
                    "incumbent": "base",
                    "suites": {"semantic": {"versus_incumbent": {"half_half": difference}}},
                }
            },
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
