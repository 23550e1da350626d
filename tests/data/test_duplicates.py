"""Duplicate papers: merged into the first copy and counted, listed with every likely one, found by any id."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semcse.core.config import CorpusConfig
from semcse.core.data.duplicates import find_duplicates, read_aliases
from semcse.core.data.io import RawCorpus, read_raw
from semcse.core.data.split import frame_splits
from semcse.core.data.validation import grow_duplicates, validate
from semcse.core.vector_index import VectorIndexError
from semcse.stages.search import SearchIndex
from tests.data.counts import check_reconciles

ABSTRACT = (
    "Invasive crayfish alter the structure of freshwater food webs in many lakes across the region, and their "
    "burrows weaken the banks of the streams they reach; we surveyed forty lakes over six summers."
)


def _raw(rows: list[tuple[str, str, str]]) -> RawCorpus:
    frame = pd.DataFrame(rows, columns=["id", "title", "abstract"]).assign(__bad_utf8=False)
    return RawCorpus(frame, sources=["test"])


ROWS = [
    ("a", "Crayfish in lakes", ABSTRACT),
    (
        "b",
        "Goats on islands",
        "Feral goats were removed from an island and native shrubs recovered within five years.",
    ),
    ("c", "CRAYFISH   in <i>lakes</i>", ABSTRACT.replace("region,", "region ,").replace("&", "&amp;")),
    ("d", "Crayfish in lakes", ABSTRACT.replace("forty lakes", "forty-one lakes")),  # one word more: likely
    ("e", "Crayfish in lakes.", ABSTRACT.upper().replace("THEIR ", "THEIR&#32;")),
]


def test_exact_copies_are_merged_into_the_first_and_counted() -> None:
    result = validate(_raw(ROWS), CorpusConfig())
    check_reconciles(result)
    assert result.accepted["id"].tolist() == ["a", "b", "d"]
    counts = result.report
    assert (counts.total, counts.accepted, counts.merged, counts.exact, counts.likely) == (5, 3, 2, 2, 1)
    assert counts.equation().startswith("in = accepted + merged + rejected: 5 = 3 + 2 + 0; 1 likely duplicates kept")
    table = result.duplicates.set_index("id")
    assert table.loc[["c", "e"], "kept"].tolist() == ["a", "a"] and table.loc[["c", "e"], "merged"].all()
    assert table.loc["d", "kind"] == "likely" and not table.loc["d", "merged"]
    assert 0.9 <= table.loc["d", "similarity"] < 1


def test_likely_copies_are_merged_when_told_to() -> None:
    result = validate(_raw(ROWS), CorpusConfig(merge_likely_duplicates=True))
    check_reconciles(result)
    assert result.accepted["id"].tolist() == ["a", "b"]
    assert result.report.merged == 3 and result.duplicates.set_index("id").loc["d", "kept"] == "a"
    assert result.report.equation() == "in = accepted + merged + rejected: 5 = 2 + 3 + 0"


def test_papers_that_only_share_a_title_stay_apart() -> None:
    other = "Signal crayfish carry a plague that kills native crayfish; we traced its spread through ten rivers."
    result = validate(_raw([ROWS[0], ("z", ROWS[0][1], other)]), CorpusConfig())
    check_reconciles(result)
    assert result.report.accepted == 2 and result.duplicates.empty


def test_new_rows_merge_into_the_corpus_and_its_papers_never_leave() -> None:
    corpus = validate(_raw(ROWS[:2]), CorpusConfig()).accepted
    added = validate(_raw([("new-1", ROWS[2][1], ROWS[2][2]), ("new-2", "x", "y" * 40)]), CorpusConfig(), corpus)
    check_reconciles(added)
    assert added.accepted["id"].tolist() == ["new-2"] and added.report.merged == 1
    assert added.duplicates[["id", "kept"]].values.tolist() == [["new-1", "a"]]
    # a corpus paper is the one kept, even when the new row comes first in the file
    assert find_duplicates(corpus.iloc[:1], known=validate(_raw([ROWS[2]]), CorpusConfig()).accepted)[
        "kept"
    ].tolist() == ["c"]


def test_a_merged_copy_cannot_straddle_the_splits() -> None:
    """Split by a hash of the id, two copies of a paper land in different splits often; one merged paper cannot."""
    rows = [(f"p{i}", f"Paper {i}", f"{ABSTRACT} Study {i}.") for i in range(200)]
    copies = [(f"copy-{i}", title, abstract) for i, (_, title, abstract) in enumerate(rows)]
    raw = _raw(rows + copies)
    kept = validate(raw, CorpusConfig()).accepted
    assert len(kept) == 200 and not kept["id"].str.startswith("copy-").any()
    both = raw.frame.assign(paper=np.tile(np.arange(200), 2))
    split = frame_splits(both, CorpusConfig())
    assert (split.groupby(both["paper"]).nunique() > 1).any(), "without merging, some copies would straddle"


def test_the_index_finds_a_paper_by_a_merged_id_and_the_aliases_travel(tmp_path) -> None:
    result = validate(_raw(ROWS), CorpusConfig())
    check_reconciles(result)
    paths = result.write(tmp_path / "corpus")
    aliases = read_aliases(paths["duplicates"])
    assert aliases == {"c": "a", "e": "a"}
    ids = result.accepted["id"].tolist()
    vectors = {"": np.eye(3, 4, dtype=np.float32)}
    index = SearchIndex.build("m", ids, result.accepted["title"].tolist(), vectors, "cosine", aliases=aliases)
    loaded = SearchIndex.load(index.save(tmp_path / "index"))
    assert loaded.paper("e")["id"] == "a" and loaded.row_of("c") == loaded.row_of("a") == 0
    assert [hit.id for hit in loaded.neighbours("c", 2)] == ["b", "d"]  # the paper itself is left out, by any id
    with pytest.raises(VectorIndexError, match="not in the index"):
        loaded.add_aliases({"x": "nowhere"})
    loaded.remove(["a"])
    assert loaded.aliases == {} and pytest.raises(VectorIndexError, loaded.row_of, "c")


def test_an_update_adds_its_duplicates_to_the_corpus_s_once(tmp_path) -> None:
    first = validate(_raw(ROWS[:3]), CorpusConfig()).write(tmp_path / "corpus")
    corpus = pd.read_parquet(first["accepted"])
    update = validate(_raw([("new-1", ROWS[0][1], ROWS[0][2])]), CorpusConfig(), corpus).write(tmp_path / "update")
    assert grow_duplicates(first["accepted"], update["duplicates"]) == 2
    assert grow_duplicates(first["accepted"], update["duplicates"]) == 2  # done again after an interruption
    assert read_aliases(tmp_path / "corpus" / "duplicates.parquet") == {"c": "a", "new-1": "a"}


@pytest.mark.realdata
def test_the_invasion_corpus_merges_its_repeated_papers(shared_data) -> None:
    cfg = CorpusConfig()
    result = validate(read_raw(shared_data / "invasion_biology_unlabelled.parquet", cfg), cfg)
    check_reconciles(result)
    counts = result.report
    assert counts.total == 37_100 and counts.merged == counts.exact > 1_000 and counts.likely > 1_000
    assert counts.accepted == counts.total - counts.merged - counts.rejected
    assert result.accepted["id"].is_unique and not set(result.accepted["id"]) & set(
        result.duplicates.query("merged")["id"]
    )
