"""Embedding through Ray Data: shards in the embeddings contract, reuse on rerun, and clear errors."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import ray.cloudpickle

from semcse.core.config import EvaluationConfig
from semcse.core.data.embeddings import EmbeddingError, read_embeddings
from semcse.stages.embedding import ModelRef, _blocks, _longest_first, embed_sets, pool_size

ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # Ray workers cannot import tests/


class TwoAspectModel:
    """A stand-in multi-aspect model: 'length' and 'vowels' aspects from character counts."""

    aspects = ["length", "vowels"]
    similarity = "cosine"

    def encode(self, texts, aspects):
        length = np.array([[len(t), 1.0, 0.0] for t in texts])
        vowels = np.array([[sum(c in "aeiou" for c in t), 0.0, 1.0] for t in texts])
        return {"length": length, "vowels": vowels}


class NaNModel:
    aspects = [""]
    similarity = "cosine"

    def encode(self, texts):
        out = np.ones((len(texts), 4))
        out[0, 1] = np.nan
        return out


CFG = EvaluationConfig(shard_rows=16, batch_size=8)


def _texts(sample_records, n=40):
    return pd.DataFrame(
        {"id": [r["id"] for r in sample_records[:n]], "text": [r["title"] for r in sample_records[:n]]}
    )


def test_ref_parsing():
    assert ModelRef.parse("/m/all-MiniLM-L6-v2") == ModelRef("all-MiniLM-L6-v2", "/m/all-MiniLM-L6-v2")
    assert ModelRef.parse("bert=/m/bert#cls") == ModelRef("bert", "/m/bert", "cls")
    assert ModelRef.parse("models:/semcse-encoder@champion").name == "semcse-encoder@champion"
    with pytest.raises(EmbeddingError, match="unknown pooling"):
        ModelRef.parse("/m/bert#max")


def test_embeddings_stream_to_contract_shards_and_are_reused(ray_cluster, tiny_encoder_dir, sample_records, tmp_path):
    texts = _texts(sample_records)
    spec = ModelRef.parse(f"tiny={tiny_encoder_dir}")
    [embedded] = embed_sets([spec], {"titles": texts}, tmp_path, CFG, show_progress=False)
    parts = sorted((Path(embedded.directory) / "titles").glob("part-*.parquet"))
    assert len(parts) == 3  # 40 rows in shards of 16
    table = pq.read_table(parts[0])
    assert table.schema.names == ["id", "aspect", "vector"]
    assert table.schema.field("vector").type.list_size == 32
    first = embedded.vectors("titles", list(reversed(texts["id"])))[""]
    assert first.shape == (40, 32) and np.isfinite(first).all()
    # a rerun finds every shard done (their mtimes do not change) and returns identical vectors
    before = [p.stat().st_mtime_ns for p in parts]
    [again] = embed_sets([spec], {"titles": texts}, tmp_path, CFG, show_progress=False)
    assert [p.stat().st_mtime_ns for p in parts] == before
    assert np.array_equal(again.vectors("titles", list(reversed(texts["id"])))[""], first)
    # shards belong to the model's files, not its display name: the pipeline's index reuses the suites' `trained`
    [renamed] = embed_sets([ModelRef("the index's model", spec.ref)], {"titles": texts}, tmp_path, CFG)
    assert renamed.directory == embedded.directory and [p.stat().st_mtime_ns for p in parts] == before
    # the vectors are the model's own, in the caller's id order
    from semcse.models.encoder import TextEncoder

    direct = TextEncoder.load(tiny_encoder_dir).encode(list(reversed(texts["text"])))
    assert np.allclose(first, direct, atol=1e-5)


def test_a_saved_pooling_and_an_asked_one_never_share_vectors(ray_cluster, tiny_encoder_dir, sample_records, tmp_path):
    """A sentence-transformers folder embeds with its saved pooling whatever `evaluation.pooling` says: `REF` (saved
    CLS) and `REF#mean` are two models, in one call and in two, each in a folder of one vector per text."""
    from semcse.models.encoder import TextEncoder

    texts = _texts(sample_records, 20)
    saved_cls = TextEncoder.load(tiny_encoder_dir, pooling="cls").save(tmp_path / "cls-model")
    own, mean = ModelRef("own", str(saved_cls)), ModelRef("mean", str(saved_cls), "mean")
    stored = tmp_path / "store"
    embedded = embed_sets([own, mean], {"titles": texts}, stored, CFG, show_progress=False)
    by_cls, by_mean = (model.vectors("titles", texts["id"])[""] for model in embedded)
    assert np.allclose(by_cls, TextEncoder.load(saved_cls).encode(list(texts["text"])), atol=1e-5)
    assert np.allclose(by_mean, TextEncoder.load(saved_cls, pooling="mean").encode(list(texts["text"])), atol=1e-5)
    assert embedded[0].directory != embedded[1].directory
    for model in embedded:  # what `semcse map layout --embeddings DIR` reads: every shard of the folder, no id twice
        assert read_embeddings(Path(model.directory) / "titles", list(texts["id"]))[""].shape == (len(texts), 32)


def test_multi_aspect_models_store_one_row_per_aspect(ray_cluster, sample_records, tmp_path):
    texts = _texts(sample_records, 10)
    [embedded] = embed_sets([ModelRef("two", TwoAspectModel())], {"t": texts}, tmp_path, CFG, show_progress=False)
    assert embedded.aspects == ["length", "vowels"]
    vectors = embedded.vectors("t", texts["id"])
    assert vectors["length"][:, 0].tolist() == [len(t) for t in texts["text"]]
    assert vectors["vowels"][:, 2].tolist() == [1.0] * 10


def test_errors_name_the_problem(ray_cluster, sample_records, tmp_path):
    texts = _texts(sample_records, 5)
    [embedded] = embed_sets([ModelRef("nan", NaNModel())], {"t": texts}, tmp_path, CFG, show_progress=False)
    with pytest.raises(EmbeddingError, match="NaN"):
        embedded.vectors("t", texts["id"])
    [good] = embed_sets([ModelRef("two", TwoAspectModel())], {"t": texts}, tmp_path, CFG, show_progress=False)
    with pytest.raises(EmbeddingError, match="mismatched ids: 1 of 2"):
        read_embeddings(Path(good.directory) / "t", ["demo-001", "nope"], ["length"])
    with pytest.raises(EmbeddingError, match="duplicate ids"):
        embed_sets([ModelRef("two", TwoAspectModel())], {"t": pd.concat([texts, texts])}, tmp_path, CFG)


class ProcessModel:
    """Each vector is the id of the process that embedded it; a pause per batch lets the second actor start."""

    aspects = [""]
    similarity = "cosine"

    def encode(self, texts):
        import os
        import time

        time.sleep(0.5)
        return np.array([[float(os.getpid()), 1.0] for _ in texts])


def test_one_pool_embeds_every_model_over_an_actor_per_cluster_cpu(ray_cluster, tmp_path):
    cfg = EvaluationConfig(batch_size=64)
    assert 1 <= pool_size(cfg, 10_000) <= 4  # the session's cluster has 4 CPUs, a few of them may be busy
    assert pool_size(cfg, 300) == 1  # too few texts to pay for a second process and model load
    assert pool_size(EvaluationConfig(actors=2), 10_000) == 2
    assert pool_size(EvaluationConfig(cpus_per_actor=0.5), 10_000) == pool_size(cfg, 10_000)  # a whole core each
    # a shard per model, cut into blocks of 192, 192, 192 and 24 rows: the last block of one model and the first of
    # the next make one batch, whose vectors differ in width
    texts = pd.DataFrame({"id": [f"t{i}" for i in range(600)], "text": [f"text {'a' * (i % 7)}" for i in range(600)]})
    pid, two = ModelRef("pid", ProcessModel()), ModelRef("two", TwoAspectModel())
    cfg = EvaluationConfig(batch_size=64, actors=2)
    by_pid, by_two = embed_sets([pid, two], {"t": texts}, tmp_path, cfg, show_progress=False)
    assert (by_pid.spec, by_two.spec) == (pid, two) and by_two.aspects == ["length", "vowels"]
    assert len(set(by_pid.vectors("t", texts["id"])[""][:, 0])) == 2  # both actors took part of the shard
    assert by_two.vectors("t", texts["id"])["length"][:, 0].tolist() == [len(t) for t in texts["text"]]


def test_shards_are_sorted_longest_first_and_cut_only_when_too_few():
    chunk = pd.DataFrame({"id": list("abcde"), "text": ["xx", "xxxxx", "x", "xxxx", "xxx"]})
    shard = _longest_first(1, "k", chunk)
    assert shard["id"].tolist() == ["b", "d", "e", "a", "c"] and (shard["shard"] == "k").all()
    assert (shard["model"] == 1).all()
    assert len(_blocks([shard] * 8, 8, 2)) == 8  # enough shards: one block each
    pieces = _blocks([shard], 3, 2)  # one shard for 3 wanted blocks: pieces of whole batches
    assert [piece["id"].tolist() for piece in pieces] == [["b", "d"], ["e", "a"], ["c"]]
