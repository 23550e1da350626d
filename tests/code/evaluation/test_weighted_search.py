"""Aspect-weighted search is exact: it equals brute-force `Σ α_a s_a` ranking for any weights (pure NumPy/FAISS)."""

from __future__ import annotations

import numpy as np
import pytest

from semcse.core.vector_index import VectorIndex
from semcse.stages.search import SearchIndex


def clustered(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """Papers in a few clusters, so many are moderately close on every aspect (where shortlists fail)."""
    centres = rng.normal(size=(6, dim))
    return (centres[rng.integers(0, 6, n)] + 0.6 * rng.normal(size=(n, dim))).astype(np.float32)


def brute_force(vectors: dict[str, np.ndarray], query: dict[str, np.ndarray], alpha: dict[str, float], metric: str):
    total = np.zeros(len(next(iter(vectors.values()))))
    for aspect, weight in alpha.items():
        v, q = vectors[aspect].astype(np.float64), query[aspect][0].astype(np.float64)
        if metric == "cosine":
            total += weight * (v / np.linalg.norm(v, axis=1, keepdims=True)) @ (q / np.linalg.norm(q))
        else:
            total -= weight * np.square(v - q).sum(1)
    return total


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_weighted_search_equals_brute_force_for_random_weights(metric):
    rng = np.random.default_rng(0)
    aspects = {"species": 12, "method": 8, "location": 16}
    vectors = {a: clustered(rng, 400, d) for a, d in aspects.items()}
    ids = [f"p{i:03d}" for i in range(400)]
    index = SearchIndex.build("m", ids, ids, vectors, metric)
    for trial in range(20):
        weights = dict(zip(aspects, rng.dirichlet(np.ones(3)) * rng.uniform(0.5, 3)))
        if trial % 4 == 0:
            weights["location"] = 0.0  # a zero weight leaves that aspect out entirely
        query = {a: rng.normal(size=(1, d)).astype(np.float32) for a, d in aspects.items()}
        hits = index.search(query, 10, weights)
        alpha = index.weights(weights)
        truth = brute_force(vectors, query, alpha, metric)
        expected = [ids[i] for i in np.argsort(-truth, kind="stable")[:10]]
        assert [h.id for h in hits] == expected, (metric, trial)
        assert [h.score for h in hits] == pytest.approx(sorted(truth, reverse=True)[:10], rel=1e-4, abs=1e-4)
        # every aspect's similarity is reported, the zero-weighted one too, and the weighted ones make the score
        for hit in hits:
            assert set(hit.similarities) == set(aspects)
            alone = {a: brute_force(vectors, query, {a: 1.0}, metric)[ids.index(hit.id)] for a in aspects}
            assert hit.similarities == pytest.approx(alone, rel=1e-4, abs=1e-4)
            assert hit.score == pytest.approx(sum(w * hit.similarities[a] for a, w in alpha.items()), abs=1e-4)


def test_exclude_drops_the_query_paper_itself():
    rng = np.random.default_rng(1)
    vectors = {"": clustered(rng, 50, 8)}
    ids = [str(i) for i in range(50)]
    index = SearchIndex.build("m", ids, ids, vectors, "cosine")
    hits = index.search(index.stored(7), 5, exclude=7)
    assert "7" not in [h.id for h in hits] and len(hits) == 5


def test_a_fresh_ivf_index_reconstructs_its_vectors():
    """Built in-process (not loaded from disk) an IVF index used to fail: 'direct map not initialized'."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(400, 8)).astype(np.float32)
    index = VectorIndex.build(x, "euclidean", ivf_threshold=100)
    assert index.meta["kind"] == "ivf"
    np.testing.assert_allclose(index.index.reconstruct(5), x[5], rtol=1e-6)
    np.testing.assert_allclose(index.vectors(), x, rtol=1e-6)
