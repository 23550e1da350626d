"""FAISS index: the model's metric, exact vs IVF, save/load, and the dimension-mismatch error."""

from __future__ import annotations

import numpy as np
import pytest

from semcse.core.vector_index import DimensionMismatch, VectorIndex, VectorIndexError, nearest
from semcse.stages.evaluation.metrics import similarity_matrix


def test_cosine_and_euclidean_follow_the_metric():
    # (10,0) is the same direction as the query but far away; (0.9,0.1) is close
    stored = np.array([[10.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    query = np.array([[1.0, 0.0]])
    scores, rows = VectorIndex.build(stored, "cosine").search(query, 3)
    assert rows[0].tolist() == [0, 1, 2]
    assert scores[0, 0] == pytest.approx(1.0)
    scores, rows = VectorIndex.build(stored, "euclidean").search(query, 2)
    assert rows[0].tolist() == [1, 2]  # distances sqrt(.02), sqrt(2); (10,0) is 9 away
    assert scores[0].tolist() == pytest.approx([-np.hypot(0.1, 0.1), -np.sqrt(2)], abs=1e-5)


def test_exact_matches_brute_force_and_ivf_recalls_well():
    rng = np.random.default_rng(0)
    stored, queries = rng.normal(size=(2000, 16)), rng.normal(size=(50, 16))
    brute = np.argsort(-similarity_matrix(queries, stored), axis=1)[:, :5]
    assert (nearest(queries, stored, 5) == brute).all()
    ivf = VectorIndex.build(stored, "cosine", ivf_threshold=1000, nprobe=16)
    assert ivf.meta["kind"] == "ivf"
    _, rows = ivf.search(queries, 5)
    recall = np.mean([len(set(a) & set(b)) / 5 for a, b in zip(rows, brute)])
    assert recall > 0.8


def test_save_load_ids_and_dimension_mismatch(tmp_path):
    stored = np.eye(4, dtype=np.float32)
    index = VectorIndex.build(stored, "cosine", ids=["a", "b", "c", "d"])
    loaded = VectorIndex.load(index.save(tmp_path / "idx"))
    assert (loaded.metric, loaded.dim, loaded.size) == ("cosine", 4, 4)
    _, rows = loaded.search(np.array([[0, 0, 1.0, 0]]), 1)
    assert loaded.ids is not None and [loaded.ids[j] for j in rows[0]] == ["c"]
    with pytest.raises(DimensionMismatch, match="dimension 3 but the index stores dimension 4"):
        loaded.search(np.ones((1, 3)), 1)
    with pytest.raises(VectorIndexError, match="NaN"):
        loaded.search(np.full((1, 4), np.nan), 1)
    with pytest.raises(FileNotFoundError):
        VectorIndex.load(tmp_path / "missing")
