"""Living corpora: a pipeline built on N abstracts takes M more and pays only for the M.

The suite's one built run (with generation by the tiny causal LM, an index and a map; `built_run`) takes
every test's own update, each asserting on what changed relative to the state it found, so the tests hold in any
order. New abstracts come under the run's own column names (`user_rows`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from semcse.core import versions
from semcse.core.config import ConfigError, RunConfig, load_config
from semcse.core.data.generated import Manifest, read_texts
from semcse.core.data.io import read_corpus
from semcse.core.tracking import Tracker
from semcse.orchestration.steps import StepState
from semcse.orchestration.update import STEPS, run_update
from semcse.stages.maps import SemanticMap
from semcse.stages.search import SearchIndex
from tests.fixtures.pipeline import BUILT, user_rows


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    return user_rows(path, rows)


def _canonical(path: Path, rows: list[dict]) -> Path:
    pd.DataFrame(rows).to_json(path, orient="records", lines=True)
    return path


@pytest.fixture
def built(built_run):
    """The shared run (`tests.fixtures.pipeline.built_run`) and its work folder; every test here grows it."""
    return built_run.cfg, built_run.work


def _snapshot(cfg: RunConfig) -> dict:
    state = StepState.load(Path(cfg.run_dir))
    index = SearchIndex.load(state.outputs("index")["index"])
    semantic_map = SemanticMap.load(state.outputs("map")["map"])
    return {
        "corpus": read_corpus(state.outputs("validate")["corpus"]),
        "index": list(index.papers["id"]),
        "map": dict(zip(semantic_map.ids, map(tuple, semantic_map.coords))),
        "texts": read_texts(state.outputs("generate")["texts"]),
    }


def _assert_consistent(cfg: RunConfig) -> dict:
    """Corpus, generated texts, index and map hold the same papers, each once."""
    now = _snapshot(cfg)
    ids = list(now["corpus"]["id"])
    assert len(set(ids)) == len(ids)
    assert sorted(now["index"]) == sorted(ids) and sorted(now["map"]) == sorted(ids)
    texts = now["texts"]
    assert not texts.duplicated(["id", "kind", "prompt_id", "sample"]).any()
    assert set(texts["id"]) <= set(ids)
    return now


def _embedded(cfg: RunConfig) -> dict[str, float]:
    """{embeddings shard: its modification time}, over every model's shards of the run's paper vectors."""
    return {str(p): p.stat().st_mtime for p in Path(cfg.run_dir, "embeddings").rglob("part-*.parquet")}


def test_adding_m_abstracts_touches_only_those_m(built, sample_records):
    cfg, work = built
    before = _snapshot(cfg)
    new = sample_records[BUILT:]
    duplicate = sample_records[0]
    conflicting = {**sample_records[1], "abstract": sample_records[1]["abstract"] + " A sentence added later."}
    path = _jsonl(work / "batch-1.jsonl", [*new, duplicate, conflicting])
    trained = StepState.load(Path(cfg.run_dir)).steps["train"]

    shards_before = _embedded(cfg)
    report = run_update(cfg, path)

    m = len(new)
    assert (report.new, report.added, report.skipped, report.rejected) == (m + 2, m, 1, 1)
    assert report.new == report.added + report.skipped + report.rejected
    assert report.reasons == {"conflicting id": 1}
    rejects = pd.read_parquet(report.rejects)
    assert list(rejects["id"]) == [conflicting["id"]] and "--replace" in rejects["detail"].iat[0]
    # generation: only the M new abstracts, every earlier summary reused untouched
    assert (report.generated, report.generation_reused) == (m, len(before["corpus"]))
    now = _assert_consistent(cfg)
    old_texts = before["texts"].set_index(["id", "prompt_id", "sample"])["text"]
    assert now["texts"].set_index(["id", "prompt_id", "sample"])["text"].loc[old_texts.index].equals(old_texts)
    assert set(now["texts"]["id"]) == set(before["corpus"]["id"]) | {r["id"] for r in new}
    # exactly the M new papers were embedded (on the cluster's actors, into new shards); no old shard was redone
    shards_after = _embedded(cfg)
    assert all(shards_after[shard] == mtime for shard, mtime in shards_before.items())
    fresh = pd.concat([pd.read_parquet(shard) for shard in set(shards_after) - set(shards_before)])
    assert sorted(fresh["id"]) == sorted(r["id"] for r in new)
    # index N+M, old map points exactly where they were, new ones placed and reported
    assert len(now["index"]) == len(before["index"]) + m == report.index["papers"]
    assert all(now["map"][paper] == xy for paper, xy in before["map"].items())
    assert set(report.landings) == {r["id"] for r in new}
    for landing in report.landings.values():
        assert len(landing["near"]) == 3 and all(n["id"] in before["map"] for n in landing["near"])
    index = SearchIndex.load(StepState.load(Path(cfg.run_dir)).outputs("index")["index"])
    paper = new[0]["id"]
    assert index.search(index.stored(index.row_of(paper)), 1)[0].id == paper, "weighted search finds it at once"
    stored = index.paper(paper)  # with its text and columns, for the explorer to show
    assert (stored["abstract"], stored["topic"]) == (new[0]["abstract"], new[0]["topic"])
    # the model stays as it was: nothing was trained
    assert StepState.load(Path(cfg.run_dir)).steps["train"] == trained and not report.retrained
    # one MLflow run, a child of the run that built the corpus, with counts that reconcile
    client = Tracker(cfg.tracking).client
    run = client.get_run(report.run_id)
    assert run.info.status == "FINISHED"
    assert run.data.tags["mlflow.parentRunId"] == StepState.load(Path(cfg.run_dir)).parent_run_id
    metrics = run.data.metrics
    assert metrics["update/new"] == metrics["update/added"] + metrics["update/skipped"] + metrics["update/rejected"]
    assert metrics["update/index_papers"] == len(now["index"])
    # the same file again: recognised as applied, nothing redone
    again = run_update(cfg, path)
    assert again.to_dict() == report.to_dict()


@pytest.mark.slow
def test_replace_invalidates_the_papers_texts_vectors_index_entry_and_map_point(built, sample_records):
    cfg, work = built
    before = _snapshot(cfg)
    target = sample_records[2]
    changed = {**target, "title": "A replaced title", "abstract": target["abstract"] + " Revised in proof."}
    path = _jsonl(work / "replace.jsonl", [changed])

    refused = run_update(cfg, path)
    assert (refused.added, refused.rejected, refused.reasons) == (0, 1, {"conflicting id": 1})
    assert _snapshot(cfg)["corpus"].equals(before["corpus"]), "a refused conflict changes nothing"

    report = run_update(cfg, path, replace=True)
    assert (report.added, report.replaced, report.generated) == (1, 1, 1)
    now = _assert_consistent(cfg)
    assert len(now["index"]) == len(before["index"]) and len(now["map"]) == len(before["map"])
    corpus = now["corpus"].set_index("id")
    assert corpus.loc[target["id"], "abstract"].endswith("Revised in proof.")
    # one version of the paper's generated texts: the regenerated one
    texts = now["texts"][now["texts"]["id"] == target["id"]]
    assert len(texts) == 1
    manifest = Manifest.load(StepState.load(Path(cfg.run_dir)).outputs("generate")["texts"])
    (shard,) = [key for key in manifest.shards if target["id"] in manifest.claimed(key)]
    assert list(manifest.shards[shard]["units"]) == [target["id"]]
    index = SearchIndex.load(StepState.load(Path(cfg.run_dir)).outputs("index")["index"])
    assert index.papers.set_index("id").loc[target["id"], "title"] == "A replaced title"
    assert index.paper(target["id"])["abstract"].endswith("Revised in proof.")
    assert all(now["map"][p] == xy for p, xy in before["map"].items() if p != target["id"])


class Killed(RuntimeError):
    """Stands in for the process dying after a step's work, before the step is recorded."""


@pytest.mark.slow
def test_killed_after_any_step_the_rerun_finishes_the_same_update_once(built, repo_root):
    cfg, work = built
    before = _snapshot(cfg)
    new = [r for r in _records(repo_root / "examples" / "demo_corpus.jsonl")[:3]]
    path = _jsonl(work / "batch-kill.jsonl", new)

    for step in STEPS:

        def die(name: str, at: str = step) -> None:
            if name == at:
                raise Killed(at)

        with pytest.raises(Killed):
            run_update(cfg, path, on_step=die)
    report = run_update(cfg, path)
    assert (report.added, report.skipped, report.rejected) == (3, 0, 0)

    now = _assert_consistent(cfg)
    assert len(now["corpus"]) == len(before["corpus"]) + 3 and len(now["index"]) == len(before["index"]) + 3
    assert all(now["map"][p] == xy for p, xy in before["map"].items())
    assert set(now["texts"]["id"]) >= {r["id"] for r in new}
    root = Path(StepState.load(Path(cfg.run_dir)).outputs("index")["index"])
    assert versions.current(root).endswith(f"add-{report.key}")
    assert not [p for p in root.iterdir() if p.name.startswith(".")], "no staging leftovers"
    client = Tracker(cfg.tracking).client
    runs = client.search_runs(
        [client.get_run(report.run_id).info.experiment_id], filter_string=f"tags.`semcse.update` = '{report.key}'"
    )
    assert [r.info.run_id for r in runs] == [report.run_id], "one MLflow run, resumed by every rerun"
    assert runs[0].info.status == "FINISHED"


@pytest.mark.slow
def test_retrain_trains_evaluates_registers_and_rebuilds_on_the_grown_corpus(built, repo_root):
    """Last in this file: afterwards the run's model is a new one (the other tests only compare before/after)."""
    cfg, work = built
    before = _snapshot(cfg)
    trained = StepState.load(Path(cfg.run_dir)).steps["train"]["outputs"]
    new = _records(repo_root / "examples" / "demo_corpus.jsonl")[20:22]
    # retrained in this process: where a run trains does not shape its model, and the suite's Ray Train runs are few
    here = cfg.model_copy(update={"training": cfg.training.model_copy(update={"launcher": "local"})})
    report = run_update(here, _jsonl(work / "batch-retrain.jsonl", new), retrain=True)
    state = StepState.load(Path(cfg.run_dir))
    assert report.retrained and report.added == 2 and report.embedded == 0, "a new model embeds everything again"
    assert state.steps["train"]["outputs"]["run_id"] != trained["run_id"]
    assert report.promoted == state.steps["register"]["outputs"]["champion"]
    now = _assert_consistent(cfg)
    assert len(now["index"]) == len(before["index"]) + 2
    assert versions.current(state.outputs("index")["index"]).endswith("-build"), "the index was rebuilt"
    assert versions.current(state.outputs("map")["map"]).endswith("-build"), "the map was laid out again"


def test_an_update_needs_a_built_run_and_its_own_flags(tmp_path, pipeline_config, sample_corpus_path):
    from typer.testing import CliRunner

    from semcse.cli import app

    cfg = load_config(pipeline_config())
    with pytest.raises(ConfigError, match="run `semcse pipeline` first"):
        run_update(cfg, sample_corpus_path)
    runner = CliRunner()
    config = str(tmp_path / "run.yaml")
    lonely = runner.invoke(app, ["pipeline", "--config", config, "--replace"])
    assert lonely.exit_code == 2 and "go with --add" in lonely.output
    sliced = runner.invoke(app, ["pipeline", "--config", config, "--add", str(sample_corpus_path), "--from", "index"])
    assert sliced.exit_code == 2 and "no --from" in sliced.output


def test_an_unfinished_update_must_be_finished_before_another(built_stub):
    cfg, first, second = built_stub

    def die_after_the_merge(step: str) -> None:
        if step == "corpus":
            raise Killed(step)

    with pytest.raises(Killed):
        run_update(cfg, first, on_step=die_after_the_merge)
    with pytest.raises(
        ConfigError, match=r"did not finish; rerun it first with `semcse pipeline --add .*first.jsonl`"
    ):
        run_update(cfg, second)
    finished = run_update(cfg, first)
    assert finished.added == 2 and finished.corpus == 12
    assert run_update(cfg, second).corpus == 14


@pytest.fixture
def built_stub(tmp_path, pipeline_config, sample_records):
    """A run directory whose validate and train steps are recorded (no index, map or texts): enough to refuse."""
    cfg = load_config(pipeline_config())
    state = StepState.load(Path(cfg.run_dir))
    corpus = _canonical(tmp_path / "corpus.jsonl", sample_records[:10])
    frame = read_corpus(corpus)
    accepted = Path(cfg.run_dir) / "corpus" / "accepted.parquet"
    accepted.parent.mkdir(parents=True)
    frame.to_parquet(accepted, index=False)
    state.steps = {"validate": {"outputs": {"corpus": str(accepted)}}, "train": {"outputs": {"model": None}}}
    state.save()
    first = _canonical(tmp_path / "first.jsonl", sample_records[10:12])
    second = _canonical(tmp_path / "second.jsonl", sample_records[12:14])
    return cfg, first, second


def test_the_report_says_its_counts_as_one_line():
    from semcse.orchestration.update import UpdateReport

    counts = {"replaced": 0, "reasons": {}, "corpus": 1, "rejects": ""}
    report = UpdateReport("k", "f", "d", new=3, added=1, skipped=1, rejected=1, **counts)
    assert report.lines()[0] == "new = added + merged + skipped + rejected: 3 = 1 + 0 + 1 + 1"
