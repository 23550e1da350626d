"""`semcse evaluate --suite decoder`: texts + encoder → held-out examples → the paper-style table."""

from __future__ import annotations

import json

import pandas as pd
from semcse.cli import app
from semcse.models.encoder import TextEncoder
from typer.testing import CliRunner

from .conftest import EMBEDDING_DIM


def test_evaluate_decoder_suite(
    tmp_path, trained_decoder, decoder_examples, tiny_encoder_dir, monkeypatch, mlflow_store
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
        "corpus.test_fraction=0.85",
        "--set",
        "corpus.val_fraction=0.1",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "| perplexity |" in result.output
    table = json.loads((tmp_path / "eval" / "decoder" / "decoder" / "decoder.json").read_text())
    assert table["abstracts"] >= 2
    for column in ("matching", "shuffled", "unconditioned"):
        assert table["perplexity"][column] > 1.0
        assert table["similarity"].get(column, 0.0) is None or -1.0 <= table["similarity"][column] <= 1.0


def test_decoder_suite_needs_texts_and_encoder(tmp_path):
    result = CliRunner().invoke(app, ["evaluate", "--suite", "decoder", "--model", str(tmp_path)])
    assert result.exit_code == 2
    assert "decoder.encoder" in result.output and "decoder.texts" in result.output
