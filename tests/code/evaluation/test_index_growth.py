"""Growing a search index in place: papers added or removed search exactly like an index built from scratch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from semcse.core import versions
from semcse.core.vector_index import VectorIndex, VectorIndexError
from semcse.stages.search import SearchIndex
from tests.code.evaluation.test_weighted_search import clustered

ASPECTS = {"species": 12, "method": 8}


def _papers(rng: np.random.Generator, n: int, start: int = 0) -> tuple[list[str], dict[str, np.ndarray]]:
    return [f"p{i:03d}" for i in range(start, start + n)], {a: clustered(rng, n, d) for a, d in ASPECTS.items()}


@pytest.mark.parametrize("metric", ["cosine", "euclidean"])
def test_added_and_removed_papers_search_like_a_fresh_build(metric: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    ids, vectors = _papers(rng, 300)
    new_ids, new_vectors = _papers(rng, 6, start=300)
    grown = SearchIndex.build("m", ids, ids, vectors, metric)
    grown.stacked()  # a cached search matrix must not survive the change
    grown.remove(["p007", "p150"])
    grown.add(new_ids, new_ids, new_vectors)
    grown = SearchIndex.load(grown.save(tmp_path / "grown"))

    keep = [i for i, paper in enumerate(ids) if paper not in {"p007", "p150"}]
    all_ids = [ids[i] for i in keep] + new_ids
    all_vectors = {a: np.concatenate([vectors[a][keep], new_vectors[a]]) for a in ASPECTS}
    fresh = SearchIndex.build("m", all_ids, all_ids, all_vectors, metric)
    assert list(grown.papers["id"]) == all_ids
    for _ in range(10):
        weights = dict(zip(ASPECTS, rng.dirichlet(np.ones(2))))
        query = {a: rng.normal(size=(1, d)).astype(np.float32) for a, d in ASPECTS.items()}
        assert [h.id for h in grown.search(query, 10, weights)] == [h.id for h in fresh.search(query, 10, weights)]
    # a new paper is found by its own vectors at once
    own = grown.stored(grown.row_of("p303"))
    assert grown.search(own, 1)[0].id == "p303"


def test_papers_keep_their_abstracts_and_columns_through_growth_and_storage(tmp_path: Path) -> None:
    import pandas as pd

    rng = np.random.default_rng(3)
    ids, vectors = _papers(rng, 30)
    details = pd.DataFrame({"abstract": [f"abstract of {i}" for i in ids], "topic": ["reefs"] * 30, "year": 2020})
    index = SearchIndex.build("m", ids, [f"title {i}" for i in ids], vectors, "cosine", details=details)
    assert index.row_of("p010") == 10  # cached id → row table, rebuilt after each change
    index.remove(["p003"])
    new_ids, new_vectors = _papers(rng, 2, start=30)
    extra = pd.DataFrame({"id": new_ids, "title": ["ignored"] * 2, "abstract": ["new one", "new two"]})
    index.add(new_ids, ["late A", "late B"], new_vectors, details=extra)
    index = SearchIndex.load(index.save(tmp_path / "index"))
    assert index.row_of("p010") == 9 and index.row_of("p031") == 30
    assert index.paper("p010") == {"id": "p010", "title": "title p010", "abstract": "abstract of p010"} | {
        "topic": "reefs",
        "year": 2020,
    }
    late = index.paper("p031")
    assert (late["title"], late["abstract"], late["topic"], late["year"]) == ("late B", "new two", None, None)
    with pytest.raises(VectorIndexError, match="unknown paper id 'p003'"):
        index.paper("p003")
    with pytest.raises(VectorIndexError, match="details of 1 papers for 2 ids"):
        index.add(["x", "y"], ["x", "y"], {a: v[:2] for a, v in new_vectors.items()}, details=extra.head(1))


def test_adding_refuses_known_ids_and_missing_aspects() -> None:
    rng = np.random.default_rng(1)
    ids, vectors = _papers(rng, 20)
    index = SearchIndex.build("m", ids, ids, vectors, "cosine")
    with pytest.raises(VectorIndexError, match="already in the index"):
        index.add(["p003"], ["again"], {a: v[:1] for a, v in vectors.items()})
    with pytest.raises(VectorIndexError, match="aspects"):
        index.add(["new"], ["new"], {"species": vectors["species"][:1]})
    with pytest.raises(VectorIndexError, match="unknown paper id"):
        index.remove(["nope"])
    assert len(index.papers) == 20 and all(v.size == 20 for v in index.indexes.values())


def test_an_ivf_index_keeps_its_lists_when_rows_are_added_and_removed() -> None:
    rng = np.random.default_rng(2)
    x = clustered(rng, 600, 16)
    index = VectorIndex.build(x[:500], "cosine", ids=[str(i) for i in range(500)], ivf_threshold=100)
    assert index.meta["kind"] == "ivf"
    index.add(x[500:], [str(i) for i in range(500, 600)])
    index.remove(list(range(0, 600, 3)))
    kept = [i for i in range(600) if i % 3]
    assert index.size == len(kept) and index.ids == [str(i) for i in kept]
    np.testing.assert_allclose(index.vectors(), x[kept] / np.linalg.norm(x[kept], axis=1, keepdims=True), atol=1e-6)
    _, found = index.search(x[[598]], 1)
    assert index.ids[found[0][0]] == "598"


def test_a_versioned_root_loads_its_current_version(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    ids, vectors = _papers(rng, 10)
    root = tmp_path / "index"
    index = SearchIndex.build("m", ids, ids, vectors, "cosine")
    versions.publish(root, "build", index.save)
    index.add(["p100"], ["late"], {a: v[:1] for a, v in vectors.items()})
    versions.publish(root, "add-x", index.save)
    assert len(SearchIndex.load(root).papers) == 11 and SearchIndex.manifest(root)["size"] == 11


def test_a_replaced_paper_keeps_the_ids_merged_into_it_and_a_removed_one_drops_them(tmp_path: Path) -> None:
    import pandas as pd

    rng = np.random.default_rng(5)
    ids, vectors = _papers(rng, 20)
    index = SearchIndex.build("m", ids, ids, vectors, "cosine")
    index.add_aliases({"copy-of-p004": "p004", "copy-of-p009": "p009"})
    root = str(tmp_path / "index")
    versions.publish(root, "build", index.save)
    _, replacement = _papers(rng, 1)
    revised = pd.DataFrame({"id": ["p004"], "title": ["p004, revised"]})
    SearchIndex.publish_grown(root, "add-1", revised, lambda: replacement, replaced=["p004"])
    grown = SearchIndex.load(root)
    assert grown.paper("copy-of-p004")["title"] == "p004, revised"
    grown.remove(["p009"])
    with pytest.raises(VectorIndexError, match="unknown paper id"):
        grown.row_of("copy-of-p009")
