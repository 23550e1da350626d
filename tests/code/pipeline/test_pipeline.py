"""The pipeline end to end: steps, resume after a kill, registration, and `ray job submit`."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from semcse.config import ConfigError, load_config
from semcse.pipeline import Pipeline, PipelineState, step_range
from semcse.tracking import Tracker

from tests.paths import REPO


def test_step_range_and_errors():
    assert step_range("train", "register") == ["train", "evaluate", "register"]
    assert step_range(None, "validate") == ["validate"]
    with pytest.raises(ConfigError, match="unknown step 'fit'"):
        step_range("fit", None)
    with pytest.raises(ConfigError, match="comes after"):
        step_range("evaluate", "train")


def test_missing_generation_model_fails_before_any_work(pipeline_config):
    cfg = load_config(pipeline_config(training={"pairs": "summaries"}))
    with pytest.raises(ConfigError, match="generation.model is not set"):
        Pipeline(cfg).run()
    assert not (Path(cfg.run_dir) / "corpus").exists()


@pytest.mark.slow
def test_pipeline_runs_resumes_and_registers(ray_cluster, pipeline_config):
    cfg = load_config(pipeline_config(pipeline={"build_index": True}))
    state = Pipeline(cfg).run(until="evaluate")
    assert set(state.steps) == {"validate", "generate", "train", "evaluate"}
    assert state.steps["generate"]["outputs"] == {"texts": None}
    trained = Path(state.steps["train"]["outputs"]["model"])
    assert (trained / "modules.json").is_file()
    tables = state.steps["evaluate"]["outputs"]["suites"]
    assert set(tables) == {"semantic", "knn"} and set(tables["semantic"]["table"]) == {"base", "trained"}
    # no champion yet: the trained model is compared with the base, paired, on every figure
    assert state.steps["evaluate"]["outputs"]["incumbent"] == "base"
    overall = tables["semantic"]["versus_incumbent"]["overall"]
    assert overall["low"] <= overall["difference"] <= overall["high"]
    assert set(tables["knn"]["intervals"]["trained"]) >= {"knn_accuracy_ci_low", "knn_accuracy_ci_high"}

    again = Pipeline(cfg).run()
    assert again.steps["train"] == state.steps["train"], "a rerun must not retrain"
    assert set(again.steps) == {"validate", "generate", "train", "evaluate", "register", "index", "map", "serve"}
    register = again.steps["register"]["outputs"]
    client = Tracker(cfg.tracking).client
    version = again.steps["train"]["outputs"]["version"]
    # registered exactly when training beat the base model on validation; only a registered model can be champion
    assert (version is not None) == again.steps["train"]["outputs"]["improved"]
    if version is not None:
        assert client.get_model_version(cfg.training.register_name, version).run_id
    else:
        assert not register["champion"] and "did not beat the base model" in register["verdict"]
    if register["champion"]:
        assert client.get_model_version_by_alias(cfg.training.register_name, "champion").version == int(version)
        assert register["difference"]["verdict"] == "better"
    assert "95% CI" in register["verdict"]
    assert (Path(again.steps["index"]["outputs"]["index"])).is_dir()
    parent = client.get_run(again.parent_run_id)
    assert parent.info.status == "FINISHED"
    children = client.search_runs(
        [parent.info.experiment_id], filter_string=f"tags.mlflow.parentRunId = '{again.parent_run_id}'"
    )
    assert {r.info.run_name for r in children} >= {"train-crops"}


@pytest.mark.slow
def test_killed_during_training_resumes_without_regenerating(ray_cluster, pipeline_config, tiny_causal_lm_dir):
    import ray

    config = pipeline_config(
        generation={
            "model": str(tiny_causal_lm_dir),
            "prompts": ["In summary, our research is concerned with"],
            "samples_per_prompt": 3,
            "max_new_tokens": 12,
            "concurrency": 1,
        },
        training={"pairs": "summaries", "max_steps": 400, "eval_every": 200},
    )
    run_dir = Path(load_config(config).run_dir)
    env = {**os.environ, "RAY_ADDRESS": ray.get_runtime_context().gcs_address}
    command = [sys.executable, str(REPO / "jobs" / "pipeline.py"), "--config", str(config), "--until", "train"]
    first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while time.time() < deadline and "generate" not in PipelineState.load(run_dir).steps:
        assert first.poll() is None, "the pipeline ended before it reached training"
        time.sleep(2)
    assert "generate" in PipelineState.load(run_dir).steps
    time.sleep(15)
    first.send_signal(signal.SIGKILL)
    first.wait()
    texts = Path(PipelineState.load(run_dir).outputs("generate")["texts"])
    before = {p.name: p.stat().st_mtime_ns for p in texts.glob("part-*.parquet")}
    assert before and "train" not in PipelineState.load(run_dir).steps

    command[-1:] = ["train", "--set", "training.max_steps=6", "--set", "training.eval_every=3"]
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "[semcse pipeline] ✓ generate: done in an earlier run, skipped" in second.stderr  # progress: stderr
    assert {p.name: p.stat().st_mtime_ns for p in texts.glob("part-*.parquet")} == before
    assert (Path(PipelineState.load(run_dir).outputs("train")["model"]) / "modules.json").is_file()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _head_logs(temp_dir: Path) -> str:
    """The tails of the head's agent and job-server logs: why a job was refused is only written there."""
    logs = temp_dir / "session_latest" / "logs"
    names = ("dashboard_agent.log", "dashboard_JobHead.log", "raylet.out")
    tails = [f"\n--- {n}\n" + (logs / n).read_text(errors="replace")[-2500:] for n in names if (logs / n).is_file()]
    return "".join(tails)


@pytest.mark.slow
def test_ray_job_submit_runs_the_pipeline(pipeline_config):
    """CI's path: `ray start --head` on loopback, `ray job submit` the reduced demo, check, stop that head.

    The head runs with `--block` in its own process group so stopping it cannot touch the session's
    cluster; its temp dir is short because Ray's Unix sockets live under it (108-byte path limit).
    Ray 2.60 secures the dashboard with a token; RAY_AUTH_MODE=token makes the CLI send it.
    """
    import tempfile
    import urllib.error
    import urllib.request

    ray_bin = Path(sys.executable).parent / "ray"
    port, dashboard = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"} | {"RAY_AUTH_MODE": "token"}
    temp_dir = tempfile.mkdtemp(prefix="rayjob", dir="/tmp")
    head = subprocess.Popen(
        [
            str(ray_bin),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--node-ip-address=127.0.0.1",
            f"--dashboard-port={dashboard}",
            "--dashboard-host=127.0.0.1",
            f"--dashboard-agent-listen-port={_free_port()}",
            f"--dashboard-agent-grpc-port={_free_port()}",
            f"--runtime-env-agent-port={_free_port()}",
            f"--metrics-export-port={_free_port()}",
            f"--ray-client-server-port={_free_port()}",
            "--num-cpus=2",
            f"--temp-dir={temp_dir}",
            "--disable-usage-stats",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 180
        while True:
            assert head.poll() is None, "ray start --head exited"
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{dashboard}/api/version", timeout=2)
                break
            except urllib.error.HTTPError:
                break  # any HTTP answer means the dashboard is up (its API may require Ray's auth token)
            except OSError:
                assert time.time() < deadline, "the Ray dashboard did not come up"
                time.sleep(2)
        config = pipeline_config()
        cfg = load_config(config)
        runtime_env = {
            "excludes": [".venv", ".git", "runs", "mlruns", "mlflow.db", "test-artifacts"],
            "env_vars": {"HF_HUB_OFFLINE": "1"},
        }
        submit = [
            str(ray_bin),
            "job",
            "submit",
            f"--address=http://127.0.0.1:{dashboard}",
            "--working-dir",
            str(REPO),
            "--runtime-env-json",
            json.dumps(runtime_env),
            "--",
            sys.executable,
            "jobs/pipeline.py",
            "--config",
            str(config),
            "--until",
            "register",
        ]
        for _ in range(20):  # the dashboard answers a little before its job agent is ready
            result = subprocess.run(submit, env=env, capture_output=True, text=True, timeout=900)
            if "No available agent to submit job" not in result.stdout + result.stderr:
                break
            time.sleep(3)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1500:] + _head_logs(Path(temp_dir))
        output = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)
        assert re.search(r"Job '\S+' succeeded", output), output[-3000:]
        state = PipelineState.load(Path(cfg.run_dir))
        assert {"validate", "train", "evaluate", "register"} <= set(state.steps)
        train = state.steps["train"]["outputs"]
        assert (train["version"] is not None) == train["improved"]
        if train["version"] is not None:
            assert Tracker(cfg.tracking).client.get_model_version(cfg.training.register_name, train["version"])
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        head.wait(timeout=120)
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.mark.slow
def test_the_user_column_names_hold_from_validation_to_the_index(ray_cluster, pipeline_config, tmp_path: Path):
    """Validation writes canonical columns; no later step may read that file with the user's raw names."""
    import pandas as pd

    sample = pd.read_json(REPO / "examples" / "sample_corpus.jsonl", lines=True)
    renamed = sample.rename(columns={"id": "paper_id", "title": "heading", "abstract": "body"})
    renamed.to_parquet(tmp_path / "renamed.parquet", index=False)
    corpus = {
        "path": str(tmp_path / "renamed.parquet"),
        "id_col": "paper_id",
        "title_col": "heading",
        "abstract_col": "body",
    }
    cfg = load_config(pipeline_config(corpus=corpus, pipeline={"build_index": True}))
    state = Pipeline(cfg).run()
    assert state.steps["validate"]["outputs"]["accepted"] == len(sample)
    assert set(state.steps["evaluate"]["outputs"]["suites"]) == {"semantic", "knn"}
    index = Path(state.steps["index"]["outputs"]["index"])
    assert state.steps["index"]["outputs"]["papers"] == len(sample) and index.is_dir()
