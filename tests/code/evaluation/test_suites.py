"""Suites end to end on the 40-abstract sample corpus: the CLI, reports, plots, MLflow, and errors."""

from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np
import pandas as pd
import pytest
import ray.cloudpickle
from typer.testing import CliRunner

from semcse.cli import app
from semcse.core.config import load_config
from semcse.stages.embedding import ModelRef
from semcse.stages.evaluation import aspects

ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # Ray workers cannot import tests/


def _tracking_flags(tracking) -> list[str]:
    return [
        "--set",
        f"tracking.tracking_uri={tracking.tracking_uri}",
        "--set",
        f"tracking.artifact_location={tracking.artifact_location}",
        "--set",
        f"tracking.experiment={tracking.experiment}",
    ]


def test_semantic_and_knn_through_the_cli(ray_cluster, tiny_encoder_dir, sample_corpus_path, tracking, tmp_path):
    out = tmp_path / "eval"
    args = ["evaluate", "--suite", "semantic", "--suite", "knn", "--data", str(sample_corpus_path), "--out", str(out)]
    args += ["--model", f"tiny={tiny_encoder_dir}", "--model", f"tiny-cls={tiny_encoder_dir}#cls"]
    args += ["--set", "evaluation.label_col=topic", "--set", "evaluation.query_col=title"]
    args += ["--set", "corpus.test_fraction=0.3", "--set", "evaluation.tsne_points=40"]
    result = CliRunner().invoke(app, args + _tracking_flags(tracking))
    assert result.exit_code == 0, result.output
    assert "| model | title_abstract" in result.output and "tiny-cls" in result.output

    semantic = pd.read_csv(out / "semantic" / "semantic.csv", index_col="model")
    assert list(semantic.index) == ["tiny", "tiny-cls"]
    tasks = ["title_abstract", "half_half", "query_paper", "clustering", "overall", "improvement"]
    assert list(semantic.columns) == [c for t in tasks for c in (t, f"{t}_ci_low", f"{t}_ci_high")]
    test_papers = int(result.output.split("test split: ")[1].split(" of")[0])
    assert 5 <= test_papers < 40  # 30% of the 40 abstracts, give or take the hash
    for task in ("title_abstract", "half_half", "query_paper"):
        # ranks within the test pool only: at most the number of test papers
        assert semantic[task].between(1, test_papers).all()
        assert (semantic[f"{task}_ci_low"] <= semantic[task]).all() and (
            semantic[task] <= semantic[f"{task}_ci_high"]
        ).all()
    # two models: the better one scores 1 on a task, the other 0 (median = their mean), so overall is in [0, 1]
    assert semantic["overall"].between(0, 1).all() and semantic["overall"].max() > 0
    knn = pd.read_csv(out / "knn" / "knn.csv", index_col="model")
    figures = ["knn_accuracy", "label_agreement", "v_measure", "anisotropy"]
    assert list(knn.columns) == [c for f in figures for c in (f, f"{f}_ci_low", f"{f}_ci_high")]
    assert knn[["anisotropy_ci_low", "anisotropy_ci_high"]].isna().all().all()  # no interval, on purpose
    values = knn.drop(columns=["anisotropy_ci_low", "anisotropy_ci_high"]).to_numpy()
    assert values.min() >= 0 and values.max() <= 1
    markdown = (out / "knn" / "knn.md").read_text()
    assert f"| tiny | {knn.loc['tiny', 'knn_accuracy']:.3f} [{knn.loc['tiny', 'knn_accuracy_ci_low']:.3f}," in markdown
    assert "95% bootstrap interval over query papers" in markdown
    assert "| tiny-cls − tiny | " in markdown and "paired differences" in result.output
    # the knn suite reused the semantic suite's paper embeddings: one shard directory per model holds both
    assert (out / "semantic" / "semantic.md").read_text().startswith("## semantic")
    for suite in ("semantic", "knn"):
        assert (out / suite / "pca_variance.png").stat().st_size > 0
        assert (out / suite / "tsne_tiny-cls.png").stat().st_size > 0

    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=tracking.tracking_uri)
    run = client.search_runs([client.get_experiment_by_name(tracking.experiment).experiment_id])[0]
    assert run.data.metrics["knn/tiny/knn_accuracy"] == pytest.approx(knn.loc["tiny", "knn_accuracy"])
    assert run.data.metrics["semantic/tiny-cls/overall"] == pytest.approx(semantic.loc["tiny-cls", "overall"])
    assert run.data.metrics["knn/tiny/knn_accuracy_ci_high"] == pytest.approx(knn.loc["tiny", "knn_accuracy_ci_high"])


PLANTED = "PLANTED TRAINING ABSTRACT"


class RefusesPlanted:
    """A bag-of-characters encoder that fails the run if it is ever asked to embed the planted text."""

    similarity = "cosine"

    def encode(self, texts):
        if any(PLANTED in text for text in texts):
            raise AssertionError("the suite embedded a training-split abstract")
        return np.array([[text.count(c) + 1.0 for c in "aeiostnrl"] for text in texts])


def test_semantic_suite_never_sees_a_training_abstract(ray_cluster, sample_records, tmp_path):
    from semcse.core.data.io import write_parquet
    from semcse.core.data.split import split_of
    from semcse.stages.evaluation import semantic

    cfg = load_config(overrides=["tracking.enabled=false", "corpus.test_fraction=0.3", "evaluation.bootstrap=50"])
    frame = pd.DataFrame(sample_records)[["id", "title", "abstract"]]
    c = cfg.corpus
    training = [i for i in frame["id"] if split_of(i, c.val_fraction, c.test_fraction, c.split_seed) == "train"]
    planted = frame["id"] == training[0]
    frame.loc[planted, "abstract"] = f"{PLANTED}. " + frame.loc[planted, "abstract"]
    frame.loc[planted, "title"] = PLANTED
    data = write_parquet(frame, tmp_path / "corpus.parquet")
    queries = pd.DataFrame(
        {
            "id": frame["id"],
            "kind": "query",
            "prompt_id": "query",
            "sample": 0,
            "text": [PLANTED if p else f"query about {t}" for p, t in zip(planted, frame["title"])],
        }
    )
    queries.to_parquet(tmp_path / "queries.parquet")
    cfg = cfg.model_copy(
        update={"evaluation": cfg.evaluation.model_copy(update={"texts": str(tmp_path / "queries.parquet")})}
    )
    result = semantic.run([ModelRef("refuses", RefusesPlanted())], data, cfg, tmp_path / "out")
    assert "query_paper" in result.table.columns, "generated queries of the test papers are used, the others not"
    tested = sum(split_of(i, c.val_fraction, c.test_fraction, c.split_seed) == "test" for i in frame["id"])
    assert any(f"test split: {tested} of 40 rows" in note for note in result.notes)
    assert 1 <= result.table.loc["refuses", "title_abstract"] <= tested
    # the same suite on the whole file (separate evaluation data) does embed it: the guard above can fail
    everything = cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update={"split": "all"})})
    with pytest.raises(Exception, match="training-split abstract"):
        semantic.run([ModelRef("refuses", RefusesPlanted())], data, everything, tmp_path / "out-all")


class Characters:
    """A bag-of-characters encoder: a real geometry that knows nothing of the labels."""

    similarity = "cosine"

    def encode(self, texts):
        return np.array([[text.count(c) + 1.0 for c in "aeiostnrlcdhmu"] for text in texts])


def test_v_measure_clusters_held_out_papers_only(ray_cluster, sample_records, tmp_path):
    """Relabelling every non-test paper changes what kNN reads (its references) and nothing V-measure reads; and
    V-measure's interval holds its figure, which a bootstrap of a dozen papers would otherwise sit above."""
    from semcse.core.data.io import write_parquet
    from semcse.stages.evaluation import knn
    from semcse.stages.evaluation.inputs import query_rows

    cfg = load_config(overrides=["tracking.enabled=false", "corpus.test_fraction=0.3", "evaluation.label_col=topic"])
    frame = pd.DataFrame(sample_records)[["id", "title", "abstract", "topic"]]
    test, _ = query_rows(frame, cfg)
    relabelled = frame.assign(topic=frame["topic"].where(test, "relabelled"))
    original, changed = (
        knn.run([ModelRef("chars", Characters())], write_parquet(corpus, tmp_path / f"{name}.parquet"), cfg, tmp_path)
        for name, corpus in (("original", frame), ("relabelled", relabelled))
    )
    assert f"V-measure clusters {int(test.sum())} papers into" in " ".join(original.notes)
    original, changed = (pd.concat([r.table, r.intervals], axis=1).loc["chars"] for r in (original, changed))
    assert changed["knn_accuracy"] == 0.0 < original["knn_accuracy"], "the references' labels were read"
    for column in ("v_measure", "v_measure_ci_low", "v_measure_ci_high"):
        assert changed[column] == original[column], column
    assert original["v_measure_ci_low"] <= original["v_measure"] <= original["v_measure_ci_high"]
    # separate evaluation data (`evaluation.split=all`), which no model trained on, is clustered whole
    everything = cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update={"split": "all"})})
    whole = knn.run([ModelRef("chars", Characters())], tmp_path / "original.parquet", everything, tmp_path)
    assert f"V-measure clusters {len(frame)} papers into" in " ".join(whole.notes)


def test_cli_errors_are_one_clear_line(sample_corpus_path, tmp_path):
    runner = CliRunner()
    base = ["evaluate", "--data", str(sample_corpus_path), "--out", str(tmp_path), "--set", "tracking.enabled=false"]
    result = runner.invoke(app, [*base, "--suite", "knn", "--model", "x=/nowhere"])
    assert result.exit_code == 2 and "missing labels" in result.output
    result = runner.invoke(app, [*base, "--suite", "knn"])
    assert result.exit_code == 2 and "no models" in result.output


class TopicOracle:
    """A two-aspect stand-in model: 'topic' is the one-hot topic of the abstract a text comes from, 'noise' is not."""

    aspects = ["topic", "noise"]
    similarity = "cosine"

    def __init__(self, records):
        self.records = [
            (
                r["abstract"],
                ["invasion_biology", "cardiology", "machine_learning", "materials_science"].index(r["topic"]),
            )
            for r in records
        ]

    def encode(self, texts, aspects):
        topic = np.zeros((len(texts), 4))
        noise = np.zeros((len(texts), 4))
        for i, text in enumerate(texts):
            topic[i, next(t for abstract, t in self.records if text in abstract)] = 1
            seed = int(hashlib.md5(text.encode()).hexdigest()[:8], 16)
            noise[i] = np.random.default_rng(seed).normal(size=4)
        return {"topic": topic, "noise": noise}


def _pairwise_dir(records, directory):
    """A pairwise/-format ground truth: judged 'topic' similarity 3 within a topic, 1 across."""
    from semcse.core.data.sentences import split_sentences

    directory.mkdir()
    samples = {
        r["id"]: {"abstract": r["abstract"], "meta": {"sample_sentences": split_sentences(r["abstract"])[:2]}}
        for r in records
    }
    (directory / "tiny_topic_samples.json").write_text(json.dumps(samples))
    lines = [
        json.dumps({"a": a["id"], "b": b["id"], "score": 3 if a["topic"] == b["topic"] else 1})
        for i, a in enumerate(records)
        for b in records[i + 1 :]
    ]
    (directory / "tiny_topic_pairs.jsonl").write_text("\n".join(lines))
    return directory


def test_aspects_suite_on_pairwise_files(ray_cluster, tiny_encoder_dir, sample_records, tmp_path):
    data = _pairwise_dir(sample_records, tmp_path / "pairwise")
    cfg = load_config(overrides=["tracking.enabled=false", "evaluation.judged_aspects.tiny_topic=topic"])
    models = [ModelRef("oracle", TopicOracle(sample_records)), ModelRef.parse(f"tiny={tiny_encoder_dir}")]
    result = aspects.run(models, data, cfg, tmp_path / "out")
    oracle = result.table.loc["oracle"]
    # topic head vs topic judgements: identical within/across pattern in every row -> Spearman 1
    assert oracle["spearman:topic"] == pytest.approx(1.0)
    matrix = result.details["correlation_oracle"]
    assert list(matrix.index) == ["topic", "noise", "combined"]
    assert matrix.loc["combined", "topic"] == matrix.loc["topic", "topic"] > matrix.loc["noise", "topic"]
    # top-10: the 9 same-topic partners are sure hits; the 10th judged slot is shared by 30 tied items,
    # and the 10th retrieved item is one of them -> (9 + 1/30) / 10
    assert oracle["top10:topic"] == pytest.approx((9 + 1 / 30) / 10)
    # summary retrieval: all 10 same-topic second sentences tie with the true one -> pessimistic rank 10
    assert oracle["mrr:topic"] == pytest.approx(0.1)
    assert 0 < oracle["mrr_others:topic"] <= 1
    tiny = result.table.loc["tiny"]
    assert -1 <= tiny["spearman:topic"] <= 1 and "mrr_others:topic" not in tiny.dropna()
    assert list(result.details["correlation_tiny"].index) == ["embedding", "combined"]


def test_aspects_errors_on_unknown_judged_ids(sample_records, tmp_path):
    data = _pairwise_dir(sample_records[:5], tmp_path / "pairwise")
    with (data / "tiny_topic_pairs.jsonl").open("a") as handle:
        handle.write("\n" + json.dumps({"a": "demo-001", "b": "ghost", "score": 2}))
    cfg = load_config(overrides=["evaluation.judged_aspects.tiny_topic=topic"])
    with pytest.raises(ValueError, match="mismatched ids: 1 judged id"):
        aspects.run([ModelRef("x", object())], data, cfg, tmp_path / "out")


def test_the_judged_aspect_is_named_or_refused_never_guessed(sample_records, tmp_path):
    from semcse.stages.evaluation.inputs import EvaluationDataError, read_pairwise

    data = _pairwise_dir(sample_records[:5], tmp_path / "pairwise")
    # the file name alone (tiny_topic) names nothing: the old reading took its last `_` part
    with pytest.raises(EvaluationDataError, match="which aspect do these judgements rate.*tiny_topic_meta.json"):
        read_pairwise(data)
    assert set(read_pairwise(data, {"tiny_topic": "topic"})[1]["aspect"]) == {"topic"}
    # a metadata file names a multi-word aspect the file name would have cut to "group"
    (data / "tiny_topic_meta.json").write_text(json.dumps({"aspect": "patient_group"}))
    _, judged, summaries = read_pairwise(data / "tiny_topic_pairs.jsonl")
    assert set(judged["aspect"]) == {"patient_group"} and set(summaries["kind"]) == {"aspect:patient_group"}
    (data / "tiny_topic_meta.json").write_text(json.dumps({"aspect": ""}))
    with pytest.raises(EvaluationDataError, match="non-empty 'aspect'"):
        read_pairwise(data)


def test_a_multi_aspect_model_without_the_judged_aspect_is_refused(sample_records, tmp_path):
    data = _pairwise_dir(sample_records, tmp_path / "pairwise")
    cfg = load_config(overrides=["tracking.enabled=false", "evaluation.judged_aspects.tiny_topic=subject"])
    with pytest.raises(ValueError, match="model 'oracle' has no aspect 'subject'.*'noise', 'topic'"):
        aspects.run([ModelRef("oracle", TopicOracle(sample_records))], data, cfg, tmp_path / "out")


def test_judged_and_summary_aspects_fold_like_training():
    judgements = pd.DataFrame({"a": ["1"], "b": ["2"], "aspect": ["hypothesis_general"], "score": [3]})
    summaries = pd.DataFrame(
        {"id": ["1", "1"], "kind": ["aspect:hypothesis_specific", "aspect:species"], "text": ["x", "y"]}
    )
    merge = load_config().multi.merge
    judged, folded = aspects.fold_aspects(judgements, summaries, merge)
    assert judged["aspect"].tolist() == ["hypothesis"]
    assert folded["kind"].tolist() == ["aspect:hypothesis", "aspect:species"]


def test_aspects_suite_on_a_corpus_scores_judged_test_abstracts_only(ray_cluster, sample_records, tmp_path):
    """Judgements and summaries reaching a training abstract are left out (and counted); it is never embedded."""
    from semcse.core.data.generated import write_generated
    from semcse.core.data.io import write_parquet
    from semcse.core.data.split import split_of

    cfg = load_config(overrides=["tracking.enabled=false", "corpus.test_fraction=0.4", "evaluation.bootstrap=50"])
    frame = pd.DataFrame(sample_records)[["id", "title", "abstract", "topic"]]
    c = cfg.corpus
    split = {i: split_of(i, c.val_fraction, c.test_fraction, c.split_seed) for i in frame["id"]}
    test = [i for i in frame["id"] if split[i] == "test"]
    planted = next(i for i in frame["id"] if split[i] == "train")
    frame.loc[frame["id"] == planted, "abstract"] = f"{PLANTED}. " + frame.loc[frame["id"] == planted, "abstract"]
    data = write_parquet(frame.drop(columns="topic"), tmp_path / "corpus.parquet")
    topic = dict(zip(frame["id"], frame["topic"]))
    pairs = [(a, b) for n, a in enumerate(test) for b in test[n + 1 :]] + [(test[0], planted), (planted, test[1])]
    judged = pd.DataFrame(
        {
            "a": [a for a, _ in pairs],
            "b": [b for _, b in pairs],
            "aspect": "topic",
            "score": [3 if topic[a] == topic[b] else 1 for a, b in pairs],
        }
    )
    write_generated(tmp_path / "judgements", judged, {"task": "judgements"}, unit_column="a")
    summaries = pd.DataFrame(
        {
            "id": [i for i in frame["id"] for _ in range(2)],
            "kind": "aspect:topic",
            "prompt_id": "topic",
            "sample": [0, 1] * len(frame),
            "text": [f"{PLANTED if i == planted else 'a summary of'} {i} {n}" for i in frame["id"] for n in range(2)],
            "applicable": True,
        }
    )
    write_generated(tmp_path / "texts", summaries, {"task": "aspects"})
    evaluation = {"judgements": str(tmp_path / "judgements"), "texts": str(tmp_path / "texts")}
    cfg = cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update=evaluation)})

    result = aspects.run([ModelRef("refuses", RefusesPlanted())], data, cfg, tmp_path / "out")
    assert -1 <= result.table.loc["refuses", "spearman:topic"] <= 1 and "mrr:topic" in result.table.columns
    assert any(f"test split: {len(test)} of 40 rows" in note for note in result.notes)
    assert any(note.startswith(f"2 of {len(pairs)} judgements left out") for note in result.notes)
    assert any(f"{len(test)} judged abstracts" in note for note in result.notes)
    # the same suite on the whole file (separate evaluation data) does embed it: the guard above can fail
    everything = cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update={"split": "all"})})
    with pytest.raises(Exception, match="training-split abstract"):
        aspects.run([ModelRef("refuses", RefusesPlanted())], data, everything, tmp_path / "out-all")


PEAK_RSS = """
import json, resource, sys
from semcse.core.config import load_config
from semcse.stages.embedding import ModelRef
from semcse.stages.evaluation import aspects
corpus, judgements, texts, model, out = sys.argv[1:]
cfg = load_config(overrides=["tracking.enabled=false", "evaluation.bootstrap=200", "evaluation.plots=false",
                             f"evaluation.judgements={judgements}", f"evaluation.texts={texts}"])
import torch, transformers  # what the suite imports lazily, and the driver's connection, are counted before
from semcse.core.runtime import init_ray
init_ray()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
result = aspects.run([ModelRef.parse(f"tiny={model}")], corpus, cfg, out)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
print(json.dumps({"grown": grown, "spearman": result.table.loc["tiny", "spearman:topic"], "notes": result.notes}))
"""


@pytest.mark.slow
def test_aspects_suite_on_10k_abstracts_grows_the_process_by_under_256_mib(ray_cluster, tiny_encoder_dir, tmp_path):
    """The old suite built [n, n] float64 matrices over the whole corpus: 763 MiB each at these 10k abstracts. What the
    suite adds to the process's peak, beyond its imports and Ray's connection, must stay under a third of one (at
    4,000 rows the old suite's peak was 0.32 GiB above this one's: docs/BENCHMARKS.md)."""
    import subprocess

    import ray

    from tests.fixtures.evaluation import write_judged_corpus
    from tests.paths import REPO

    data = write_judged_corpus(tmp_path / "data", rows=10_000)
    env = {**os.environ, "RAY_ADDRESS": ray.get_runtime_context().gcs_address, "PYTHONPATH": str(REPO)}
    args = [str(data.corpus), str(data.judgements), str(data.texts), str(tiny_encoder_dir), str(tmp_path / "out")]
    done = subprocess.run([sys.executable, "-c", PEAK_RSS, *args], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["grown"] < 256 * 1024**2, f"the suite grew the process by {figures['grown'] / 1024**2:.0f} MiB"
    assert any(f"{len(data.test_ids)} judged abstracts" in note for note in figures["notes"]), figures["notes"]
    assert -1 <= figures["spearman"] <= 1
