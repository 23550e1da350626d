"""One trial: its RunConfig, a TorchTrainer fit through the ordinary training entry point, its suites.

The trial function runs inside a Tune trial actor (the Ray Train V2 + Tune pattern) and calls
`training.trainer.train` (or `training.distill.distill` for SemCSE-Multi), which builds and fits the
TorchTrainer, so a trial trains exactly like `semcse train` does; Tune's `TuneReportCallback` on that
TorchTrainer passes each validation report on to Tune as it comes. Tune starts trials in their own
working directory, so the driver resolves every location of the base config (`runtime.connect`)
before trials see it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from semcse.core import storage
from semcse.core.config import RunConfig, with_overrides

if TYPE_CHECKING:
    from semcse.stages.training.distill import DistillResult
    from semcse.stages.training.driver import TrainResult

LOWER_IS_BETTER_KEY = "lower_is_better"
TRAIN_RUN_KEY = "train_run_id"
DELIVERED_STEP = "best_step"  # the step a trial delivered; 0 is its base model (no trained step beat it)


@dataclass(frozen=True)
class TrialSpec:
    """What every trial shares (pickled into the trial actors by `tune.with_parameters`)."""

    study: str
    trainer: str
    base: dict[str, Any]
    suites: tuple[str, ...]
    trials_dir: str


def trial_config(spec: TrialSpec, params: dict[str, Any], trial_id: str) -> RunConfig:
    """Base config + this trial's parameters, with its own output directories and registry entry."""
    out = storage.join(spec.trials_dir, trial_id)
    own = {
        "run_dir": out,
        "training.out": storage.join(out, "encoder"),
        "multi.out": storage.join(out, "unified"),
        **{f"{section}.register_name": f"semcse-tune-{spec.study}" for section in ("training", "multi")},
        **{f"{section}.register_alias": f"trial-{trial_id}" for section in ("training", "multi")},
    }
    return with_overrides(RunConfig.model_validate(spec.base), params | own)


def run_trial(params: dict[str, Any], spec: TrialSpec) -> None:
    """The Tune function: train (reports relayed live), evaluate the delivered model, report final metrics."""
    from ray import tune
    from ray.tune.integration.ray_train import TuneReportCallback

    trial_id = tune.get_context().get_trial_id()
    cfg = trial_config(spec, params, trial_id)
    # every validation report of the trial's TorchTrainer reaches Tune while it trains (what ASHA stops trials on)
    relay = [TuneReportCallback()] if cfg.training.launcher == "ray" else []
    result: TrainResult | DistillResult
    if spec.trainer == "multi":
        from semcse.stages.training.distill import distill

        result = distill(cfg, relay)
    else:
        from semcse.stages.training.trainer import train

        result = train(cfg, ray_callbacks=relay)
    final = {k: v for k, v in result.best.items() if k.startswith("val_")} | {DELIVERED_STEP: result.best["step"]}
    suite_metrics, lower = evaluate_model(cfg, result.model_dir, spec.suites, storage.join(cfg.run_dir, "evaluation"))
    lower |= validation_lower_is_better(final)
    report = final | suite_metrics | {LOWER_IS_BETTER_KEY: ",".join(sorted(lower))}
    tune.report(report | ({TRAIN_RUN_KEY: result.run_id} if result.run_id else {}))


def validation_lower_is_better(keys: Iterable[str]) -> set[str]:
    """The validation metrics among `keys` where lower is better: every `val_*` (average ranks) but
    `validation.HIGHER_IS_BETTER`. Imported here, not at the top: validation brings torch, and the ablation table,
    which asks this for trials stopped before their final report, is pandas alone."""
    from semcse.stages.training.validation import HIGHER_IS_BETTER

    return {key for key in keys if key.startswith("val_") and key not in HIGHER_IS_BETTER}


def evaluate_model(
    cfg: RunConfig, model_dir: str, suites: tuple[str, ...], out: str
) -> tuple[dict[str, float], set[str]]:
    """Each suite's row for this model as `<suite>/<metric>`, and which of them are lower-is-better.

    A trial's model is evaluated alone, so the semantic suite gives it no `overall` or `improvement` (figures
    relative to the other models of a table): trials compare on the raw columns. On the training corpus,
    trials are scored on its validation split: choosing a trial must not look at the test split; separate evaluation
    data is scored whole unless the study chose a split.
    """
    from semcse.stages.evaluation.inputs import scoring_config
    from semcse.stages.evaluation.report import write_report
    from semcse.stages.evaluation.runner import SUITES, model_refs

    data = cfg.evaluation.data or cfg.corpus.path
    cfg = scoring_config(cfg, "val")
    metrics: dict[str, float] = {}
    lower: set[str] = set()
    for name in suites:
        result = SUITES[name](model_refs([f"trial={model_dir}"]), data, cfg, out)
        write_report(result, out)
        row = result.table.loc["trial"]
        metrics |= {f"{name}/{metric}": float(value) for metric, value in row.items()}
        lower |= {f"{name}/{metric}" for metric in result.lower_is_better}
    return metrics, lower


def check_base(cfg: RunConfig, trainer: str) -> None:
    """Fail before any trial on what every trial would hit: no model, no corpus, no pairs, batch too large."""
    if trainer == "multi":
        from semcse.stages.training.aspect_encoders import stage_training
        from semcse.stages.training.distill import prepare_distill

        prepare_distill(cfg, stage_training(cfg, cfg.multi.distill, "multi.distill"))
    else:
        from semcse.stages.training.trainer import prepare

        prepare(cfg)
