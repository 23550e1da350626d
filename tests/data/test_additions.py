"""New rows validated against an existing corpus: skipped, conflicting, replaced, and merged; counts reconcile."""

from __future__ import annotations

import pandas as pd

from semcse.core.config import CorpusConfig
from semcse.core.data.io import read_raw
from semcse.core.data.validation import merge_additions, validate
from tests.data.counts import check_reconciles

TEXT = "Invasive crayfish alter the structure of freshwater food webs in many lakes across the region."


def _corpus(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {"id": [f"p{i}" for i in range(n)], "title": [f"Title {i}" for i in range(n)], "abstract": [TEXT] * n}
    )


def _new_rows(tmp_path, rows: list[dict]):
    path = tmp_path / "new.jsonl"
    pd.DataFrame(rows).to_json(path, orient="records", lines=True)
    return read_raw(path, CorpusConfig())


ROWS = [
    {"id": "p9", "title": "A new paper", "abstract": TEXT + " New."},
    {"id": "p1", "title": "Title 1", "abstract": "  " + TEXT + "\x07"},  # the same text once cleaned: skipped
    {"id": "p2", "title": "Title 2", "abstract": TEXT + " Revised."},  # same id, other text
    {"id": "p9", "title": "A new paper", "abstract": TEXT + " Again."},  # duplicate within the file
    {"id": "p8", "title": "Short", "abstract": "too short"},
]


def test_existing_ids_are_skipped_or_rejected_as_conflicts(tmp_path) -> None:
    result = validate(_new_rows(tmp_path, ROWS), CorpusConfig(), against=_corpus(4))
    check_reconciles(result)
    report = result.report
    assert (report.total, report.accepted, report.skipped, report.rejected) == (5, 1, 1, 3)
    assert report.total == report.accepted + report.skipped + report.rejected
    assert report.reasons == {"conflicting id": 1, "duplicate id": 1, "abstract too short": 1}
    assert list(result.accepted["id"]) == ["p9"] and result.skipped == ["p1"] and result.replaced == []
    conflict = result.rejects.set_index("id").loc["p2"]
    assert "--replace" in conflict["detail"] and "Revised" in conflict["raw"] and conflict["line"] == 3


def test_replace_accepts_the_new_text_of_an_existing_id(tmp_path) -> None:
    result = validate(_new_rows(tmp_path, ROWS), CorpusConfig(), against=_corpus(4), replace=True)
    check_reconciles(result)
    report = result.report
    assert (report.accepted, report.skipped, report.rejected, report.replaced) == (2, 1, 2, 1)
    assert result.replaced == ["p2"] and set(result.accepted["id"]) == {"p9", "p2"}


def test_merge_replaces_by_id_and_is_idempotent(tmp_path) -> None:
    corpus = _corpus(4).assign(topic="ecology")
    result = validate(_new_rows(tmp_path, ROWS), CorpusConfig(), against=corpus, replace=True)
    check_reconciles(result)
    merged = merge_additions(corpus, result.accepted)
    assert list(merged["id"]) == ["p0", "p1", "p3", "p9", "p2"]
    assert merged.set_index("id").loc["p2", "abstract"].endswith("Revised.")
    assert merged.set_index("id").loc["p0", "topic"] == "ecology"
    assert merge_additions(merged, result.accepted).equals(merged), "a merge done twice changes nothing"


def test_without_a_corpus_nothing_is_skipped(tmp_path) -> None:
    result = validate(_new_rows(tmp_path, ROWS[:1]), CorpusConfig())
    check_reconciles(result)
    assert (result.report.accepted, result.report.skipped, result.report.replaced) == (1, 0, 0)
