"""Fixtures for training tests: synthetic generated texts with real signal, and small run configs.

Each "summary" of an abstract is two of its consecutive sentences (no prompt prefix: a prefix shared
by every summary is what a random [CLS] vector latches onto, and it carries no signal), so
summaries of one abstract share content (neighbouring summaries overlap by a sentence, like
overlapping crops) while summaries of different abstracts don't: a model that learns to match
them improves the validation ranks, as with real LLM summaries.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from semcse.config import RunConfig, load_config
from semcse.data.schema import TEXTS_SCHEMA
from semcse.data.sentences import split_sentences

ASPECT = "methods"


def synthetic_texts(records: list[dict]) -> list[dict]:
    """Four summaries per abstract; `aspect:methods` applicable (3 samples) for 3 of every 4 abstracts."""
    rows = []
    for number, record in enumerate(records):
        sentences = split_sentences(record["abstract"])
        n = len(sentences)
        picks = [f"{sentences[k % n]} {sentences[(k + 1) % n]}" for k in range(4)]
        for sample, text in enumerate(picks):
            rows.append(_row(record["id"], "summary", f"p{sample % 2}", sample, text))
        for sample in range(3):
            applicable = number % 4 != 0
            text = f"{sentences[(2 + sample) % n]} {sentences[(3 + sample) % n]}" if applicable else "Not applicable."
            rows.append(_row(record["id"], f"aspect:{ASPECT}", "methods", sample, text, applicable))
    return rows


def _row(row_id: str, kind: str, prompt_id: str, sample: int, text: str, applicable: bool = True) -> dict:
    return {
        "id": row_id,
        "kind": kind,
        "prompt_id": prompt_id,
        "sample": sample,
        "text": text,
        "applicable": applicable,
        "model": "synthetic",
        "engine": "test",
    }


@pytest.fixture(scope="session")
def texts_dir(tmp_path_factory: pytest.TempPathFactory, sample_records: list[dict]) -> Path:
    """A generated-texts directory (DESIGN texts contract) built from the sample corpus."""
    from semcse.data.generated import write_generated

    out = tmp_path_factory.mktemp("texts")
    table = pa.Table.from_pylist(synthetic_texts(sample_records), schema=TEXTS_SCHEMA)
    write_generated(out, table.to_pandas(), {"task": "summaries", "model": "synthetic"})
    return out


@pytest.fixture
def make_config(tmp_path: Path, tiny_encoder_dir: Path, sample_corpus_path: Path, texts_dir: Path, tracking):
    """A small 2-worker ZeRO-2 run on the tiny encoder; keyword overrides use `--set` syntax keys."""

    def make(**overrides: object) -> RunConfig:
        values = {
            "run_dir": str(tmp_path / "run"),
            "corpus.path": str(sample_corpus_path),
            "corpus.val_fraction": 0.3,
            "corpus.test_fraction": 0.0,
            "training.base_model": str(tiny_encoder_dir),
            "training.texts": str(texts_dir),
            "training.out": str(tmp_path / "encoder"),
            "training.batch_size": 8,
            "training.num_workers": 2,
            "training.zero_stage": 2,
            "training.learning_rate": 1e-3,
            "training.max_steps": 30,
            "training.eval_every": 10,
            "training.log_every": 5,
            "training.patience": 10,
            "training.max_length": 64,
            "tracking.tracking_uri": tracking.tracking_uri,
            "tracking.artifact_location": tracking.artifact_location,
            "tracking.experiment": tracking.experiment,
        } | overrides
        return load_config(None, [f"{key}={value}" for key, value in values.items()])

    return make
