"""The driver side every training run shares: one MLflow run, one TorchTrainer fit, one delivery.

An encoder (`trainer.train`, also each aspect encoder of `aspects.train_aspects`) and the unified
model (`distill.distill`) differ in their data, objective, model and validation, and in nothing
else: each starts a tracker, logs its settings, builds the workers' `LoopSpec`, says what is about
to run, fits a TorchTrainer, copies the best checkpoint's model to its output directory and
registers it only when it beat the base model. `fit_and_deliver` is that sequence, once; a driver
describes its run as a `TrainingJob`.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from semcse import logs
from semcse.config import ConfigError, RunConfig, TrackingConfig, TrainingConfig
from semcse.tracking import Tracker, tracking_uri
from semcse.training.checkpoints import CANDIDATE_SCORE, MODEL_DIR, beats_base, best_model
from semcse.training.loop import FailOnce, LoopSpec, train_loop
from semcse.training.objective import Objective
from semcse.training.validation import Validated, evaluate

log = logging.getLogger(__name__)
STATUS_FILE = "semcse_training.json"


class TrainingSetupError(ConfigError):
    """A run that cannot start (bad model, no data, batch too large); raised before any Ray work."""


@dataclass
class TrainingJob:
    """What one training run is made of; `fit_and_deliver` does the rest the same way for every kind."""

    stage: str  # how its lines read: `[semcse <stage>] …`
    run_name: str  # the MLflow run's name and Ray Train's label, e.g. `train-crops`, `distill-multi`
    tags: dict[str, str]
    params: dict[str, Any]  # logged beside the training section
    objective: Objective
    model_factory: Callable[[], Any]
    validation: Any
    rows: pd.DataFrame
    out: Path
    artifact: str  # MLflow artifact path of the delivered model
    register_name: str
    register_alias: str | None
    banner: list[str] = field(default_factory=list)
    evaluate: Callable[[Any, Any], Validated] = evaluate
    fail_once: FailOnce | None = None


@dataclass
class TrainResult:
    """What a finished run delivers: the model directory, the last and best metrics, and its registry version."""

    model_dir: Path
    metrics: dict[str, Any]
    best: dict[str, Any]
    run_id: str | None
    model_version: str | None

    @property
    def improved(self) -> bool:
        return beats_base(self.best)


def fit_and_deliver(cfg: RunConfig, tc: TrainingConfig, job: TrainingJob) -> TrainResult:
    """Tracker → spec → banner → fit → deliver; the model lands in `job.out` whatever the outcome."""
    from semcse.runtime import init_ray

    init_ray(cfg.ray)
    tracking = absolute_tracking(cfg)
    tracker = Tracker.start(tracking, run_name=job.run_name, tags=job.tags)
    with tracker:
        tracker.log_params(tc, prefix="training.")
        tracker.log_params(job.params)
        spec = LoopSpec(
            cfg=tc,
            objective=job.objective,
            model_factory=job.model_factory,
            validation=job.validation,
            tracking=tracking,
            run_id=tracker.run_id,
            fail_once=job.fail_once,
            evaluate=job.evaluate,
        )
        for line in job.banner:
            log.info(line, extra=logs.stage(job.stage))
        best, result = run_loop(cfg, tc, spec, job.rows, job.run_name, job.out)
        metrics = dict(result.metrics or {})
        version = deliver(tracker, best, metrics, job)
    return TrainResult(job.out, metrics, best, tracker.run_id, version)


def deliver(tracker: Tracker, best: dict[str, Any], last: dict[str, Any], job: TrainingJob) -> str | None:
    """Record how the run ended beside the model; log and register it only when it beats the base model.

    `best` is the best checkpoint's metrics (step 0 is the base model), `last` the final evaluation's.
    A run whose best is step 0 delivers the base model (so downstream steps still have a model) and
    says loudly that training did not help; registering it as a candidate would present the base
    model as a trained result. Returns the registry version, or None when nothing was registered.
    """
    improved = beats_base(best)
    status = {
        "improved": improved,
        "best_step": best["step"],
        "best_val_score": best["val_score"],
        "base_val_score": best.get("base_val_score"),
        "last_step": last.get("step"),
        "last_val_score": last.get("val_score"),
    }
    (job.out / STATUS_FILE).write_text(json.dumps(status, indent=2) + "\n")
    tracker.set_tags({"improved": str(improved).lower()})
    tracker.log_metrics({f"best_{k}": v for k, v in best.items() if k.startswith("val_")}, step=best["step"])
    if not improved:
        log.warning(
            "NO IMPROVEMENT: no trained step beat the base model on validation by the `training.improvement` rule "
            "(base %.3f, last step %s: %.3f; lower is better). %s holds the base model unchanged and nothing was "
            "registered.",
            status["base_val_score"],
            status["last_step"],
            status["last_val_score"],
            job.out,
            extra=logs.stage(job.stage),
        )
        return None
    log.info(
        "best step %s: validation %.3f vs base %.3f (last step %s: %.3f)",
        best["step"],
        best["val_score"],
        status["base_val_score"],
        status["last_step"],
        status["last_val_score"],
        extra=logs.stage(job.stage),
    )
    tracker.log_artifact(job.out, job.artifact)
    return tracker.register_model(job.artifact, job.register_name, job.register_alias)


def absolute_tracking(cfg: RunConfig) -> TrackingConfig:
    """Tracking with absolute locations: Ray workers run in other directories but must log to the same store."""
    return cfg.tracking.model_copy(
        update={
            "tracking_uri": tracking_uri(cfg.tracking),
            "artifact_location": str(Path(cfg.tracking.artifact_location).resolve()),
        }
    )


def run_loop(
    cfg: RunConfig, tc: TrainingConfig, spec: LoopSpec, train_rows: pd.DataFrame, label: str, out: Path
) -> tuple[dict[str, Any], Any]:
    """Fit `spec` with a TorchTrainer and copy the best checkpoint's model to `out`; returns (best, result).

    The training rows go into Ray's object store once and every worker draws its slice of the seeded
    global batches from them (`loop.global_batches`); restore from the last checkpoint on worker
    failure; only the best checkpoint kept (the base model's, step 0, when nothing beats it).
    """
    import ray
    from ray.train import CheckpointConfig, FailureConfig, LoggingConfig, ScalingConfig
    from ray.train import RunConfig as RayRunConfig
    from ray.train.torch import TorchTrainer

    run_name = f"{cfg.name}-{label}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"spec": spec, "rows": ray.put(train_rows.reset_index(drop=True))},
        scaling_config=ScalingConfig(
            num_workers=tc.num_workers, use_gpu=tc.use_gpu, resources_per_worker={"CPU": tc.cpus_per_worker}
        ),
        run_config=RayRunConfig(
            name=run_name.replace(":", "-"),
            storage_path=str(Path(cfg.run_dir, "ray").resolve()),
            failure_config=FailureConfig(max_failures=tc.max_failures),
            checkpoint_config=CheckpointConfig(
                num_to_keep=1, checkpoint_score_attribute=CANDIDATE_SCORE, checkpoint_score_order="min"
            ),
            # Ray Train V2's RunConfig (the one in use) takes it; mypy reads the V1 class behind `ray.train`
            logging_config=LoggingConfig(log_level=logs.ray_level()),  # type: ignore[call-arg]
        ),
    )
    result = trainer.fit()
    best_checkpoint, best = best_model(result)
    _copy_model(best_checkpoint, out)
    return best, result


def _copy_model(checkpoint: Any, out: Path) -> None:
    """Copy the checkpoint's sentence-transformers directory to `out` (replacing an older model)."""
    with checkpoint.as_directory() as directory:
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(Path(directory) / MODEL_DIR, out)
