"""The promotion rule: promote only on a paired interval that excludes zero; a tie or a loss never promotes.

The rule is `semcse.orchestration.promotion.decide`, tested as the pure function it is; the register step's own
part (setting `@champion`, saying which guards were not checked) is tested through the pipeline.
"""

from __future__ import annotations

import numpy as np
import pytest

from semcse.core.config import ConfigError, load_config
from semcse.core.tracking import Tracker, alias_version
from semcse.orchestration import promotion
from semcse.orchestration.pipeline import Pipeline
from semcse.stages.evaluation.uncertainty import Bootstrap, paired_difference

RANKS = np.random.default_rng(0).integers(1, 40, 300).astype(float)


def comparison(trained: np.ndarray, incumbent: np.ndarray) -> dict:
    """trained − incumbent on an average rank (lower is better), on shared bootstrap draws."""
    bootstrap = Bootstrap(1000)
    estimates = {
        "trained": {"half_half": bootstrap.mean("half_half", trained)},
        "base": {"half_half": bootstrap.mean("half_half", incumbent)},
    }
    return paired_difference(estimates, "trained", "base", "half_half", higher_is_better=False).to_dict()


def decide(
    difference: dict, knn: dict | None = None, version: str | None = "1", incumbent: str = "base"
) -> promotion.Promotion:
    """The rule on `semantic:half_half`, guarded by `knn:label_agreement`, for version `version` of `model`."""
    suites = {"semantic": {"versus_incumbent": {"half_half": difference}}}
    if knn is not None:
        suites["knn"] = {"versus_incumbent": knn}
    return promotion.decide(suites, incumbent, "semantic:half_half", ["knn:label_agreement"], version, "model")


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


def test_a_tie_and_a_loss_never_promote():
    tie = decide(comparison(RANKS, RANKS))
    assert not tie.champion and tie.verdict.startswith("no significant difference")
    assert "95% CI [+0.000, +0.000]" in tie.verdict and "keeping the base" in tie.verdict
    jitter = np.random.default_rng(1).normal(0, 5, len(RANKS))
    noise = decide(comparison(RANKS + jitter - jitter.mean(), RANKS))  # differs on every query, not on average
    assert not noise.champion and noise.verdict.startswith("no significant difference")
    loss = decide(comparison(RANKS + 2, RANKS))
    assert not loss.champion and loss.verdict.startswith("the trained model is worse")


def test_nothing_registered_is_never_promoted_and_an_unknown_metric_is_refused():
    unregistered = decide(comparison(RANKS, RANKS), version=None)
    assert not unregistered.champion
    assert unregistered.verdict == (
        "training delivered the base model unchanged (no step beat it on validation), so nothing was registered"
    )
    under_champion = decide(comparison(RANKS + 1, RANKS), version=None, incumbent="champion")
    assert not under_champion.champion
    assert under_champion.verdict.endswith(
        "; the champion stays (base − champion on semantic:half_half: +1.000 (95% CI [+1.000, +1.000]))"
    ), under_champion.verdict
    with pytest.raises(ConfigError, match="pipeline.metric='semantic:title_abstract' is not in the evaluation"):
        promotion.decide({"semantic": {"versus_incumbent": {}}}, "base", "semantic:title_abstract", [], "1", "m")


def test_a_significant_win_promotes(registered):
    cfg, version, run = registered
    win = run(comparison(RANKS - 0.5, RANKS))
    assert win["champion"] and f"@champion = version {version}" in win["verdict"]
    assert "trained − base on semantic:half_half: -0.5" in win["verdict"]
    assert alias_version(cfg.tracking, cfg.training.register_name, "champion") == version


def test_a_win_that_loses_on_a_guard_metric_never_promotes():
    """Better title ranks bought with blurred topics: the label metrics guard the promotion."""
    agreement = np.random.default_rng(2).choice([0.2, 0.4, 0.6, 0.8], len(RANKS))
    bootstrap = Bootstrap(1000)
    estimates = {
        "trained": {"label_agreement": bootstrap.mean("knn", agreement - 0.2)},
        "base": {"label_agreement": bootstrap.mean("knn", agreement)},
    }
    loss = paired_difference(estimates, "trained", "base", "label_agreement", higher_is_better=True).to_dict()
    blurred = decide(comparison(RANKS - 0.5, RANKS), {"label_agreement": loss})
    assert not blurred.champion and set(blurred.guard_losses) == {"knn:label_agreement"}
    assert "worse on a guard metric (trained − base on knn:label_agreement: -0.200" in blurred.verdict
    steady = paired_difference(
        {"trained": {"label_agreement": estimates["base"]["label_agreement"]}} | {"base": estimates["base"]},
        "trained",
        "base",
        "label_agreement",
        higher_is_better=True,
    ).to_dict()
    assert decide(comparison(RANKS - 0.5, RANKS), {"label_agreement": steady}).champion  # no loss: promoted


def test_a_guard_the_evaluation_did_not_compute_is_said_not_checked(registered, caplog):
    """`knn:label_agreement` without the knn suite (or without labels) is never a silent pass, nor a V-measure that
    has no interval (the test papers carry one label)."""
    import logging

    from semcse.stages.evaluation.uncertainty import Difference

    cfg, _, run = registered
    nan = Difference("trained", "base", "v_measure", float("nan"), float("nan"), float("nan"), True).to_dict()
    with caplog.at_level(logging.INFO, logger="semcse"):
        better = run(comparison(RANKS - 3, RANKS), knn={"knn_accuracy": comparison(RANKS, RANKS), "v_measure": nan})
    unchecked = [g for g in cfg.pipeline.guards if g != "knn:knn_accuracy"]
    assert "knn:v_measure" in unchecked  # computed, but without an interval: not a pass either
    assert better["guards_not_checked"] == unchecked
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("not checked:")]
    assert said == [
        f"not checked: {', '.join(unchecked)} (the evaluation computed no such column, or no interval for it: "
        "a suite that did not run, a corpus without labels); promotion goes by the guards that were"
    ]


def _semantic_rows(models: dict[str, dict[str, np.ndarray]]) -> dict:
    """Each model's per-paper figures on every task, resampled jointly over the same 300 papers."""
    papers = [f"p{i}" for i in range(len(RANKS))]
    bootstrap = Bootstrap(1000, units=papers)
    return {
        name: {task: bootstrap.mean(task, values, units=papers) for task, values in tasks.items()}
        for name, tasks in models.items()
    }


def test_the_promotion_metric_means_the_same_whatever_else_is_in_the_table():
    """`overall` ranks a table; `improvement` (mean log-ratio against the base) does not move with the table."""
    from semcse.stages.evaluation.semantic import improvement_estimates, overall_estimates

    lower = {"title_abstract", "half_half"}
    jitter = np.random.default_rng(3).normal(0, 2, len(RANKS))
    base = {"title_abstract": RANKS + 6, "half_half": RANKS + 9}
    trained = {"title_abstract": RANKS, "half_half": RANKS + 1 + jitter}
    champion = {"title_abstract": RANKS + 3, "half_half": RANKS + 0.5}
    pair = _semantic_rows({"base": base, "trained": trained})
    trio = _semantic_rows({"base": base, "trained": trained, "champion": champion})
    # the paper's overall: with two models, trained wins both tasks and scores 1; a champion better on one task
    # beside it changes that
    assert overall_estimates(pair, lower)["trained"].value == 1.0
    assert overall_estimates(trio, lower)["trained"].value != overall_estimates(pair, lower)["trained"].value
    # improvement: the trained model's figure and interval are the same with or without the champion
    alone, beside = improvement_estimates(pair, lower)["trained"], improvement_estimates(trio, lower)["trained"]
    assert alone.value == beside.value and np.array_equal(alone.replicates, beside.replicates)
    # and trained − champion on it does not depend on the base model's figures at all
    worse_base = _semantic_rows(
        {"base": {t: v * 3 for t, v in base.items()}, "trained": trained, "champion": champion}
    )
    differences = [
        paired_difference(
            {m: {"i": e} for m, e in improvement_estimates(rows, lower).items()},
            "trained",
            "champion",
            "i",
            higher_is_better=True,
        )
        for rows in (trio, worse_base)
    ]
    assert differences[0].difference == pytest.approx(differences[1].difference)
    assert (differences[0].low, differences[0].high) == pytest.approx((differences[1].low, differences[1].high))
    assert improvement_estimates(trio, lower)["base"].value == 0.0


@pytest.mark.parametrize("metric", ["semantic:overall", "knn:overall"])
def test_overall_is_refused_as_a_promotion_metric_or_guard(metric):
    from semcse.core.config import ConfigError

    with pytest.raises(ConfigError, match="normalises each task across the models in the table"):
        load_config(overrides=[f"pipeline.metric={metric}"])
    with pytest.raises(ConfigError, match="semantic:improvement"):
        load_config(overrides=[f"pipeline.guards=[{metric}]"])
    assert load_config("semcse-paper").pipeline.metric == "semantic:improvement"
