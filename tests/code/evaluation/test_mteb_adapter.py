"""MTEB runs a platform model through the adapter, on a local task, with no hub."""

from __future__ import annotations

import mteb
import numpy as np
import pytest

from semcse.models.encoder import TextEncoder
from semcse.stages.evaluation.mteb_adapter import PlatformEncoder, local_clustering_task


@pytest.fixture(scope="module")
def minilm(minilm_dir):
    return TextEncoder.load(minilm_dir)


def test_adapter_returns_the_platform_vectors(minilm):
    adapter = PlatformEncoder(minilm, "minilm")
    batches = [{"text": ["alpha beta", "gamma"]}, {"text": ["delta"]}]
    vectors = adapter.encode(batches, task_metadata=None, hf_split="test", hf_subset="default")
    np.testing.assert_allclose(vectors, minilm.encode(["alpha beta", "gamma", "delta"]), atol=1e-6)
    assert adapter.mteb_model_meta.embed_dim == 384


def test_local_clustering_task_scores_the_sample_corpus(minilm, sample_corpus_path):
    task = local_clustering_task(sample_corpus_path, "topic", name="SampleTopics")
    result = mteb.evaluate(PlatformEncoder(minilm, "minilm"), task, cache=None, show_progress_bar=False)
    (task_result,) = result.task_results
    assert task_result.task_name == "SampleTopics"
    assert 0.6 < task_result.get_score() <= 1.0


def test_adapter_and_task_errors(minilm, sample_corpus_path):
    with pytest.raises(ValueError, match="aspect 'species' not in"):
        PlatformEncoder(minilm, aspect="species")
    task = local_clustering_task(sample_corpus_path, "no_such_label")
    with pytest.raises(ValueError, match="no label column 'no_such_label'"):
        task.load_data()
