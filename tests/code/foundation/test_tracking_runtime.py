"""MLflow tracking on a real sqlite store, model registry round trip, Ray connection errors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from semcse.core.config import TrackingConfig
from semcse.core.tracking import Tracker, resolve_model


def test_run_params_metrics_artifacts_and_registry(tracking, tmp_path):
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "weights.txt").write_text("w")
    with Tracker.start(tracking, "parent") as parent:
        with Tracker.start(tracking, "child", parent=parent) as child:
            child.log_params({"training": {"lr": 0.1, "layers": [1, 2]}, "name": "x" * 7000})
            child.log_metrics({"loss": 1.5}, step=3)
            child.log_artifact(model_dir, "encoder")
            version = child.register_model("encoder", "test-foundation-encoder", alias="candidate")
    client = Tracker(tracking).client
    run = client.get_run(child.run_id)
    assert run.data.params["training.lr"] == "0.1" and run.data.params["training.layers"] == "[1, 2]"
    assert len(run.data.params["name"]) == 6000
    assert run.data.metrics["loss"] == 1.5
    assert run.data.tags["mlflow.parentRunId"] == parent.run_id
    assert run.info.status == "FINISHED"
    assert str(client.get_model_version_by_alias("test-foundation-encoder", "candidate").version) == version
    local = resolve_model("models:/test-foundation-encoder@candidate", tracking)
    assert (Path(local) / "weights.txt").read_text() == "w"
    assert (Path(resolve_model(f"models:/test-foundation-encoder/{version}", tracking)) / "weights.txt").is_file()


def test_runs_started_inside_as_parent_nest_under_it(tracking):
    with Tracker.start(tracking, "pipeline") as parent, parent.as_parent():
        child = Tracker.start(tracking, "stage")
        child.finish()
    outside = Tracker.start(tracking, "later")
    outside.finish()
    client = Tracker(tracking).client
    assert client.get_run(child.run_id).data.tags["mlflow.parentRunId"] == parent.run_id
    assert "mlflow.parentRunId" not in client.get_run(outside.run_id).data.tags


def test_failed_run_is_marked_failed(tracking):
    with pytest.raises(RuntimeError):
        with Tracker.start(tracking, "boom") as tracker:
            raise RuntimeError("boom")
    assert Tracker(tracking).client.get_run(tracker.run_id).info.status == "FAILED"


def test_disabled_tracking_is_a_no_op(tmp_path):
    tracker = Tracker.start(TrackingConfig(enabled=False), "nothing")
    tracker.log_metrics({"x": 1})
    tracker.log_params({"a": 1})
    assert tracker.register_model("m", "name") is None and not tracker.active


def test_resolve_model_errors(tmp_path, tracking):
    with pytest.raises(FileNotFoundError, match="not found"):
        resolve_model(str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="alias"):
        resolve_model("models:/just-a-name", tracking)
    assert resolve_model("some-org/some-model") == "some-org/some-model"


def test_unreachable_ray_address_is_a_clear_error():
    """In a fresh interpreter: this one may already be attached to the session's cluster, and init_ray joins once."""
    probe = (
        "from semcse.core.runtime import RayUnavailable, init_ray\n"
        "try:\n    init_ray()\nexcept RayUnavailable as exc:\n    print(exc)\n    raise SystemExit(3)\n"
    )
    env = {**os.environ, "RAY_ADDRESS": "127.0.0.1:1"}
    result = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 3, result.stdout + result.stderr[-2000:]
    assert re.search(r"127\.0\.0\.1:1.*ray start --head", result.stdout), result.stdout


def test_ray_train_polls_every_half_second_unless_the_user_chose(ray_cluster, monkeypatch):
    """`init_ray` sets Ray Train's poll interval in the process that starts training, and Ray Train hands that
    process's value on to the run's controller and workers; a value the user set is kept."""
    from ray.train.v2._internal.constants import get_env_vars_to_propagate

    from semcse.core.runtime import init_ray

    interval = "RAY_TRAIN_HEALTH_CHECK_INTERVAL_S"
    monkeypatch.delenv(interval, raising=False)
    init_ray()
    assert get_env_vars_to_propagate().get(interval) == "0.5"
    monkeypatch.setenv(interval, "3")
    init_ray()
    assert get_env_vars_to_propagate().get(interval) == "3"


def test_concurrent_first_experiment_runs_and_registrations_all_succeed(tracking, tmp_path):
    """Tune trials start in a new experiment and register a study's first versions at the same moment."""
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    (model_dir / "weights.txt").write_text("w")
    fresh = tracking.model_copy(update={"experiment": f"{tracking.experiment}-concurrent"})
    workers = 4
    barrier = threading.Barrier(workers)

    def trial(i: int) -> tuple[Tracker, str | None]:
        barrier.wait()
        with Tracker.start(fresh, f"trial-{i}") as run:
            run.log_artifact(model_dir, "encoder")
        barrier.wait()
        return run, run.register_model("encoder", "test-foundation-concurrent", alias=f"trial-{i}")

    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(trial, range(workers)))
    assert sorted(int(version) for _, version in results) == [1, 2, 3, 4]
    assert len({Tracker(fresh).client.get_run(run.run_id).info.experiment_id for run, _ in results}) == 1
    assert results[0][0].register_model("encoder", "test-foundation-concurrent") == "5"  # the name already exists
