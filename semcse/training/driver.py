"""The driver side every training run shares: one MLflow run, one TorchTrainer fit, one delivery.

An encoder (`trainer.train`, also each aspect encoder of `aspects.train_aspects`) and the unified
model (`distill.distill`) differ in their data, objective, model and validation, and in nothing
else: each starts a tracker, logs its settings, builds the workers' `LoopSpec`, says what is about
to run, fits a TorchTrainer, copies the best checkpoint's model to its output directory and
registers it only when it beat the base model. `fit_and_deliver` is that sequence, once; a driver
describes its run as a `TrainingJob`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from semcse import logs, storage
from semcse.config import ConfigError, RunConfig, TrainingConfig
from semcse.data.shards import content_key
from semcse.tracking import Tracker
from semcse.training.checkpoints import CANDIDATE_SCORE, MODEL_DIR, beats_base, best_model
from semcse.training.loop import FailOnce, LoopSpec, train_loop
from semcse.training.objective import Objective
from semcse.training.validation import Validated, validate

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
    out: str  # where the delivered model goes: a directory or a storage URI
    artifact: str  # MLflow artifact path of the delivered model
    register_name: str
    register_alias: str | None
    banner: list[str] = field(default_factory=list)
    validate: Callable[[Any, Any], Validated] = validate
    fail_once: FailOnce | None = None


@dataclass
class TrainResult:
    """What a finished run delivers: the model directory, the last and best metrics, and its registry version."""

    model_dir: str
    metrics: dict[str, Any]
    best: dict[str, Any]
    run_id: str | None
    model_version: str | None

    @property
    def improved(self) -> bool:
        return beats_base(self.best)


def fit_and_deliver(cfg: RunConfig, tc: TrainingConfig, job: TrainingJob) -> TrainResult:
    """Tracker → spec → banner → fit → deliver; the model lands in `job.out` whatever the outcome."""
    from semcse.runtime import connect

    cfg = connect(cfg)
    tracking = cfg.tracking
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
            validate=job.validate,
        )
        for line in job.banner:
            log.info(line, extra=logs.stage(job.stage))
        result = run_loop(cfg, tc, spec, job.rows, job.run_name)
        best_checkpoint, best = best_model(result)
        metrics = dict(result.metrics or {})
        with best_checkpoint.as_directory() as directory:
            version = deliver(tracker, Path(directory) / MODEL_DIR, best, metrics, job)
    return TrainResult(job.out, metrics, best, tracker.run_id, version)


def deliver(tracker: Tracker, model: Path, best: dict[str, Any], last: dict[str, Any], job: TrainingJob) -> str | None:
    """Copy the best step's model (`model`, a local directory) to `job.out` with how the run ended beside it;
    log and register it only when it beats the base model.

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
        # how far each moved from the base model's similarities on validation (None where validation cannot say)
        "best_val_base_drift": best.get("val_base_drift"),
        "last_val_base_drift": last.get("val_base_drift"),
    }
    with storage.staged(job.out) as staged:
        shutil.copytree(model, staged, dirs_exist_ok=True)
        (staged / STATUS_FILE).write_text(json.dumps(status, indent=2) + "\n")
    tracker.set_tags({"improved": str(improved).lower()})
    tracker.log_metrics({f"best_{k}": v for k, v in best.items() if k.startswith("val_")}, step=best["step"])
    if not improved:
        log.warning(
            "NO IMPROVEMENT: no trained step beat the base model on validation by the `training.improvement` rule "
            "and the guards (each evaluation's line says why; base %.3f, last step %s: %.3f; lower is better). %s "
            "holds the base model unchanged and nothing was registered.",
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
    tracker.log_artifact(model, job.artifact)
    return tracker.register_model(job.artifact, job.register_name, job.register_alias)


def worker_bundle(tc: TrainingConfig) -> dict[str, float]:
    """What one training worker reserves: its CPUs, a GPU when it trains on one, and `resources_per_worker`."""
    return {"CPU": tc.cpus_per_worker, **({"GPU": 1.0} if tc.use_gpu else {}), **tc.resources_per_worker}


# Settings a resumed run may change without making its checkpoints another run's: how long it goes on,
# how often it evaluates and logs, how many failures it survives.
RESUMABLE_CHANGES = {"max_steps", "eval_every", "eval_every_minutes", "patience", "log_every", "max_failures"}


def run_name(cfg: RunConfig, tc: TrainingConfig, label: str, rows: pd.DataFrame) -> str:
    """The Ray Train run's name: the same for a rerun of the same training, different for any other.

    Ray Train resumes a run whose name it finds under the storage path from that run's latest
    checkpoint, so a job killed mid-training (the driver, or the whole cluster) continues where it
    stopped when it is submitted again. The name hashes what training learns from: the training
    settings (but those in `RESUMABLE_CHANGES`) and the training rows.
    """
    rows_hash = pd.util.hash_pandas_object(rows.astype(str), index=False).to_numpy().tobytes()
    settings = {"label": label, "training": tc.model_dump(exclude=RESUMABLE_CHANGES), "run": cfg.name}
    digest = content_key([hashlib.blake2b(rows_hash, digest_size=8).hexdigest()], settings, length=12)
    return f"{cfg.name}-{label}-{digest}".replace(":", "-")


def run_loop(cfg: RunConfig, tc: TrainingConfig, spec: LoopSpec, train_rows: pd.DataFrame, label: str) -> Any:
    """Fit `spec` with a TorchTrainer; returns Ray Train's result.

    The training rows go into Ray's object store once and every worker draws its slice of the seeded
    global batches from them (`loop.global_batches`); restore from the last checkpoint on worker
    failure; only the best checkpoint kept (the base model's, step 0, when nothing beats it).
    Checkpoints go under `<run_dir>/ray`, which may be a storage URI every node reaches (Ray Train
    uploads each worker's files there and downloads them on restore).
    """
    import ray
    from ray.train import CheckpointConfig, FailureConfig, LoggingConfig, ScalingConfig
    from ray.train import RunConfig as RayRunConfig
    from ray.train.torch import TorchTrainer

    filesystem, checkpoints = storage.filesystem(storage.join(cfg.run_dir, "ray"))
    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"spec": spec, "rows": ray.put(train_rows.reset_index(drop=True))},
        scaling_config=ScalingConfig(
            num_workers=tc.num_workers, use_gpu=tc.use_gpu, resources_per_worker=worker_bundle(tc)
        ),
        run_config=RayRunConfig(
            name=run_name(cfg, tc, label, train_rows),
            storage_path=checkpoints,
            storage_filesystem=filesystem,
            failure_config=FailureConfig(max_failures=tc.max_failures),
            checkpoint_config=CheckpointConfig(
                num_to_keep=1, checkpoint_score_attribute=CANDIDATE_SCORE, checkpoint_score_order="min"
            ),
            # Ray Train V2's RunConfig (the one in use) takes it; mypy reads the V1 class behind `ray.train`
            logging_config=LoggingConfig(log_level=logs.ray_level()),  # type: ignore[call-arg]
        ),
    )
    return trainer.fit()
