"""Tables the way the papers print them (models as rows), on disk and in MLflow.

Each suite gets `<out>/<suite>/`: `<suite>.csv` (each metric with its `_ci_low` / `_ci_high`
columns) and `<suite>.md` (cells `value [low, high]`, then the suite's notes), one CSV per detail
table (e.g. each model's aspect correlation matrix), and every number is logged to MLflow as
`<suite>/<model>/<metric>` (and `..._ci_low`, `..._ci_high`) so runs can be compared in the UI.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from semcse.core import storage
from semcse.core.config import EvaluationConfig
from semcse.core.tracking import Tracker
from semcse.stages.evaluation.results import SuiteResult


def markdown_table(table: pd.DataFrame, digits: int = 3) -> str:
    """A GitHub-flavoured markdown table; the index (model names) becomes the first column."""
    header = [str(table.index.name or "model"), *map(str, table.columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * len(table.columns)) + "|"]
    for name, row in table.iterrows():
        cells = [f"{v:.{digits}f}" if isinstance(v, float) else str(v) for v in row.tolist()]
        lines.append("| " + " | ".join([str(name), *cells]) + " |")
    return "\n".join(lines)


def with_intervals(result: SuiteResult, digits: int = 3) -> pd.DataFrame:
    """The table as text cells `value [low, high]`; a ↓ marks metrics where lower is better."""
    table, intervals = result.table, result.intervals
    cells = {
        f"{metric}{' ↓' if metric in result.lower_is_better else ''}": {
            model: _cell(table.at[model, metric], intervals, str(model), str(metric), digits) for model in table.index
        }
        for metric in table.columns
    }
    return pd.DataFrame(cells, index=table.index)


def _cell(value: Any, intervals: pd.DataFrame, model: str, metric: str, digits: int) -> str:
    if pd.isna(value):
        return "–"
    low, high = (float(intervals[f"{metric}_ci_{end}"][model]) for end in ("low", "high"))
    if pd.isna(low):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def paired_table(result: SuiteResult, digits: int = 3) -> pd.DataFrame | None:
    """Each model minus the first (the reference) on every metric, paired: `+0.012 [+0.004, +0.020] better`."""
    models = list(result.estimates)
    if len(models) < 2:
        return None
    rows = {}
    for model in models[1:]:
        rows[f"{model} − {models[0]}"] = {
            metric: f"{d.difference:+.{digits}f} "
            + (
                "(no interval)"
                if d.verdict == "no interval"
                else f"[{d.low:+.{digits}f}, {d.high:+.{digits}f}] {d.verdict}"
            )
            for metric, d in result.differences(model, models[0]).items()
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def terminal_text(result: SuiteResult) -> str:
    """What `semcse evaluate` and the pipeline print for a suite: the table, the paired differences, the notes."""
    parts = [markdown_table(with_intervals(result))]
    paired = paired_table(result)
    if paired is not None:
        parts += [
            f"{result.name}: paired differences (same bootstrap draws):",
            markdown_table(paired.rename_axis("models")),
        ]
    return "\n".join(parts + [f"  {note}" for note in result.notes])


def suite_markdown(result: SuiteResult) -> str:
    parts = [f"## {result.name}", "", markdown_table(with_intervals(result))]
    paired = paired_table(result)
    if paired is not None:
        parts += [
            "",
            "### paired differences (same bootstrap draws)",
            "",
            markdown_table(paired.rename_axis("models")),
        ]
    for name, detail in result.details.items():
        parts += ["", f"### {name}", "", markdown_table(detail)]
    if result.notes:
        parts += ["", *(f"- {note}" for note in result.notes)]
    return "\n".join(parts) + "\n"


def write_report(
    result: SuiteResult, out: str | Path, cfg: EvaluationConfig | None = None, tracker: Tracker | None = None
) -> str:
    """Write the suite's CSV, markdown and detail CSVs (and, with `cfg.plots`, its plots) to `<out>/<suite>/`,
    a directory or a storage URI, written whole; log them to `tracker`. Returns where they went."""
    from semcse.stages.evaluation.plots import write_plots

    location = storage.join(out, result.name)
    with storage.staged(location) as directory:
        full_table(result).rename_axis("model").to_csv(directory / f"{result.name}.csv")
        (directory / f"{result.name}.md").write_text(suite_markdown(result), encoding="utf-8")
        for name, detail in result.details.items():
            detail.to_csv(directory / f"{safe_name(name)}.csv")
        if cfg is not None and cfg.plots:
            write_plots(result, directory, cfg.tsne_points, cfg.seed)
        if tracker is not None:
            log_result(result, directory, tracker)
    return location


def full_table(result: SuiteResult) -> pd.DataFrame:
    """Each metric followed by its interval bounds, models as rows."""
    table, intervals = result.table, result.intervals
    columns = [c for metric in table.columns for c in (metric, f"{metric}_ci_low", f"{metric}_ci_high")]
    return table.join(intervals)[columns]


def log_result(result: SuiteResult, directory: Path, tracker: Tracker) -> None:
    """Every table cell and detail cell as an MLflow metric, and the suite's directory as artifacts."""
    values = {
        f"{result.name}/{safe_name(str(model))}/{safe_name(str(metric))}": float(value)
        for model, row in full_table(result).iterrows()
        for metric, value in row.items()
        if pd.notna(value)
    }
    for name, detail in result.details.items():
        values |= {
            f"{result.name}/{safe_name(name)}/{safe_name(str(r))}/{safe_name(str(c))}": float(v)
            for r, row in detail.iterrows()
            for c, v in row.items()
            if pd.notna(v)
        }
    tracker.log_metrics(values)
    tracker.log_artifact(directory, artifact_path=result.name)


def safe_name(name: str) -> str:
    """MLflow metric keys and file names allow letters, digits and `_-. :/`; anything else becomes `_`."""
    return re.sub(r"[^A-Za-z0-9_\-. :]+", "_", name)
