"""Run suites over models side by side: tables, plots and MLflow logging in one call.

This is the programmatic entry point (`semcse evaluate` is a thin shell around `evaluate`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from semcse.config import ConfigError, RunConfig
from semcse.embedding import ModelRef
from semcse.evaluation import aspects, knn, semantic
from semcse.evaluation.report import write_report
from semcse.evaluation.results import SuiteResult
from semcse.tracking import Tracker

Suite = Callable[[list[ModelRef], Any, RunConfig, Any], SuiteResult]
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
) -> dict[str, SuiteResult]:
    """Run each suite on every model; write `<out>/<suite>/` (CSV, markdown, PNGs) and log to MLflow."""
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
            result = SUITES[suite](refs, data, cfg, out)
            write_report(result, out, cfg.evaluation, tracker)
            results[suite] = result
    return results
