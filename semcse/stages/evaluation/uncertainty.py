"""Bootstrap intervals for every figure a suite prints, and paired differences between two models.

A figure from a few hundred queries moves by a few points when other queries are drawn; without an
interval a reader cannot tell a better model from a lucky draw. Each metric is computed once on
the evaluated items (the point estimate) and again on `resamples` bootstrap draws of those items.
The draws depend only on the seed, the task and the number of items, never on the model, so every
model of a table is scored on the same draws: the difference of two models' replicates is a
*paired* bootstrap, which is much tighter than comparing two separate intervals.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    """A figure and its bootstrap replicates (one per draw, NaN where a draw left it undefined)."""

    value: float
    replicates: np.ndarray

    def interval(self, level: float = LEVEL) -> tuple[float, float]:
        return percentile_interval(self.replicates, level)

    def recentred(self) -> Estimate:
        """The replicates moved so that their mean is the figure, for a statistic that resampling biases.

        A bootstrap draw repeats items, and some statistics read repeats as structure: a V-measure on a
        draw of a few hundred papers sits a few points above the figure, far enough to leave the figure
        outside its own percentile interval. The replicates' spread is still the figure's sampling spread;
        only their mean is off, by an amount that differs from model to model, so it is removed from each
        model's replicates (and so from a paired difference's) before any interval is read.
        """
        finite = self.replicates[np.isfinite(self.replicates)]
        if not len(finite) or not np.isfinite(self.value):
            return self
        return Estimate(self.value, self.replicates - (float(finite.mean()) - self.value))


@dataclass(frozen=True)
class Difference:
    """`a − b` on the same items, with its paired percentile interval."""

    a: str
    b: str
    metric: str
    difference: float
    low: float
    high: float
    higher_is_better: bool

    @property
    def verdict(self) -> str:
        """`better` / `worse` when the interval excludes zero in that direction, else `no significant difference`
        (`no interval` for a figure that has none)."""
        if np.isnan(self.low) or np.isnan(self.high):
            return "no interval"
        sign = 1 if self.higher_is_better else -1
        low, high = sorted((sign * self.low, sign * self.high))
        if low > 0:
            return "better"
        if high < 0:
            return "worse"
        return "no significant difference"

    def to_dict(self) -> dict[str, float | str]:
        return {
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
            "higher_is_better": self.higher_is_better,
            "verdict": self.verdict,
        }


CHUNK = 128  # draws computed at a time: memory stays O(CHUNK × items) however many draws a figure has


class Bootstrap:
    """Seeded resampling, identical for every model evaluated on the same items.

    Two ways to resample. By task (`mean(task, values)`): the items of one task, drawn with
    replacement from (seed, task, count). By unit (`mean(task, values, units=ids)`), when the
    bootstrap was given the suite's `units` (its papers): one draw of papers serves every task, and
    each task's replicate is the mean over the drawn papers it has a value for. Then the tasks of a
    draw are computed on the same papers, so a figure that combines tasks (the semantic suite's
    `overall` and `improvement`) is resampled as a whole, not as tasks drawn apart.
    """

    def __init__(self, resamples: int, seed: int = 0, units: Sequence[str] = ()) -> None:
        if resamples < 2:
            raise ValueError(f"a bootstrap needs at least 2 resamples, got {resamples}")
        self.resamples = resamples
        self.seed = seed
        self.units = {str(unit): i for i, unit in enumerate(dict.fromkeys(map(str, units)))}
        self._counts: np.ndarray | None = None

    def _chunks(self, task: str, items: int) -> Iterator[np.ndarray]:
        """[≤ CHUNK, items] index draws, in order; the same for the same (seed, task, items)."""
        if items < 1:
            raise ValueError(f"task {task!r} has no items to resample")
        rng = np.random.default_rng([self.seed, zlib.crc32(task.encode()), items])
        for start in range(0, self.resamples, CHUNK):
            yield rng.integers(0, items, size=(min(CHUNK, self.resamples - start), items))

    @property
    def counts(self) -> np.ndarray:
        """[resamples, units]: how often each unit was drawn in each draw of the units (computed once)."""
        if self._counts is None:
            n = len(self.units)
            if n < 1:
                raise ValueError("this bootstrap resamples no units: pass the suite's units to Bootstrap(...)")
            rng = np.random.default_rng([self.seed, zlib.crc32(b"units"), n])
            self._counts = np.stack(
                [np.bincount(rng.integers(0, n, n), minlength=n).astype(np.uint16) for _ in range(self.resamples)]
            )
        return self._counts

    def mean(self, task: str, values: np.ndarray, units: Sequence[str] | None = None) -> Estimate:
        """The mean of per-item values (NaN items, e.g. undefined correlations, are left out of every mean).

        With `units` (one per value, from the bootstrap's units), resampled jointly with every other
        task of those units; else by the task's own draws.
        """
        values = np.asarray(values, dtype=np.float64)
        if units is not None:
            return self._unit_mean(values, units)
        parts = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN draw leaves the figure undefined: NaN
            for chunk in self._chunks(task, len(values)):
                parts.append(np.nanmean(values[chunk], axis=1))
        return Estimate(float(np.nanmean(values)), np.concatenate(parts))

    def _unit_mean(self, values: np.ndarray, units: Sequence[str]) -> Estimate:
        if len(units) != len(values):
            raise ValueError(f"{len(values)} values but {len(units)} units")
        unknown = [u for u in map(str, units) if u not in self.units]
        if unknown:
            raise ValueError(f"{len(unknown)} unit(s) the bootstrap does not resample, e.g. {unknown[0]!r}")
        positions = np.array([self.units[str(u)] for u in units], dtype=np.int64)
        if len(set(positions.tolist())) != len(positions):
            raise ValueError("a unit has two values; one value per unit and task")
        finite = np.isfinite(values)
        kept, weights = positions[finite], values[finite]
        counts = self.counts
        replicates = np.empty(self.resamples)
        for start in range(0, self.resamples, CHUNK):
            drawn = counts[start : start + CHUNK][:, kept].astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                replicates[start : start + CHUNK] = (drawn @ weights) / drawn.sum(axis=1)
        return Estimate(float(np.mean(weights)) if len(weights) else float("nan"), replicates)

    def statistic(self, task: str, items: int, compute: Callable[[np.ndarray], float]) -> Estimate:
        """A statistic that is not a mean of per-item values (e.g. V-measure), recomputed on every draw of the
        task's items (`compute(indices)`; the point estimate is `compute` on every item once)."""
        replicates = [compute(draw) for chunk in self._chunks(task, items) for draw in chunk]  # O(CHUNK × items)
        return Estimate(float(compute(np.arange(items))), np.array(replicates, dtype=np.float64))


def interval_note(resamples: int, over: str, models: int) -> str:
    """The line every suite's notes carry, saying what its intervals are; with several `models`, that they were
    drawn alike (what makes their differences paired)."""
    note = f"[low, high]: 95% bootstrap interval over {over}, {resamples} draws"
    return note + (", the same draws for every model" if models > 1 else "")


def percentile_interval(replicates: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The central `level` percentile interval of the finite replicates (NaN, NaN when there are none)."""
    finite = np.asarray(replicates, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    if not len(finite):
        return float("nan"), float("nan")
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def interval_table(estimates: Mapping[str, Mapping[str, Estimate]], level: float = LEVEL) -> pd.DataFrame:
    """Models as rows, `<metric>_ci_low` / `<metric>_ci_high` columns, from {model: {metric: Estimate}}."""
    rows = {}
    for model, metrics in estimates.items():
        row = {}
        for metric, estimate in metrics.items():
            row[f"{metric}_ci_low"], row[f"{metric}_ci_high"] = estimate.interval(level)
        rows[model] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def paired_difference(
    estimates: Mapping[str, Mapping[str, Estimate]],
    a: str,
    b: str,
    metric: str,
    higher_is_better: bool,
    level: float = LEVEL,
) -> Difference:
    """`a − b` on `metric` with the interval of the per-draw differences (both models saw the same draws)."""
    for model in (a, b):
        if model not in estimates or metric not in estimates[model]:
            raise KeyError(f"no bootstrap estimate of {metric!r} for model {model!r}")
    first, second = estimates[a][metric], estimates[b][metric]
    low, high = percentile_interval(first.replicates - second.replicates, level)
    return Difference(a, b, metric, first.value - second.value, low, high, higher_is_better)
