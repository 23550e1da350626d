"""The result of one suite: a table with models as rows, its bootstrap intervals, plus what plots and reports need."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from semcse.stages.evaluation.uncertainty import Difference, Estimate, interval_table, paired_difference


@dataclass
class LabelledSpace:
    """A model's vectors for some texts and their labels: the input of the t-SNE map."""

    vectors: np.ndarray
    labels: np.ndarray


@dataclass
class SuiteResult:
    """`estimates`: {model: {metric: Estimate}}, one row per model as in the papers' tables.

    `table` holds the point values and `intervals` the 95% bootstrap bounds; `difference` compares
    two models on the same bootstrap draws. `notes` say which data, split and how many items.
    """

    name: str
    estimates: dict[str, dict[str, Estimate]]
    lower_is_better: set[str] = field(default_factory=set)
    details: dict[str, pd.DataFrame] = field(default_factory=dict)
    spaces: dict[str, LabelledSpace] = field(default_factory=dict)
    pca_curves: dict[str, np.ndarray] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def table(self) -> pd.DataFrame:
        return pd.DataFrame.from_dict(
            {model: {metric: e.value for metric, e in row.items()} for model, row in self.estimates.items()},
            orient="index",
        )

    @property
    def intervals(self) -> pd.DataFrame:
        return interval_table(self.estimates)

    def difference(self, a: str, b: str, metric: str) -> Difference:
        return paired_difference(self.estimates, a, b, metric, higher_is_better=metric not in self.lower_is_better)

    def differences(self, a: str, b: str) -> dict[str, Difference]:
        """`a − b` on every metric both models have."""
        shared = [m for m in self.estimates.get(a, {}) if m in self.estimates.get(b, {})]
        return {metric: self.difference(a, b, metric) for metric in shared}
