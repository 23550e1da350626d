"""The driver side of training: check everything, prepare the data, run the TorchTrainer, deliver.

`prepare` does all the checking a run needs before any Ray work is scheduled (model loads, pooling
and head are valid, there are pairs to train on, the batch fits the data, validation is possible),
so a misconfiguration costs seconds and prints one clear message instead of failing inside a
worker. `train` then runs the loop and saves the best checkpoint's encoder as a
sentence-transformers directory. The base model is candidate zero: when a trained step beats it on
validation, the best step is logged to MLflow and registered under `training.register_name`; when
none does, the run says so, delivers the base model unchanged and registers nothing.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from semcse import logs
from semcse.config import ConfigError, RunConfig, TrackingConfig, TrainingConfig
from semcse.data.io import read_corpus
from semcse.data.modes import needs_texts, pair_mode
from semcse.data.positives import build_pair_rows
from semcse.data.split import frame_splits
from semcse.models.scratch import SCRATCH_PREFIX, build_scratch_encoder, is_scratch
from semcse.training.checkpoints import CANDIDATE_SCORE, MODEL_DIR, beats_base, best_model
from semcse.training.engine import build_encoder
from semcse.training.loop import FailOnce, LoopSpec, train_loop
from semcse.training.objective import PairObjective
from semcse.training.validation import ValidationSet, build_validation_set

FAIL_ONCE_ENV = "SEMCSE_FAIL_ONCE"


class TrainingSetupError(ConfigError):
    """A run that cannot start (bad model, no data, batch too large); raised before any Ray work."""


STATUS_FILE = "semcse_training.json"


@dataclass
class PreparedData:
    """Training rows (one per usable abstract), the validation texts, and the run's resolved training config.

    `training` differs from the run config's where preparation resolved something, e.g. a
    `scratch:` base model built into the run directory.
    """

    train_rows: pd.DataFrame
    validation: ValidationSet
    counts: dict[str, int]
    training: TrainingConfig
    notes: list[str] = field(default_factory=list)


@dataclass
class TrainResult:
    """What a finished run delivers."""

    model_dir: Path
    metrics: dict[str, Any]
    best: dict[str, Any]
    run_id: str | None
    model_version: str | None

    @property
    def improved(self) -> bool:
        return beats_base(self.best)


def prepare(cfg: RunConfig) -> PreparedData:
    """Validate the configuration against the model and the data; build train rows and the validation set."""
    tc = cfg.training
    if not cfg.corpus.path:
        raise TrainingSetupError("corpus.path is not set; pass --corpus PATH (a validated corpus)")
    corpus = read_corpus(cfg.corpus.path, cfg.corpus)
    split = frame_splits(corpus, cfg.corpus)
    train_corpus = corpus[split == "train"]
    if is_scratch(tc.base_model):
        tc = _build_scratch(cfg, train_corpus)
    notes: list[str] = []
    try:
        build_encoder(tc, notes)
    except (OSError, ValueError) as exc:
        raise TrainingSetupError(
            f"cannot build the encoder from training.base_model={tc.base_model!r}: {exc}"
        ) from exc
    texts = _read_texts(tc.texts, tc.pairs, cfg.generation.combine_settings) if needs_texts(tc.pairs) else None
    if tc.train_fraction < 1:
        train_corpus = train_corpus.sample(frac=tc.train_fraction, random_state=tc.seed)
    train_rows = build_pair_rows(tc.pairs, train_corpus, texts, tc)
    val_rows = build_pair_rows(tc.pairs, corpus[split == "val"], texts, tc)
    validation = build_validation_set(
        tc.pairs,
        val_rows,
        tc.val_size,
        tc.similarity,
        tc.seed,
        tc.max_length,
        labels=_labels(corpus, cfg) if tc.label_guard else None,
        label_k=cfg.evaluation.agreement_k,
    )
    counts = {
        "corpus_rows": len(corpus),
        "train_abstracts": len(train_corpus),
        "train_rows": len(train_rows),
        "val_abstracts": int((split == "val").sum()),
        "val_rows": len(validation),
        "val_labelled": len(validation.labels),
    }
    _check_sizes(tc, counts)
    if validation.labels:
        notes.append(
            f"label guard: a step whose label agreement ({cfg.corpus.label_col!r}, {len(validation.labels)} "
            "validation abstracts) is significantly below the base model's is never delivered"
        )
    return PreparedData(train_rows, validation, counts, tc, notes)


def _labels(corpus: pd.DataFrame, cfg: RunConfig) -> pd.Series | None:
    """The corpus's labels by id for the label guard, or None when the corpus names no label column."""
    column = cfg.corpus.label_col
    if not column:
        return None
    if column not in corpus.columns:
        raise TrainingSetupError(
            f"corpus.label_col={column!r} is not a column of {cfg.corpus.path} (columns: {list(corpus.columns)}); "
            "fix the name, or unset it (the label guard then checks pair ranks only)"
        )
    labels = corpus.set_index("id")[column]
    return labels[labels.notna() & (labels.astype(str).str.strip() != "")].astype(str)


def _build_scratch(cfg: RunConfig, train_corpus: pd.DataFrame) -> TrainingConfig:
    """Build `scratch:<architecture>` from the training split's text into the run directory; point the run at it.

    Only training abstracts shape the vocabulary, so nothing of the validation or test split leaks in.
    """
    tc = cfg.training
    out = Path(cfg.run_dir, "scratch", f"{tc.base_model.removeprefix(SCRATCH_PREFIX)}-seed{tc.seed}").resolve()
    texts = (train_corpus["title"].fillna("") + " " + train_corpus["abstract"].fillna("")).tolist()
    try:
        build_scratch_encoder(tc.base_model, texts, out, seed=tc.seed)
    except ValueError as exc:
        raise TrainingSetupError(str(exc)) from exc
    return tc.model_copy(update={"base_model": str(out)})


def _read_texts(path: str | None, mode: str, combine: bool) -> pd.DataFrame:
    from semcse.data.generated import GeneratedDataError, read_texts

    if not path:
        raise TrainingSetupError(f"pairs mode {mode!r} trains on generated texts; pass --texts DIR")
    try:
        return read_texts(path, combine)
    except GeneratedDataError as exc:
        raise TrainingSetupError(str(exc)) from exc


def _check_sizes(tc: TrainingConfig, counts: dict[str, int]) -> None:
    mode = pair_mode(tc.pairs)
    count = "≥2" if mode.min_texts >= 2 else "at least one"
    if mode.source == "crops":
        sentences = f"{tc.crop_sentences} sentences of {tc.min_sentence_chars}–{tc.max_sentence_chars} chars"
        what = f"{count} crop(s) of {sentences}"
    else:
        what = f"{count} {'applicable' if mode.source == 'aspect' else 'generated'} summaries"
    if counts["train_rows"] == 0:
        raise TrainingSetupError(
            f"no training pairs after filtering: 0 of {counts['train_abstracts']} training abstracts have {what} "
            f"(pairs mode {tc.pairs!r})"
        )
    if counts["train_rows"] < tc.batch_size:
        raise TrainingSetupError(
            f"batch_size {tc.batch_size} is larger than the training data: {counts['train_rows']} usable abstracts; "
            "lower training.batch_size"
        )
    if counts["val_rows"] < 2:
        raise TrainingSetupError(
            f"validation needs ≥2 held-out abstracts with {what}, found {counts['val_rows']} "
            f"(of {counts['val_abstracts']} in the val split); raise corpus.val_fraction"
        )


def train(cfg: RunConfig, prepared: PreparedData | None = None) -> TrainResult:
    """Check, train on Ray Train + DeepSpeed, save the best encoder under `training.out`; register it if it won."""
    from semcse.runtime import init_ray
    from semcse.tracking import Tracker

    prepared = prepared or prepare(cfg)
    tc = prepared.training
    init_ray(cfg.ray)
    tracking = absolute_tracking(cfg)
    tracker = Tracker.start(tracking, run_name=f"train-{tc.pairs}", tags={"stage": "train", "pairs": tc.pairs})
    with tracker:
        tracker.log_params(tc, prefix="training.")
        recipe = tc.recipe()
        tracker.log_params({f"recipe.{k}": v for k, v in recipe.items()})
        tracker.log_params({"corpus.path": cfg.corpus.path, **{f"data.{k}": v for k, v in prepared.counts.items()}})
        spec = LoopSpec(
            cfg=tc,
            objective=PairObjective(tc),
            model_factory=functools.partial(build_encoder, tc),
            validation=prepared.validation,
            tracking=tracking,
            run_id=tracker.run_id,
            fail_once=FailOnce.from_env(os.environ.get(FAIL_ONCE_ENV)),
        )
        described = ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}" for k, v in recipe.items())
        print(
            f"[semcse train] {tc.pairs} pairs: {prepared.counts['train_rows']} training abstracts, "
            f"{prepared.counts['val_rows']} validation; {tc.num_workers} workers × {tc.worker_batch_size} pairs, "
            f"ZeRO-{tc.zero_stage}, {tc.max_steps} steps; {described}",
            flush=True,
        )
        for note in prepared.notes:
            print(f"[semcse train] note: {note}", flush=True)
        out = Path(tc.out or Path(cfg.run_dir) / "encoder")
        best, result = run_loop(cfg, tc, spec, prepared.train_rows, f"train-{tc.pairs}", out)
        version = deliver(
            tracker, best, dict(result.metrics or {}), out, "encoder", tc.register_name, tc.register_alias
        )
    return TrainResult(out, dict(result.metrics or {}), best, tracker.run_id, version)


def deliver(
    tracker: Any, best: dict[str, Any], last: dict[str, Any], out: Path, artifact: str, name: str, alias: str | None
) -> str | None:
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
    (out / STATUS_FILE).write_text(json.dumps(status, indent=2) + "\n")
    tracker.set_tags({"improved": str(improved).lower()})
    tracker.log_metrics({f"best_{k}": v for k, v in best.items() if k.startswith("val_")}, step=best["step"])
    if not improved:
        print(
            f"[semcse train] NO IMPROVEMENT: no trained step beat the base model on validation by the "
            f"`training.improvement` rule (base {status['base_val_score']:.3f}, last step {status['last_step']}: "
            f"{status['last_val_score']:.3f}; lower is better). {out} holds the base model unchanged and nothing "
            "was registered.",
            flush=True,
        )
        return None
    print(
        f"[semcse train] best step {best['step']}: validation {best['val_score']:.3f} vs base "
        f"{status['base_val_score']:.3f} (last step {status['last_step']}: {status['last_val_score']:.3f})",
        flush=True,
    )
    tracker.log_artifact(out, artifact)
    return tracker.register_model(artifact, name, alias)


def absolute_tracking(cfg: RunConfig) -> TrackingConfig:
    """Tracking with absolute locations: Ray workers run in other directories but must log to the same store."""
    from semcse.tracking import tracking_uri

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

    Shared by every objective (pairs, distillation): the training rows go into Ray's object store
    once and every worker draws its slice of the seeded global batches from them
    (`loop.global_batches`); restore from the last checkpoint on worker failure; only the best
    checkpoint kept (the base model's, step 0, when nothing beats it).
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
            logging_config=LoggingConfig(log_level=logs.ray_level()),
        ),
    )
    result = trainer.fit()
    best_checkpoint, best = best_model(result)
    _deliver(best_checkpoint, out)
    return best, result


def _deliver(checkpoint: Any, out: Path) -> None:
    """Copy the checkpoint's sentence-transformers directory to `out` (replacing an older model)."""
    with checkpoint.as_directory() as directory:
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(Path(directory) / MODEL_DIR, out)
