"""A tiny study runs 2 trials at a time, writes its table with real metrics; a killed study resumes.

Each trial is a Ray Train run (about a minute on 2 cores), so the grid is 2 × 1: that Tune crosses every searched
key's values is checked without a cluster (`test_study_file.test_a_grid_crosses_every_searched_key`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from semcse.tracking import Tracker
from semcse.tuning.runner import run_study
from semcse.tuning.study import load_study
from tests.paths import REPO


@pytest.mark.slow
def test_tiny_grid_study_writes_the_ablation_table(ray_cluster, write_study, tracking) -> None:
    search = {"training.learning_rate": [1e-3, 1e-5], "training.temperature": [0.5]}
    study, base = load_study(str(write_study(suites=["semantic"], search=search)))
    result = run_study(study, base)

    table = pd.read_csv(result.paths["csv"], index_col="trial")
    assert len(table) == 2
    assert set(zip(table["training.learning_rate"], table["training.temperature"])) == {(1e-3, 0.5), (1e-5, 0.5)}
    assert (table["status"] == "done").all(), result.errors
    assert table["val_score"].between(1, 40).all()  # a real average rank over the validation abstracts
    assert table["semantic/title_abstract"].notna().all()
    assert not {"semantic/overall", "semantic/improvement"} & set(table.columns), "a lone model has no table to rank"
    assert result.table.markdown().count("**") >= 2 and Path(result.paths["plot"]).stat().st_size > 0
    assert table["best_step"].isin([0, 2, 4]).all()  # the step each trial delivered (evaluations every 2 steps)
    assert result.winner and result.winner["trial"] == str(table["val_score"].idxmin())
    assert result.winner["why"] == "the best val_score"

    client = Tracker(tracking).client
    children = client.search_runs(
        [client.get_experiment_by_name(tracking.experiment).experiment_id],
        f"tags.mlflow.parentRunId = '{result.parent_run_id}'",
    )
    assert len(children) == 2
    assert all("final_val_score" in run.data.metrics for run in children)


def _finished_trials(tracking) -> int:
    """Trials whose MLflow child run has its final metrics, i.e. that Tune saw complete."""
    client = Tracker(tracking).client
    experiment = client.get_experiment_by_name(tracking.experiment)
    if experiment is None:
        return 0
    return sum("final_val_score" in run.data.metrics for run in client.search_runs([experiment.experiment_id]))


@pytest.mark.slow
def test_killed_study_restores_without_rerunning_finished_trials(ray_cluster, write_study, tracking, tmp_path) -> None:
    """The study's driver process is SIGKILLed once its first trial has finished; a rerun restores the study."""
    import ray

    study_file = write_study(name="resume", search={"training.learning_rate": [1e-3, 1e-4]}, max_concurrent_trials=1)
    env = {**os.environ, "RAY_ADDRESS": ray.get_runtime_context().gcs_address}
    with (tmp_path / "first-run.log").open("w") as log:
        first = subprocess.Popen(
            [sys.executable, str(REPO / "tune" / "run.py"), "--study", str(study_file)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 600
        while time.time() < deadline and _finished_trials(tracking) == 0:
            assert first.poll() is None, (tmp_path / "first-run.log").read_text()[-3000:]
            time.sleep(1)
        time.sleep(3)  # Tune saves its experiment state every second
        first.send_signal(signal.SIGKILL)
        first.wait()
    study, base = load_study(str(study_file))
    trials_dir = Path(base.run_dir).resolve() / "tune" / "resume-trials"
    first_done = [p.name for p in trials_dir.iterdir() if (p / "encoder").is_dir()]
    assert len(first_done) == 1
    encoder_time = (trials_dir / first_done[0] / "encoder").stat().st_mtime_ns

    result = run_study(study, base)

    assert result.restored
    table = pd.read_csv(result.paths["csv"], index_col="trial")
    assert len(table) == 2 and (table["status"] == "done").all(), result.errors
    assert (trials_dir / first_done[0] / "encoder").stat().st_mtime_ns == encoder_time  # not trained again
