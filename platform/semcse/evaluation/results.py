"""The result of one suite: a table with models as rows, plus what plots and reports need."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd


@dataclass
class LabelledSpace:
    """A model's vectors for some texts and their labels: the input of the t-SNE map."""

    vectors: np.ndarray
    labels: np.ndarray


@dataclass
class SuiteResult:
    """`table`: one row per model (index = model name), one column per metric, as in the papers' tables."""

    name: str
    table: pd.DataFrame
    lower_is_better: set[str] = field(default_factory=set)
    details: dict[str, pd.DataFrame] = field(default_factory=dict)
    spaces: dict[str, LabelledSpace] = field(default_factory=dict)
    pca_curves: dict[str, np.ndarray] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
