"""Each trial logs into one MLflow child run, also when the driver was killed before Tune saved its state."""

from __future__ import annotations

from types import SimpleNamespace

from semcse.core.tracking import Tracker
from semcse.orchestration.tuning.tracking import TrialRuns


def _trial_runs(tracking, parent: str) -> list:
    client = Tracker(tracking).client
    experiment = client.get_experiment_by_name(tracking.experiment)
    return client.search_runs([experiment.experiment_id], f"tags.mlflow.parentRunId = '{parent}'")


def test_a_restarted_driver_logs_into_the_trial_run_it_opened_before(tracking):
    parent = Tracker.start(tracking, run_name="study")
    trial = SimpleNamespace(trial_id="abc_00001", config={"training.lr": 1e-4}, last_result={"val_score": 2.0})

    TrialRuns(tracking, parent.run_id, "study").on_trial_start(0, [], trial)  # the killed driver
    restarted = TrialRuns(tracking, parent.run_id, "study")  # a new driver, no saved mapping
    restarted.on_trial_start(0, [], trial)
    restarted.on_trial_complete(0, [], trial)
    other = SimpleNamespace(trial_id="abc_00002", config={"training.lr": 3e-4}, last_result={})
    restarted.on_trial_start(0, [], other)

    runs = {run.data.tags["trial_id"]: run for run in _trial_runs(tracking, parent.run_id)}
    assert sorted(runs) == ["abc_00001", "abc_00002"]
    assert runs["abc_00001"].info.status == "FINISHED"
    assert runs["abc_00001"].data.metrics == {"final_val_score": 2.0}
