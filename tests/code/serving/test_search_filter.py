"""A filter by a corpus column keeps a ranking to the papers it names: a range of numbers or a set of values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semcse.core.vector_index import VectorIndexError
from semcse.stages.search import SearchIndex


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    rng = np.random.default_rng(0)
    ids = [f"p{i}" for i in range(40)]
    details = pd.DataFrame(
        {
            "abstract": ["text"] * 40,
            "year": pd.array([1990 + i if i % 10 else None for i in range(40)], dtype="Int64"),
            "venue": ["Nature" if i % 3 == 0 else "Oikos" for i in range(40)],
        }
    )
    vectors = {"": rng.normal(size=(40, 8)).astype(np.float32)}
    return SearchIndex.build("m", ids, ids, vectors, "cosine", details=details)


def test_a_range_keeps_the_papers_within_it_and_never_a_missing_year(index: SearchIndex) -> None:
    mask = index.rows_where("year", 2000, 2009)
    assert [index.papers["id"].iat[r] for r in np.flatnonzero(mask)] == [f"p{i}" for i in range(11, 20)]  # p10: none
    assert index.rows_where("year", low=2025).sum() == 5 and index.rows_where("year", high=1992).sum() == 2
    hits = index.search(index.stored(0), 30, among=mask)
    assert len(hits) == 9 and {h.id for h in hits} == {f"p{i}" for i in range(11, 20)}
    unfiltered = [h.id for h in index.search(index.stored(0), 40)]
    assert [h.id for h in hits] == [i for i in unfiltered if i in {h.id for h in hits}], "the same order, fewer papers"


def test_values_keep_their_papers_and_neighbours_leave_the_paper_itself_out(index: SearchIndex) -> None:
    nature = index.rows_where("venue", values=["Nature"])
    assert nature.sum() == 14
    hits = index.neighbours("p0", 40, among=nature)
    assert len(hits) == 13 and all(int(h.id[1:]) % 3 == 0 for h in hits) and "p0" not in {h.id for h in hits}
    assert index.rows_where("year", values=["1995"]).sum() == 1  # any column, matched as text
    assert index.search(index.stored(0), 5, among=index.rows_where("venue", values=["Science"])) == []


def test_a_filter_on_what_is_not_there_says_what_is() -> None:
    ids = ["a", "b"]
    index = SearchIndex.build("m", ids, ids, {"": np.eye(2, dtype=np.float32)}, "cosine")
    with pytest.raises(VectorIndexError, match=r"no column 'year' to filter by; the papers have \['title'\]"):
        index.rows_where("year", 2000)
    with pytest.raises(VectorIndexError, match="'title' holds no numbers: filter it by values"):
        index.rows_where("title", 2000)
