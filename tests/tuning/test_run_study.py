"""A tiny 2 × 2 study runs 2 trials at a time, writes a 4-row table with real metrics, and resumes."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest
from ray import tune
from semcse.tracking import Tracker
from semcse.tuning.runner import run_study
from semcse.tuning.study import load_study


@pytest.mark.slow
def test_tiny_grid_study_writes_the_ablation_table(ray_cluster, write_study, tracking) -> None:
    study, base = load_study(str(write_study(suites=["semantic"])))
    result = run_study(study, base)

    table = pd.read_csv(result.paths["csv"], index_col="trial")
    assert len(table) == 4
    assert set(zip(table["training.learning_rate"], table["training.temperature"])) == {
        (1e-3, 0.05),
        (1e-3, 0.5),
        (1e-5, 0.05),
        (1e-5, 0.5),
    }
    assert (table["status"] == "done").all(), result.errors
    assert not result.errors
    assert table["val_score"].between(1, 40).all()  # a real average rank over the validation abstracts
    assert table["semantic/title_abstract"].notna().all()
    assert result.table.markdown().count("**") >= 2 and result.paths["plot"].stat().st_size > 0

    client = Tracker(tracking).client
    children = client.search_runs(
        [client.get_experiment_by_name(tracking.experiment).experiment_id],
        f"tags.mlflow.parentRunId = '{result.parent_run_id}'",
    )
    assert len(children) == 4
    assert all("final_val_score" in run.data.metrics for run in children)


class StopAfterFirstTrial(tune.Callback):
    """Simulates a crash of the study driver a few seconds after the first trial finished (first run only)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker
        self.first_done: float | None = None

    def on_trial_complete(self, iteration, trials, trial, **info) -> None:
        self.first_done = self.first_done or time.monotonic()

    def on_step_begin(self, iteration, trials, **info) -> None:
        if self.first_done and time.monotonic() - self.first_done > 3 and not self.marker.exists():
            self.marker.touch()
            raise KeyboardInterrupt("driver interrupted after the first finished trial")


@pytest.mark.slow
def test_interrupted_study_restores_without_rerunning_finished_trials(ray_cluster, write_study, tmp_path) -> None:
    study, base = load_study(
        str(write_study(name="resume", search={"training.learning_rate": [1e-3, 1e-4]}, max_concurrent_trials=1))
    )
    with pytest.raises(KeyboardInterrupt):
        run_study(study, base, callbacks=[StopAfterFirstTrial(tmp_path / "interrupted")])
    trials_dir = Path(base.run_dir).resolve() / "tune" / "resume-trials"
    first = [p.name for p in trials_dir.iterdir() if (p / "encoder").is_dir()]
    assert len(first) == 1
    encoder_time = (trials_dir / first[0] / "encoder").stat().st_mtime_ns

    result = run_study(study, base)

    assert result.restored
    table = pd.read_csv(result.paths["csv"], index_col="trial")
    assert len(table) == 2 and (table["status"] == "done").all(), result.errors
    assert (trials_dir / first[0] / "encoder").stat().st_mtime_ns == encoder_time  # not trained again
