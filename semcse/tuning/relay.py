"""Forward Ray Train reports to the Tune trial that launched the TorchTrainer.

Since Ray Train V2, a TorchTrainer fitted inside a Tune trial reports to its own controller, not to
Tune; Ray's `TuneReportCallback` closes that gap, but `training.trainer.train` builds its own
RunConfig (it owns checkpointing and failure settings), so the callback cannot be passed there.
Ray Train also instantiates controller callbacks named in `RAY_TRAIN_CALLBACKS`, so the trial sets
that variable to this class: every validation report then reaches Tune while training runs, which
is what lets ASHA stop a bad trial early.
"""

from __future__ import annotations

import os
from typing import Any

from ray.train.v2._internal.execution.callback import ReportCallback
from ray.tune.integration.ray_train import TuneReportCallback

TRAIN_CALLBACKS_ENV = "RAY_TRAIN_CALLBACKS"


class TuneRelay(ReportCallback):
    """Created in the trial process (where the Tune session lives), then runs in the Train controller."""

    def __init__(self) -> None:
        self._tune = TuneReportCallback()

    def after_report(self, training_report: Any, metrics: list[dict[str, Any]]) -> None:
        # Ray's callback never reads `run_context`, and a controller callback has none to give
        self._tune.after_report(run_context=None, metrics=metrics, checkpoint=None)  # type: ignore[arg-type]


def install() -> None:
    """Make every TorchTrainer fitted later in this (trial) process relay its reports to Tune."""
    name = f"{TuneRelay.__module__}.{TuneRelay.__qualname__}"
    present = [c for c in os.environ.get(TRAIN_CALLBACKS_ENV, "").split(",") if c.strip()]
    if name not in present:
        os.environ[TRAIN_CALLBACKS_ENV] = ",".join([*present, name])
