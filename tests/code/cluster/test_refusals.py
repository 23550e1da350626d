"""What cannot work on a cluster is refused with one message that says what to set, before any Ray work.

Each command runs as a user runs it, in its own process; RAY_ADDRESS points at a port where nothing
listens, so a command that reached for Ray before refusing would fail with another message.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import SAMPLE_CORPUS

NOWHERE = "127.0.0.1:1"
JOB = {"RAY_JOB_CONFIG_JSON_ENV_VAR": '{"runtime_env": {}}'}  # what Ray's job manager sets for an entrypoint


def _semcse(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MLFLOW_", "RAY_"))}
    result = subprocess.run(
        [sys.executable, "-m", "semcse", *args], cwd=cwd, env=base | env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-3000:]
    error = " ".join(result.stderr.split())
    assert "could not reach the Ray cluster" not in error, "it reached for Ray before refusing"
    return error


def _pipeline(*settings: str) -> list[str]:
    args = ["pipeline", "--set", f"corpus.path={SAMPLE_CORPUS}", "--set", "training.base_model=/nowhere/model"]
    args += ["--set", "training.pairs=crops"]
    for setting in settings:
        args += ["--set", setting]
    return args


@pytest.mark.slow
def test_a_submitted_job_refuses_a_relative_run_dir_and_a_tracking_store_in_its_working_directory(tmp_path) -> None:
    error = _semcse(_pipeline("run_dir=runs/mine"), tmp_path, JOB | {"RAY_ADDRESS": NOWHERE})
    assert "run_dir 'runs/mine' is relative, and this is a submitted Ray job" in error
    assert "--set run_dir=s3://BUCKET/mine" in error
    error = _semcse(_pipeline(f"run_dir={tmp_path / 'abs'}"), tmp_path, JOB | {"RAY_ADDRESS": NOWHERE})
    assert "MLflow would default to a sqlite file in this submitted job's temporary working directory" in error
    assert "MLFLOW_TRACKING_URI=http://HEAD:5000" in error
    assert not (tmp_path / "runs").exists() and not (tmp_path / "mlflow.db").exists()


@pytest.mark.slow
def test_a_storage_uri_without_credentials_or_bucket_is_refused(s3, tmp_path) -> None:
    no_credentials = {
        "AWS_ENDPOINT_URL": s3.endpoint,
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
        "AWS_EC2_METADATA_DISABLED": "true",
        "RAY_ADDRESS": NOWHERE,
    }
    error = _semcse(_pipeline("run_dir=s3://runs-bucket/x"), tmp_path, no_credentials)
    assert "s3://runs-bucket/x: no AWS credentials found" in error and "AWS_ACCESS_KEY_ID" in error
    error = _semcse(["corpus", "validate", "s3://no-such-bucket/c.jsonl"], tmp_path, s3.env)
    assert "no-such-bucket" in error and "does not exist" in error


@pytest.mark.slow
def test_serving_beyond_loopback_needs_a_key_or_no_auth(tmp_path) -> None:
    error = _semcse(["serve", "--app", "embed", "--encoder", str(tmp_path), "--host", "0.0.0.0"], tmp_path, {})
    assert "serving on 0.0.0.0 without an API key" in error and "--no-auth" in error
