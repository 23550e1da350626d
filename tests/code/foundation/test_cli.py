"""The `semcse` front door: real subprocesses for the console script, CliRunner for the rest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semcse.cli import app
from tests.paths import mlflow_uri

runner = CliRunner()


@pytest.fixture
def in_tmp(tmp_path, monkeypatch, mlflow_store):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", mlflow_uri(mlflow_store))
    return tmp_path


def test_console_script_help_lists_every_stage():
    exe = Path(sys.executable).parent / "semcse"
    result = subprocess.run([str(exe), "--help"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    for stage in ("corpus", "generate", "train", "distill", "train-decoder", "evaluate", "tune", "serve", "pipeline"):
        assert stage in result.stdout


def test_validate_writes_outputs_and_logs_to_mlflow(in_tmp, sample_corpus_path):
    result = runner.invoke(app, ["corpus", "validate", str(sample_corpus_path), "--out", "out"])
    assert result.exit_code == 0, result.output
    assert "40 = 40 + 0" in result.output
    report = json.loads((in_tmp / "out" / "report.json").read_text())
    assert report["accepted"] == 40 and (in_tmp / "out" / "accepted.parquet").is_file()
    assert "MLflow run" in result.output


def test_validate_bad_csv_is_one_clear_line(in_tmp):
    (in_tmp / "c.csv").write_text("id,title,text\n1,a,b\n")
    result = runner.invoke(app, ["corpus", "validate", "c.csv"])
    assert result.exit_code == 2
    assert "required column 'abstract' not found" in result.output and "Traceback" not in result.output
    ok = runner.invoke(
        app, ["corpus", "validate", "c.csv", "--abstract-col", "text", "--set", "corpus.min_abstract_chars=0"]
    )
    assert ok.exit_code == 0, ok.output
    assert "1 = 1 + 0" in ok.output


def test_bad_override_is_reported_with_its_path(in_tmp, sample_corpus_path):
    result = runner.invoke(app, ["corpus", "stats", str(sample_corpus_path), "--set", "corpus.min_abstract_chars=-1"])
    assert result.exit_code == 2
    assert "corpus.min_abstract_chars" in result.output


def test_stats_json(in_tmp, sample_corpus_path):
    result = runner.invoke(app, ["corpus", "stats", str(sample_corpus_path), "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert stats["rows"] == 40 and stats["duplicate_id_rate"] == 0.0
    assert 400 < stats["abstract"]["chars_p50"] < 1000


@pytest.mark.realdata
def test_validate_real_cs_papers(in_tmp, shared_data):
    result = runner.invoke(app, ["corpus", "validate", str(shared_data / "cs_papers.parquet"), "--out", "cs"])
    assert result.exit_code == 0, result.output
    report = json.loads((in_tmp / "cs" / "report.json").read_text())
    assert report["total"] == 87_327 == report["accepted"] + report["rejected"]
