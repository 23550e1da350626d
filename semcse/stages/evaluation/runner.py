"""Run suites over models side by side: tables, plots and MLflow logging in one call.

This is the programmatic entry point (`semcse evaluate` is a thin shell around `evaluate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from semcse.core import storage
from semcse.core.config import ConfigError, RunConfig
from semcse.core.tracking import Tracker
from semcse.stages.embedding import ModelRef
from semcse.stages.evaluation import aspects, knn, semantic
from semcse.stages.evaluation.report import write_report
from semcse.stages.evaluation.results import SuiteResult


class Suite(Protocol):
    """A suite's `run`: its vectors go under `embeddings` (`<out>/embeddings` when None), its tables to `out`."""

    def __call__(
        self, models: list[ModelRef], data: Any, cfg: RunConfig, out: Any, embeddings: Any = None
    ) -> SuiteResult: ...


SUITES: dict[str, Suite] = {semantic.NAME: semantic.run, knn.NAME: knn.run, aspects.NAME: aspects.run}


def model_refs(models: Sequence[str | ModelRef]) -> list[ModelRef]:
    """Parse `[name=]ref[#pooling]` strings; display names must be unique (they are the table's rows)."""
    refs = [m if isinstance(m, ModelRef) else ModelRef.parse(m) for m in models]
    if not refs:
        raise ConfigError("no models to evaluate: pass --model (repeatable) or set evaluation.models")
    names = [r.name for r in refs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"models share the display name(s) {repeated}; name them with --model NAME=REF")
    return refs


def evaluate(
    suites: Sequence[str],
    models: Sequence[str | ModelRef],
    data: str | Path,
    out: str | Path,
    cfg: RunConfig | None = None,
    embeddings: str | None = None,
) -> dict[str, SuiteResult]:
    """Run each suite on every model; write `<out>/<suite>/` (CSV, markdown, PNGs) and log to MLflow.

    The vectors go to `embeddings` (default `<out>/embeddings`): the pipeline names its run's store there, so that
    its index and map steps reuse the papers the knn suite embedded with the trained model."""
    cfg = cfg or RunConfig()
    unknown = [s for s in suites if s not in SUITES]
    if unknown:
        raise ConfigError(f"unknown suite(s) {unknown}; expected some of {sorted(SUITES)}")
    refs = model_refs(models)
    out = str(out)
    results: dict[str, SuiteResult] = {}
    with Tracker.start(cfg.tracking, run_name=f"evaluate-{'-'.join(suites)}", tags={"stage": "evaluate"}) as tracker:
        tracker.log_params(
            {"data": str(data), "models": [str(r.ref) for r in refs], "model_names": [r.name for r in refs]}
            | {f"evaluation.{k}": v for k, v in cfg.evaluation.model_dump().items() if k not in {"models", "data"}}
        )
        for suite in suites:
            result = SUITES[suite](refs, data, cfg, out, embeddings)
            write_report(result, out, cfg.evaluation, tracker)
            results[suite] = result
    return results


@dataclass
class EvaluationRun:
    """What `semcse evaluate` ran: where the tables went, each decoder's table and each suite's result."""

    out: str
    decoders: dict[str, dict[str, Any]] = field(default_factory=dict)
    suites: dict[str, SuiteResult] = field(default_factory=dict)


def run_evaluation(cfg: RunConfig) -> EvaluationRun:
    """The `evaluation` section run as configured: the decoder suite on each model as a decoder, the other
    suites on the models side by side (on a connected Ray cluster), all under `evaluation.out`."""
    from semcse.core.runtime import connect
    from semcse.stages.evaluation.decoder_eval import evaluate_decoder

    ev = cfg.evaluation
    run = EvaluationRun(ev.out or storage.join(cfg.run_dir, "evaluation"))
    if "decoder" in ev.suites:
        if not ev.models:
            raise ConfigError("the decoder suite needs --model DECODER (a directory or models:/semcse-decoder@alias)")
        for ref in ev.models:
            where = storage.join(run.out, storage.basename(ref.replace(":", "_").replace("@", "_")))
            try:
                run.decoders[ref] = evaluate_decoder(cfg, ref, where)
            except ValueError as exc:
                raise ConfigError(str(exc)) from exc
    suites = [s for s in ev.suites if s != "decoder"]
    if suites:
        if not ev.data:
            raise ConfigError("no data to evaluate on: pass --data PATH or set evaluation.data")
        run.suites = evaluate(suites, ev.models, ev.data, run.out, connect(cfg))
    return run
