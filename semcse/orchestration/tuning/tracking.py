"""MLflow for a study: the driver logs one child run per trial under the study's parent run.

A driver-side Tune callback sees every result of every trial (the relayed validation reports and the
final report), so curves, params and final metrics land in the trial's child run without the trial
process knowing about it. The training run that `train` opens for the fit is re-parented under the
trial's run when the trial completes, so a study reads study → trial → training run in the MLflow UI.
A restored study finds each trial's child run again by its trial id under the parent run (Tune's saved
state can be older than the kill), so it keeps logging into the same child runs.
"""

from __future__ import annotations

import math
from typing import Any

from ray.tune import Callback

from semcse.core.config import TrackingConfig
from semcse.core.tracking import Tracker
from semcse.orchestration.tuning.trial import LOWER_IS_BETTER_KEY, TRAIN_RUN_KEY

PARENT_TAG = "mlflow.parentRunId"


def numeric_metrics(result: dict[str, Any]) -> dict[str, float]:
    """The validation and suite metrics of a Tune result (not Tune's own bookkeeping fields)."""
    return {
        key: float(value)
        for key, value in result.items()
        if (key.startswith(("val_", "best_")) or "/" in key)
        and isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
    }


class TrialRuns(Callback):
    """Child run per trial: params at start, a curve point per report, final metrics and status at the end."""

    def __init__(self, tracking: TrackingConfig, parent_run_id: str | None, study: str) -> None:
        self.tracking = tracking
        self.parent_run_id = parent_run_id
        self.study = study
        self.runs: dict[str, str] = {}

    def _tracker(self, trial: Any) -> Tracker:
        run_id = self.runs.get(trial.trial_id) or self._earlier_run(trial.trial_id)
        if run_id is not None:
            self.runs[trial.trial_id] = run_id
            return Tracker.resume(self.tracking, run_id)
        tracker = Tracker.start(
            self.tracking,
            run_name=f"{self.study}-{trial.trial_id}",
            parent=Tracker(self.tracking, self.parent_run_id),
            tags={"stage": "tune-trial", "study": self.study, "trial_id": trial.trial_id},
        )
        tracker.log_params(dict(trial.config), prefix="tune.")
        if tracker.run_id:
            self.runs[trial.trial_id] = tracker.run_id
        return tracker

    def _earlier_run(self, trial_id: str) -> str | None:
        """The child run an earlier, killed driver opened for this trial, if any."""
        if not (self.tracking.enabled and self.parent_run_id):
            return None
        client = Tracker(self.tracking).client
        experiment = client.get_experiment_by_name(self.tracking.experiment)
        if experiment is None:
            return None
        runs = client.search_runs(
            [experiment.experiment_id],
            f"tags.{PARENT_TAG} = '{self.parent_run_id}' and tags.trial_id = '{trial_id}'",
            max_results=1,
        )
        return runs[0].info.run_id if runs else None

    def on_trial_start(self, iteration: int, trials: list[Any], trial: Any, **info: Any) -> None:
        self._tracker(trial)

    def on_trial_result(
        self, iteration: int, trials: list[Any], trial: Any, result: dict[str, Any], **info: Any
    ) -> None:
        step = int(result.get("step", result.get("training_iteration", 0)))
        Tracker(self.tracking, self.runs.get(trial.trial_id)).log_metrics(numeric_metrics(result), step=step)

    def on_trial_complete(self, iteration: int, trials: list[Any], trial: Any, **info: Any) -> None:
        tracker = Tracker(self.tracking, self.runs.get(trial.trial_id))
        result = trial.last_result or {}
        tracker.log_metrics({f"final_{k}": v for k, v in numeric_metrics(result).items()})
        if result.get(LOWER_IS_BETTER_KEY):
            tracker.set_tags({LOWER_IS_BETTER_KEY: result[LOWER_IS_BETTER_KEY]})
        if result.get(TRAIN_RUN_KEY) and tracker.run_id:
            Tracker(self.tracking, result[TRAIN_RUN_KEY]).set_tags({PARENT_TAG: tracker.run_id})
        tracker.finish("FINISHED")

    def on_trial_error(self, iteration: int, trials: list[Any], trial: Any, **info: Any) -> None:
        Tracker(self.tracking, self.runs.get(trial.trial_id)).finish("FAILED")
