"""Bootstrap intervals and paired differences: pure functions, checked against what they must satisfy."""

from __future__ import annotations

import numpy as np
import pytest

from semcse.stages.evaluation.uncertainty import (
    Bootstrap,
    Estimate,
    interval_note,
    interval_table,
    paired_difference,
    percentile_interval,
)


def test_draws_depend_on_task_and_size_only():
    values = np.random.default_rng(0).normal(size=50)

    def replicates(bootstrap: Bootstrap, task: str) -> np.ndarray:
        return bootstrap.mean(task, values).replicates

    bootstrap = Bootstrap(200, seed=3)
    assert np.array_equal(replicates(bootstrap, "half_half"), replicates(Bootstrap(200, seed=3), "half_half"))
    assert not np.array_equal(replicates(bootstrap, "half_half"), replicates(bootstrap, "title_abstract"))
    assert not np.array_equal(replicates(bootstrap, "half_half"), replicates(Bootstrap(200, seed=4), "half_half"))
    assert replicates(bootstrap, "x").shape == (200,)
    with pytest.raises(ValueError, match="no items"):
        bootstrap.mean("x", np.zeros(0))
    with pytest.raises(ValueError, match="at least 2"):
        Bootstrap(1)


def test_mean_interval_covers_the_mean_and_shrinks_with_more_items():
    rng = np.random.default_rng(0)
    bootstrap = Bootstrap(1000)
    small = bootstrap.mean("t", rng.normal(5.0, 1.0, 50))
    large = bootstrap.mean("t", rng.normal(5.0, 1.0, 2000))
    for estimate in (small, large):
        low, high = estimate.interval()
        assert low < estimate.value < high
        assert low < 5.0 < high
    assert np.diff(large.interval())[0] < np.diff(small.interval())[0] / 3
    # the normal-theory half width of a mean of 2000 N(0, 1) values is 1.96 / sqrt(2000) = 0.044
    assert np.diff(large.interval())[0] / 2 == pytest.approx(1.96 / np.sqrt(2000), rel=0.15)


def test_nan_items_are_left_out():
    estimate = Bootstrap(100).mean("t", np.array([1.0, np.nan, 3.0]))
    assert estimate.value == pytest.approx(2.0)
    assert np.nanmin(estimate.replicates) >= 1.0 and np.nanmax(estimate.replicates) <= 3.0


def test_paired_difference_sees_a_small_consistent_gain_that_separate_intervals_miss():
    """Model b is model a plus 0.05 on every query; the queries vary by ±1: only pairing can tell."""
    rng = np.random.default_rng(1)
    a = rng.normal(0.0, 1.0, 300)
    bootstrap = Bootstrap(1000)
    estimates = {"a": {"m": bootstrap.mean("task", a)}, "b": {"m": bootstrap.mean("task", a + 0.05)}}
    a_low, a_high = estimates["a"]["m"].interval()
    b_low, b_high = estimates["b"]["m"].interval()
    assert b_low < a_high  # the separate intervals overlap
    gain = paired_difference(estimates, "b", "a", "m", higher_is_better=True)
    assert gain.difference == pytest.approx(0.05)
    assert gain.low == pytest.approx(0.05) and gain.high == pytest.approx(0.05)
    assert gain.verdict == "better"
    assert paired_difference(estimates, "a", "b", "m", higher_is_better=True).verdict == "worse"
    # for a rank (lower is better) the same numbers mean the opposite
    assert paired_difference(estimates, "b", "a", "m", higher_is_better=False).verdict == "worse"


def test_a_tie_and_noise_are_no_significant_difference():
    rng = np.random.default_rng(2)
    bootstrap = Bootstrap(1000)
    values = rng.normal(0.0, 1.0, 200)
    tie = {"a": {"m": bootstrap.mean("t", values)}, "b": {"m": bootstrap.mean("t", values)}}
    assert paired_difference(tie, "a", "b", "m", True).verdict == "no significant difference"
    noisy = {"a": {"m": bootstrap.mean("t", values)}, "b": {"m": bootstrap.mean("t", rng.normal(0.0, 1.0, 200))}}
    difference = paired_difference(noisy, "b", "a", "m", True)
    assert difference.low < 0 < difference.high
    assert difference.verdict == "no significant difference"
    with pytest.raises(KeyError, match="no bootstrap estimate"):
        paired_difference(noisy, "a", "c", "m", True)


def test_statistic_recomputes_on_each_draw():
    bootstrap = Bootstrap(300)  # more than one chunk of draws
    values = np.arange(10.0)
    seen = []
    estimate = bootstrap.statistic("t", 10, lambda d: seen.append(len(d)) or float(np.median(values[d])))
    assert estimate.value == pytest.approx(4.5)
    assert len(estimate.replicates) == 300 and len(seen) == 301  # every draw, and the point on all items
    # its draws are the mean's draws: a statistic and a mean of the same task stay paired
    means = bootstrap.statistic("t", 10, lambda d: float(np.mean(values[d])))
    assert np.allclose(means.replicates, bootstrap.mean("t", values).replicates)


def test_recentred_replicates_keep_their_spread_around_the_figure():
    biased = Estimate(0.5, np.array([0.6, 0.7, 0.8, np.nan]))
    recentred = biased.recentred()
    assert recentred.value == 0.5
    assert np.allclose(recentred.replicates[:3], [0.4, 0.5, 0.6]) and np.isnan(recentred.replicates[3])
    assert biased.interval()[0] > 0.5 and recentred.interval()[0] < 0.5 < recentred.interval()[1]
    # a paired difference of two recentred estimates is centred on the difference of the figures
    other = Estimate(0.4, np.array([0.55, 0.6, 0.65, np.nan])).recentred()
    difference = paired_difference({"a": {"v": recentred}, "b": {"v": other}}, "a", "b", "v", True)
    assert difference.difference == pytest.approx(0.1) and difference.low < 0.1 < difference.high
    undefined = Estimate(float("nan"), np.full(1, np.nan))
    assert undefined.recentred() is undefined


def test_interval_table_and_percentiles():
    estimate = Estimate(0.5, np.linspace(0.0, 1.0, 1001))
    assert percentile_interval(estimate.replicates) == pytest.approx((0.025, 0.975))
    assert np.isnan(percentile_interval(np.array([np.nan, np.nan]))[0])
    table = interval_table({"model": {"m": estimate}})
    assert table.loc["model"].to_dict() == pytest.approx({"m_ci_low": 0.025, "m_ci_high": 0.975})


def test_interval_note_says_the_draws_are_shared_only_when_models_share_them():
    assert interval_note(1000, "query papers", 2).endswith(", the same draws for every model")
    alone = interval_note(1000, "query papers", 1)
    assert alone == "[low, high]: 95% bootstrap interval over query papers, 1000 draws", "a lone model shares nothing"


def test_tasks_over_the_same_papers_are_resampled_together():
    """A figure that combines tasks needs each draw's tasks scored on the same papers."""
    rng = np.random.default_rng(4)
    papers = [f"p{i}" for i in range(300)]
    hard = rng.normal(0.0, 1.0, 300)  # how hard each paper is, shared by both tasks
    joint = Bootstrap(500, seed=1, units=papers)
    first = joint.mean("title_abstract", hard, units=papers)
    second = joint.mean("half_half", hard + 1.0, units=papers)
    assert second.replicates - first.replicates == pytest.approx(np.ones(500)), "the same papers in each draw"
    apart = Bootstrap(500, seed=1)
    spread = apart.mean("half_half", hard + 1.0).replicates - apart.mean("title_abstract", hard).replicates
    assert np.std(spread) > 0.05, "drawn task by task, the two tasks see different papers"
    # a task covering some of the papers is the mean over the drawn papers it has, NaN papers left out
    some = joint.mean("query_paper", np.r_[hard[:100], np.nan], units=[*papers[:100], papers[150]])
    assert some.value == pytest.approx(hard[:100].mean()) and np.isfinite(some.replicates).all()
    assert Bootstrap(500, seed=1, units=papers).mean("x", hard, units=papers).replicates == pytest.approx(
        first.replicates
    ), "the same draws for every model"
    with pytest.raises(ValueError, match="does not resample"):
        joint.mean("x", np.ones(1), units=["stranger"])
