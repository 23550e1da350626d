"""A study is killed once its first trial has finished; run again, it restores, runs the rest and writes its table.

One study, two trials one at a time, alike but for where they train: the first in its trial's own process
(`training.launcher: local`), the second on Ray Train, whose every validation report reaches Tune while it trains
(Ray's `TuneReportCallback`, what ASHA would stop it on). The same seed and one worker each: the two trials score
the same. That Tune crosses every searched key's values is checked without a cluster
(`test_study_file.test_a_grid_crosses_every_searched_key`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from semcse.core.tracking import Tracker
from semcse.orchestration.tuning.runner import run_study
from semcse.orchestration.tuning.study import load_study
from tests.paths import REPO


def _children(tracking, parent: str | None = None) -> list:
    """The study's trial runs in MLflow (those of one parent run, when given)."""
    client = Tracker(tracking).client
    experiment = client.get_experiment_by_name(tracking.experiment)
    if experiment is None:
        return []
    runs = client.search_runs([experiment.experiment_id], "tags.stage = 'tune-trial'")
    return [run for run in runs if parent is None or run.data.tags.get("mlflow.parentRunId") == parent]


@pytest.mark.slow
def test_a_killed_study_restores_without_rerunning_finished_trials(ray_cluster, write_study, tracking, tmp_path):
    import ray

    search = {"training.launcher": ["local", "ray"]}
    study_file = write_study(name="resume", suites=["semantic"], search=search, max_concurrent_trials=1)
    env = {**os.environ, "RAY_ADDRESS": ray.get_runtime_context().gcs_address}
    with (tmp_path / "first-run.log").open("w") as log:
        first = subprocess.Popen(
            [sys.executable, str(REPO / "tune" / "run.py"), "--study", str(study_file)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 600
        while time.time() < deadline and not any("final_val_score" in r.data.metrics for r in _children(tracking)):
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
    assert (trials_dir / first_done[0] / "encoder").stat().st_mtime_ns == encoder_time  # not trained again
    table = pd.read_csv(result.paths["csv"], index_col="trial")
    assert len(table) == 2 and (table["status"] == "done").all(), result.errors
    assert set(table["training.launcher"]) == {"local", "ray"}
    assert table["val_score"].between(1, 40).all()  # a real average rank over the validation abstracts
    assert table["val_score"].max() - table["val_score"].min() < 1e-6, "one loop, whichever launcher"
    assert table["semantic/title_abstract"].notna().all()
    assert not {"semantic/overall", "semantic/improvement"} & set(table.columns), "a lone model has no table to rank"
    assert result.table.markdown().count("**") >= 2 and Path(result.paths["plot"]).stat().st_size > 0
    assert table["best_step"].isin([0, 2, 4]).all()  # the step each trial delivered (evaluations every 2 steps)
    assert result.winner and result.winner["why"] == "the best val_score"
    children = _children(tracking, result.parent_run_id)
    assert len(children) == 2 and all("final_val_score" in run.data.metrics for run in children)
    # the Ray Train trial's three evaluations (steps 0, 2, 4) reached Tune as it trained, then its final report; the
    # trial in its own process reports once, at the end
    curves = {
        run.data.params["tune.training.launcher"]: Tracker(tracking).client.get_metric_history(
            run.info.run_id, "val_score"
        )
        for run in children
    }
    assert len(curves["ray"]) == 4 and len(curves["local"]) == 1, curves
