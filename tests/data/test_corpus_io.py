"""Corpus reading and validation on good and bad input: clear errors or quarantined rows, counts reconcile."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from semcse.core.config import CorpusConfig
from semcse.core.data.io import CorpusError, read_corpus, read_raw
from semcse.core.data.validation import validate
from tests.data.counts import check_reconciles

GOOD = "Invasive crayfish alter the structure of freshwater food webs in many lakes across the region."


def test_sample_corpus_is_clean(sample_corpus_path):
    result = validate(read_raw(sample_corpus_path, CorpusConfig()), CorpusConfig())
    check_reconciles(result)
    assert result.report.accepted == 40 and result.report.rejected == 0
    assert set(result.accepted.columns) >= {"id", "title", "abstract", "topic"}


def test_csv_missing_abstract_column(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("id,title,summary\n1,T,some text\n")
    with pytest.raises(CorpusError, match=r"'abstract' not found.*--abstract-col"):
        read_raw(path, CorpusConfig())
    cfg = CorpusConfig(abstract_col="summary", min_abstract_chars=1)
    result = validate(read_raw(path, cfg), cfg)
    check_reconciles(result)
    assert result.report.accepted == 1 and result.accepted.loc[0, "abstract"] == "some text"


def test_bad_rows_are_quarantined_with_reasons(tmp_path):
    rows = [
        {"id": "a", "title": "Ok", "abstract": GOOD},
        {"id": "b", "title": "Empty", "abstract": ""},
        {"id": "a", "title": "Dup", "abstract": GOOD},
        {"id": "", "title": "No id", "abstract": GOOD},
        {"id": "c", "title": "Huge", "abstract": "x" * 2_000_000},
        {"id": "d", "title": "Garbage", "abstract": "\x01\x02\x03\x04" + GOOD[:20]},
        {"id": "e", "title": "Short", "abstract": "tiny"},
    ]
    path = tmp_path / "bad.jsonl"
    lines = [json.dumps(r) for r in rows]
    lines.insert(2, '{"id": "broken", "title": ')
    payload = (
        "\n".join(lines).encode()
        + b'\n{"id": "u", "title": "Bad bytes \xff\xfe", "abstract": "'
        + GOOD.encode()
        + b'"}\n'
    )
    path.write_bytes(payload)
    result = validate(read_raw(path, CorpusConfig()), CorpusConfig())
    check_reconciles(result)
    assert result.report.total == 9
    assert list(result.accepted["id"]) == ["a"]
    reasons = result.report.reasons
    assert reasons == {
        "empty abstract": 1,
        "duplicate id": 1,
        "missing id": 1,
        "abstract too long": 1,
        "control characters": 1,
        "abstract too short": 1,
        "malformed line": 1,
        "invalid UTF-8": 1,
    }
    rejects = result.rejects.set_index("reason")
    assert "\\xff" in rejects.loc["invalid UTF-8", "raw"]
    assert rejects.loc["malformed line", "line"] == 3
    out = result.write(tmp_path / "out")
    stored = pq.read_table(out["rejects"]).to_pandas()
    assert len(stored) == 8 and set(stored["reason"]) == set(reasons)
    assert json.loads(Path(out["report"]).read_text())["accepted"] == 1


def test_duplicate_keeps_first_valid_row(tmp_path):
    path = tmp_path / "d.csv"
    pd.DataFrame({"id": ["x", "x", "x"], "title": ["t"] * 3, "abstract": ["", GOOD, GOOD + " again"]}).to_csv(
        path, index=False
    )
    result = validate(read_raw(path, CorpusConfig()), CorpusConfig())
    check_reconciles(result)
    assert result.accepted["abstract"].tolist() == [GOOD]
    assert result.report.reasons == {"empty abstract": 1, "duplicate id": 1}


def test_empty_file_and_missing_path(tmp_path):
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    with pytest.raises(CorpusError, match="empty"):
        read_raw(empty, CorpusConfig())
    with pytest.raises(CorpusError, match="not found"):
        read_raw(tmp_path / "missing.parquet", CorpusConfig())
    with pytest.raises(CorpusError, match="suffix"):
        (tmp_path / "x.txt").write_text("hi")
        read_raw(tmp_path / "x.txt", CorpusConfig())


def test_directory_of_mixed_shards(tmp_path, sample_records):
    frame = pd.DataFrame(sample_records)
    frame.iloc[:20].to_parquet(tmp_path / "part-0.parquet")
    frame.iloc[20:].to_csv(tmp_path / "part-1.csv", index=False)
    corpus = read_corpus(tmp_path)
    assert len(corpus) == 40 and corpus["id"].is_unique


def test_user_column_names(tmp_path, sample_records):
    frame = pd.DataFrame(sample_records).rename(columns={"id": "doc", "title": "name", "abstract": "body"})
    frame.to_parquet(tmp_path / "c.parquet")
    cfg = CorpusConfig(id_col="doc", title_col="name", abstract_col="body")
    corpus = read_corpus(tmp_path / "c.parquet", cfg)
    assert {"id", "title", "abstract"} <= set(corpus.columns) and len(corpus) == 40


@pytest.mark.realdata
def test_real_corpus_validates_and_reconciles(shared_data):
    cfg = CorpusConfig()
    result = validate(read_raw(shared_data / "medical_abstracts.parquet", cfg), cfg)
    check_reconciles(result)
    assert result.report.accepted > 0.95 * result.report.total
