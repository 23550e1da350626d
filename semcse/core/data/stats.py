"""Descriptive statistics of a corpus: what a user checks before spending GPU hours on it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from semcse.core.data.io import read_raw
from semcse.core.data.schema import ABSTRACT, ID, TITLE

if TYPE_CHECKING:
    from semcse.core.config import CorpusConfig

PERCENTILES = (5, 25, 50, 75, 95, 99)


def length_percentiles(texts: pd.Series) -> dict[str, float]:
    """Character and word length percentiles of non-empty texts."""
    texts = texts[texts.str.strip() != ""]
    if texts.empty:
        return {}
    chars = texts.str.len().to_numpy()
    words = texts.str.split().map(len).to_numpy()
    out: dict[str, float] = {}
    for name, values in (("chars", chars), ("words", words)):
        for p, v in zip(PERCENTILES, np.percentile(values, PERCENTILES)):
            out[f"{name}_p{p}"] = float(v)
        out[f"{name}_max"] = float(values.max())
    return out


def corpus_stats(frame: pd.DataFrame) -> dict[str, Any]:
    """Counts, emptiness, duplicate rates and length percentiles of titles and abstracts."""
    n = len(frame)
    ids = frame[ID].str.strip()
    abstracts = frame[ABSTRACT].str.strip()
    non_empty = abstracts[abstracts != ""]
    return {
        "rows": n,
        "empty_titles": int((frame[TITLE].str.strip() == "").sum()),
        "empty_abstracts": int((abstracts == "").sum()),
        "duplicate_id_rate": float(ids.duplicated().mean()) if n else 0.0,
        "duplicate_abstract_rate": float(non_empty.duplicated().mean()) if len(non_empty) else 0.0,
        "title": length_percentiles(frame[TITLE]),
        "abstract": length_percentiles(frame[ABSTRACT]),
    }


def file_stats(path: str | Path, cfg: CorpusConfig) -> dict[str, Any]:
    """`corpus_stats` of a corpus as a user has it (read with the corpus settings), with its unparsable lines."""
    raw = read_raw(path, cfg)
    return corpus_stats(raw.frame) | {"unparsable_lines": len(raw.broken)}
