"""The training abstracts that read most like the validation abstracts: distractors for the title check.

Among a few hundred validation abstracts a strong base model ranks nearly every abstract first for its own
title, so the check cannot tell a run that learns from one that does not; among abstracts on the same
subject it makes mistakes. The distractors are chosen by their words (TF-IDF), never by the base model:
abstracts picked because the base model ranks them wrongly would make any change from it look like a gain.
Figures: docs/train.md, "What validation ranks".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def lexical_neighbours(queries: Sequence[str], pool: Sequence[str], k: int) -> np.ndarray:
    """The positions in `pool` of each query's `k` nearest texts by TF-IDF cosine, copies of any query (the same
    words, case and spacing aside) left out: their union, sorted (a text near several queries is one distractor)."""
    if k == 0 or not len(queries) or not len(pool):
        return np.empty(0, dtype=np.int64)
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2, dtype=np.float32)
    try:
        vectorizer.fit([*pool, *queries])
    except ValueError:  # no word occurs twice: nothing reads like anything else
        return np.empty(0, dtype=np.int64)
    similarity = (vectorizer.transform(queries) @ vectorizer.transform(pool).T).toarray()
    asked = set(_normalised(queries))
    similarity[:, [text in asked for text in _normalised(pool)]] = -1.0
    nearest = np.argsort(-similarity, axis=1, kind="stable")[:, :k]
    chosen = nearest[np.take_along_axis(similarity, nearest, axis=1) > 0]
    return np.unique(chosen)


def _normalised(texts: Sequence[str]) -> list[str]:
    return [" ".join(text.lower().split()) for text in texts]
