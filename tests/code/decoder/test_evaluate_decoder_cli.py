"""`semcse evaluate --suite decoder`: texts + encoder → held-out examples → the paper-style table."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from semcse.cli import app
from semcse.models.encoder import TextEncoder
from tests.fixtures.decoder import EMBEDDING_DIM

pytestmark = pytest.mark.usefixtures("single_threaded_torch")


def test_evaluate_decoder_suite(
    tmp_path, trained_decoder, decoder_examples, tiny_encoder_dir, sample_corpus_path, monkeypatch, mlflow_store
):
    decoder, _ = trained_decoder
    decoder.save(tmp_path / "decoder")
    encoder = TextEncoder.load(tiny_encoder_dir, projection_dim=EMBEDDING_DIM)
    encoder.save(tmp_path / "encoder")
    rows = [
        {
            "id": key,
            "kind": "summary",
            "prompt_id": "p0",
            "sample": n,
            "text": text,
            "applicable": True,
            "model": "m",
            "engine": "transformers",
        }
        for key, group in zip(decoder_examples.ids, decoder_examples.summaries)
        for n, text in enumerate(group)
    ]
    pd.DataFrame(rows).to_parquet(tmp_path / "texts.parquet")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{mlflow_store / 'mlflow.db'}")
    args = [
        "evaluate",
        "--suite",
        "decoder",
        "--model",
        str(tmp_path / "decoder"),
        "--out",
        str(tmp_path / "eval"),
        "--set",
        f"decoder.texts={tmp_path / 'texts.parquet'}",
        "--set",
        f"decoder.encoder={tmp_path / 'encoder'}",
        "--set",
        "decoder.max_new_tokens=8",
        "--set",
        f"corpus.path={sample_corpus_path}",
        "--set",
        f"decoder.bertscore_model={tiny_encoder_dir}",
        "--set",
        "decoder.bertscore_layers=1",
        "--set",
        "decoder.reconstructed=true",
        "--set",
        "map.iterations=50",
        "--set",
        "corpus.test_fraction=0.85",
        "--set",
        "corpus.val_fraction=0.1",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "| perplexity |" in result.output
    table = json.loads((tmp_path / "eval" / "decoder" / "decoder" / "decoder.json").read_text())
    assert table["abstracts"] >= 5
    assert "embeddings predicted from the abstracts" in table["notes"][0]
    for column in ("matching", "reconstructed", "shuffled", "unconditioned"):
        assert table["perplexity"][column] > 1.0
    for column in ("matching", "reconstructed", "shuffled"):
        assert 0.0 < table["bertscore"][column] <= 1.0
    assert table["bertscore"]["unconditioned"] is None


def test_decoder_suite_predicts_from_the_abstract_not_from_its_summaries(tmp_path, sample_corpus_path):
    """The conditioning embedding comes from `decoder.predictor` applied to the abstract's own text."""
    from semcse.config import load_config
    from semcse.evaluation.decoder_eval import held_out_examples

    rows = [
        {"id": "demo-001", "kind": "summary", "text": "one summary"},
        {"id": "demo-002", "kind": "summary", "text": "x"},
    ]
    pd.DataFrame(rows).to_parquet(tmp_path / "texts.parquet")
    cfg = load_config(
        overrides=[
            f"decoder.texts={tmp_path / 'texts.parquet'}",
            f"corpus.path={sample_corpus_path}",
            "corpus.test_fraction=0.9",
            "corpus.val_fraction=0.05",
            f"decoder.predictor={tmp_path / 'nowhere'}",
        ]
    )
    with pytest.raises(Exception, match="nowhere"):
        held_out_examples(cfg, "summary")
    without_corpus = cfg.model_copy(update={"corpus": cfg.corpus.model_copy(update={"path": None})})
    with pytest.raises(ValueError, match="set corpus.path"):
        held_out_examples(without_corpus, "summary")


def test_decoder_suite_needs_texts_and_encoder(tmp_path):
    result = CliRunner().invoke(app, ["evaluate", "--suite", "decoder", "--model", str(tmp_path)])
    assert result.exit_code == 2
    assert "decoder.encoder" in result.output and "decoder.texts" in result.output
