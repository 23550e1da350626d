"""Aspect-weighted search over a unified model's per-aspect indexes, via the library and `semcse search`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from semcse.cli import app
from semcse.core.vector_index import VectorIndexError
from semcse.models.unified import UnifiedEncoder
from semcse.stages.search import SearchIndex, build_from_corpus


@pytest.fixture(scope="module")
def searchable(
    ray_cluster, multi_data: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[SearchIndex, Path]:
    from semcse.core.config import EvaluationConfig

    model_dir = UnifiedEncoder.create(multi_data["encoder"], ["species", "method"], dim=8).save(
        tmp_path_factory.mktemp("unified")
    )
    corpus = pd.read_parquet(multi_data["corpus"])
    index = build_from_corpus(corpus, str(model_dir), EvaluationConfig(), str(tmp_path_factory.mktemp("embeddings")))
    return index, Path(index.save(tmp_path_factory.mktemp("index")))


def test_weight_one_on_an_aspect_is_that_aspects_own_ranking(searchable: tuple[SearchIndex, Path]) -> None:
    index, _ = searchable
    row = index.row_of("p007")
    for aspect in ("species", "method"):
        query = index.stored(row)
        hits = index.search(query, 10, {aspect: 1.0})
        own, stored = index.indexes[aspect].search(query[aspect], 10)[1], index.indexes[aspect].ids or []
        assert [h.id for h in hits] == [stored[j] for j in own[0]]
    mixed = [h.id for h in index.search(index.stored(row), 10, {"species": 0.5, "method": 0.5})]
    assert mixed != [h.id for h in index.search(index.stored(row), 10, {"species": 1.0})]


def test_weights_are_normalised_and_unknown_aspects_refused(searchable: tuple[SearchIndex, Path]) -> None:
    index, _ = searchable
    query = index.stored(3)
    assert index.weights({"species": 3, "method": 1}) == {"species": 0.75, "method": 0.25}
    scaled = index.search(query, 8, {"species": 6, "method": 2})
    unit = index.search(query, 8, {"species": 0.75, "method": 0.25})
    assert [(h.id, round(h.score, 6)) for h in scaled] == [(h.id, round(h.score, 6)) for h in unit]
    with pytest.raises(VectorIndexError, match="unknown aspect.*habitat"):
        index.search(query, 5, {"habitat": 1.0})


def test_search_command_by_text_and_by_id(searchable: tuple[SearchIndex, Path]) -> None:
    _, directory = searchable
    runner = CliRunner()
    by_text = runner.invoke(
        app,
        ["search", "--index", str(directory), "--query", "songbirds in a field survey", "-w", "species=2,method=2"],
    )
    assert by_text.exit_code == 0, by_text.output
    assert "species=0.50" in by_text.output and "p0" in by_text.output
    by_id = runner.invoke(app, ["search", "--index", str(directory), "--id", "p001", "-k", "3"])
    assert by_id.exit_code == 0, by_id.output
    unknown = runner.invoke(app, ["search", "--index", str(directory), "--id", "p001", "-w", "habitat=1"])
    assert unknown.exit_code == 2 and "unknown aspect" in unknown.output
