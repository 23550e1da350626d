"""The driver side every training run shares: one MLflow run, one fit of the loop, one delivery.

An encoder (`trainer.train`, also each aspect encoder of `aspects.train_aspects`), the unified model
(`distill.distill`) and a decoder (`decoder.run`) differ in their data, objective, model and validation, and in
nothing else: each starts a tracker, logs its settings, builds the workers' `LoopSpec`, says what is about to run,
fits the loop (on Ray Train, or in this process: `training.launcher`), copies the best checkpoint's model to its
output directory and registers it only when it beat the candidate it started from. `fit_and_deliver` is that
sequence, once; a driver describes its run as a `TrainingJob`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from semcse.core import logs, storage
from semcse.core.config import ConfigError, RunConfig, TrainingConfig
from semcse.core.data.shards import content_key
from semcse.core.tracking import Tracker
from semcse.stages.training.checkpoints import MODEL_DIR, Outcome, beats_base
from semcse.stages.training.loop import LoopSpec, StepCallback
from semcse.stages.training.objective import Objective
from semcse.stages.training.validation import Validated, validate

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
    callbacks: tuple[StepCallback, ...] = ()  # observe every step in the workers (tests inject failures so)


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


def fit_and_deliver(
    cfg: RunConfig, tc: TrainingConfig, job: TrainingJob, ray_callbacks: Sequence[Any] = ()
) -> TrainResult:
    """Tracker → spec → banner → fit → deliver; the model lands in `job.out` whatever the outcome.

    `ray_callbacks` go to Ray Train's controller (a Tune trial passes Tune's report callback); a local run has none.
    """
    cfg = connected(cfg, tc)
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
            validate=job.validate,
            callbacks=job.callbacks,
        )
        for line in job.banner:
            log.info(line, extra=logs.stage(job.stage))
        outcome = _fit(cfg, tc, spec, job.rows, run_name(cfg, tc, job.run_name, job.rows), ray_callbacks)
        with outcome.best_checkpoint() as directory:
            version = deliver(tracker, directory / MODEL_DIR, outcome.best, outcome.last, job)
    return TrainResult(job.out, outcome.last, outcome.best, tracker.run_id, version)


def connected(cfg: RunConfig, tc: TrainingConfig) -> RunConfig:
    """The run config with its locations resolved, and Ray joined or started where the run trains on it."""
    if tc.launcher == "local":
        from semcse.core import locations

        locations.check_before_ray(cfg)
        return locations.resolved(cfg)
    from semcse.core.runtime import connect

    return connect(cfg)


def _fit(
    cfg: RunConfig, tc: TrainingConfig, spec: LoopSpec, rows: pd.DataFrame, name: str, ray_callbacks: Sequence[Any]
) -> Outcome:
    """The loop on Ray Train, or in this process with its checkpoints under `<run_dir>/local/<name>`."""
    if tc.launcher == "ray":
        from semcse.stages.training.ray_train import run_on_ray

        return run_on_ray(cfg, tc, spec, rows, name, ray_callbacks)
    from semcse.stages.training.local import run_local

    return run_local(spec, rows.reset_index(drop=True), Path(storage.join(cfg.run_dir, "local", name)))


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


# Settings a resumed run may change without making its checkpoints another run's: how long it goes on,
# how often it evaluates and logs, how many failures it survives, and where it runs.
RESUMABLE_CHANGES = {
    "max_steps",
    "eval_every",
    "eval_every_minutes",
    "patience",
    "log_every",
    "max_failures",
    "launcher",
}


def run_name(cfg: RunConfig, tc: TrainingConfig, label: str, rows: pd.DataFrame) -> str:
    """The Ray Train run's name: the same for a rerun of the same training, different for any other.

    A run resumes from the latest checkpoint kept under its name (Ray Train's, or the local launcher's), so a job
    killed mid-training continues where it stopped when it is submitted again. The name hashes what training
    learns from: the training settings (but those in `RESUMABLE_CHANGES`), their recipe, and the training rows.
    """
    rows_hash = pd.util.hash_pandas_object(rows.astype(str), index=False).to_numpy().tobytes()
    # a mode's warm-up follows max_steps, which may change on resume (a warm-up the run sets is in its settings)
    recipe = {k: v for k, v in asdict(tc.recipe).items() if k != "warmup_steps"}
    training = tc.model_dump(exclude=RESUMABLE_CHANGES) | {"recipe": recipe}
    settings = {"label": label, "training": training, "run": cfg.name}
    digest = content_key([hashlib.blake2b(rows_hash, digest_size=8).hexdigest()], settings, length=12)
    return f"{cfg.name}-{label}-{digest}".replace(":", "-")
