"""The embeddings contract (id, aspect, vector): one writer and one reader, and every bad table named."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from semcse.cli import app
from semcse.core.data.embeddings import EmbeddingError, embeddings_table, read_embeddings, write_embeddings


def test_written_shards_read_back_in_the_callers_order(tmp_path):
    vectors = np.arange(12, dtype=np.float32).reshape(4, 3)
    write_embeddings(tmp_path, "k1", embeddings_table(["a", "b"], ["", ""], vectors[:2]))
    write_embeddings(tmp_path, "k2", embeddings_table(["c", "d"], ["", ""], vectors[2:]))
    read = read_embeddings(tmp_path, ["d", "a", "c"])
    assert list(read) == [""]
    np.testing.assert_array_equal(read[""], vectors[[3, 0, 2]])
    only_first = read_embeddings(tmp_path, ["b"], [""], keys=["k1"])
    np.testing.assert_array_equal(only_first[""], vectors[[1]])


def test_a_file_written_by_another_tool_is_read_per_aspect(tmp_path):
    """pandas writes variable-length lists of doubles; the reader takes them when every vector has one size."""
    frame = pd.DataFrame(
        {
            "id": ["p1", "p2", "p1", "p2"],
            "aspect": ["species", "species", "method", "method"],
            "vector": [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5, 0.5], [1.0, 1.0, 1.0]],
        }
    )
    frame.to_parquet(tmp_path / "e.parquet")
    read = read_embeddings(tmp_path / "e.parquet", ["p2", "p1"])
    assert sorted(read) == ["method", "species"]
    assert read["species"].dtype == np.float32 and read["species"].tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert read["method"].shape == (2, 3)


@pytest.mark.parametrize(
    ("frame", "ids", "message"),
    [
        (pd.DataFrame({"id": ["a"], "vector": [[1.0]]}), ["a"], r"missing column\(s\) \['aspect'\]"),
        (pd.DataFrame({"id": ["a", "b"], "aspect": "", "vector": [[1.0], [1.0, 2.0]]}), ["a"], "different lengths"),
        (pd.DataFrame({"id": ["a", "a"], "aspect": "", "vector": [[1.0], [2.0]]}), ["a"], "duplicate ids"),
        (pd.DataFrame({"id": ["a"], "aspect": "", "vector": [[1.0]]}), ["a", "b"], "mismatched ids: 1 of 2"),
        (pd.DataFrame({"id": ["a"], "aspect": "", "vector": [[float("nan")]]}), ["a"], "NaN"),
        (pd.DataFrame({"id": ["a"], "aspect": "", "vector": ["1.0"]}), ["a"], "not lists of floats"),
    ],
)
def test_bad_tables_are_refused_with_their_problem(tmp_path, frame, ids, message):
    frame.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(EmbeddingError, match=message):
        read_embeddings(tmp_path / "bad.parquet", ids)


def test_the_writer_refuses_what_readers_could_not_use(tmp_path):
    with pytest.raises(EmbeddingError, match="do not line up"):
        embeddings_table(["a", "b"], [""], np.zeros((2, 3)))
    with pytest.raises(EmbeddingError, match=r"\[rows, dim\]"):
        embeddings_table(["a"], [""], np.zeros(3))
    import pyarrow as pa

    with pytest.raises(EmbeddingError, match="not an embeddings table"):
        write_embeddings(tmp_path, "k", pa.table({"id": ["a"], "vector": [[1.0]]}))
    with pytest.raises(EmbeddingError, match="embeddings not found"):
        read_embeddings(tmp_path / "nowhere", ["a"])


def test_map_layout_reads_embeddings_through_the_contract(sample_corpus_path, tmp_path):
    ids = [json.loads(line)["id"] for line in sample_corpus_path.read_text().splitlines() if line.strip()]
    vectors = np.random.default_rng(0).normal(size=(len(ids), 8)).astype(np.float32)
    write_embeddings(tmp_path / "emb", "all", embeddings_table(ids, [""] * len(ids), vectors))
    common = ["map", "layout", "--corpus", str(sample_corpus_path), "--set", "map.iterations=250"]
    result = CliRunner().invoke(app, [*common, "--embeddings", str(tmp_path / "emb"), "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert f"map of {len(ids)} points" in result.output
    short = write_embeddings(tmp_path / "short", "k", embeddings_table(ids[1:], [""] * (len(ids) - 1), vectors[1:]))
    result = CliRunner().invoke(app, [*common, "--embeddings", str(short), "--out", str(tmp_path / "m2")])
    assert result.exit_code == 2
    assert "mismatched ids: 1 of" in " ".join(result.output.split())
