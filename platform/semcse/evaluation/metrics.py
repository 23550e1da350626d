"""Evaluation metrics, each a pure function of arrays (unit-tested against hand-computed values).

Ranks are 1-based: a true match that scores highest among its candidates has rank 1.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

Similarity = Literal["cosine", "euclidean", "dot"]


def similarity_matrix(queries: np.ndarray, candidates: np.ndarray, similarity: Similarity = "cosine") -> np.ndarray:
    """Scores where higher means more similar: cosine, dot product, or negative Euclidean distance."""
    q = np.asarray(queries, dtype=np.float64)
    c = np.asarray(candidates, dtype=np.float64)
    if similarity == "cosine":
        q = q / np.clip(np.linalg.norm(q, axis=1, keepdims=True), 1e-12, None)
        c = c / np.clip(np.linalg.norm(c, axis=1, keepdims=True), 1e-12, None)
        return q @ c.T
    if similarity == "dot":
        return q @ c.T
    if similarity == "euclidean":
        sq = (q**2).sum(1)[:, None] + (c**2).sum(1)[None, :] - 2 * q @ c.T
        return -np.sqrt(np.clip(sq, 0, None))
    raise ValueError(f"unknown similarity {similarity!r}; expected cosine, euclidean or dot")


def ranks_of_true(scores: np.ndarray, true_index: np.ndarray) -> np.ndarray:
    """Rank of each row's true candidate; ties count against the true match (pessimistic)."""
    scores = np.asarray(scores)
    true_index = np.asarray(true_index)
    true_scores = scores[np.arange(len(scores)), true_index]
    return (scores >= true_scores[:, None]).sum(1)


def average_rank(
    queries: np.ndarray,
    candidates: np.ndarray,
    true_index: np.ndarray | None = None,
    similarity: Similarity = "cosine",
    chunk: int = 2048,
) -> float:
    """Mean rank of each query's true candidate among all candidates (default: the i-th matches the i-th).

    Chunked over queries so memory stays O(chunk × candidates) for large pools.
    """
    true_index = np.arange(len(queries)) if true_index is None else np.asarray(true_index)
    return float(np.mean(_ranks(queries, candidates, true_index, similarity, chunk)))


def mean_reciprocal_rank(
    queries: np.ndarray,
    candidates: np.ndarray,
    true_index: np.ndarray | None = None,
    similarity: Similarity = "cosine",
    chunk: int = 2048,
) -> float:
    """Mean of 1/rank of each query's true candidate."""
    true_index = np.arange(len(queries)) if true_index is None else np.asarray(true_index)
    return float(np.mean(1.0 / _ranks(queries, candidates, true_index, similarity, chunk)))


def _ranks(queries, candidates, true_index, similarity, chunk) -> np.ndarray:
    if len(queries) != len(true_index):
        raise ValueError(f"{len(queries)} queries but {len(true_index)} true indices")
    if len(queries) == 0:
        raise ValueError("no queries to rank")
    out = []
    for start in range(0, len(queries), chunk):
        scores = similarity_matrix(queries[start : start + chunk], candidates, similarity)
        out.append(ranks_of_true(scores, true_index[start : start + chunk]))
    return np.concatenate(out).astype(np.float64)
