"""The paper-style ablation table of a study: trials as rows, metrics as columns, the best of each marked.

Written as CSV (plain numbers, for further analysis) and markdown (best per column in bold, `↓` on
lower-is-better columns), plus a bar chart of the study's main metric per trial. Directions come from
the trials themselves (validation ranks and the suites' own lower-is-better sets), so a new suite
metric needs no change here. Each row also says which step its trial delivered (`best_step`, 0: the
base model, no trained step beat it on validation), which the study's `prefer` rule reads (`winner`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from semcse.core import storage
from semcse.orchestration.tuning.tracking import numeric_metrics
from semcse.orchestration.tuning.trial import DELIVERED_STEP, LOWER_IS_BETTER_KEY, validation_lower_is_better


@dataclass(frozen=True)
class TrialRow:
    """What the table needs of one trial: its id, searched parameters, final result and status."""

    trial_id: str
    params: dict[str, Any]
    result: dict[str, Any]
    status: str


@dataclass
class AblationTable:
    table: pd.DataFrame
    params: list[str]
    metrics: list[str]
    lower_is_better: set[str]

    def best(self) -> dict[str, str]:
        """Per metric column, the index of the best trial."""
        picks = {}
        for column in self.metrics:
            values = pd.to_numeric(self.table[column], errors="coerce")
            if values.notna().any():
                picks[column] = str(values.idxmin() if column in self.lower_is_better else values.idxmax())
        return picks

    def params_of(self, trial: str) -> dict[str, Any]:
        """A trial's searched values as plain Python values (the table holds numpy scalars), for logs and reports."""
        row = self.table.loc[trial]
        return {key: row[key].item() if hasattr(row[key], "item") else row[key] for key in self.params}

    def winner(
        self, metric: str, prefer: Mapping[str, str] | None = None, replicates: Sequence[str] = ()
    ) -> tuple[str, str] | None:
        """The trial a study chooses on validation, and why in words (None: no trial reported `metric`).

        Trials that differ only in `replicates` (e.g. `training.seed`) are runs of one recipe, whose `metric` is
        their mean; without replicates each trial is its own recipe. Without `prefer`, the recipe with the best
        `metric`. With it (parameter → "max" or "min"), among the recipes whose every run delivered a trained step,
        the preferred values in the order given, then the best `metric` (see `study.Study`); when none did, the
        best `metric` decides, and the reason says so. The trial returned is the chosen recipe's run with the best
        `metric`, the model its test-split report scores.
        """
        scores = pd.to_numeric(self.table[metric], errors="coerce") if metric in self.table else None
        if scores is None or scores.isna().all():
            return None
        lower = metric in self.lower_is_better
        steps = pd.to_numeric(self.table.get(DELIVERED_STEP, pd.Series(0, self.table.index)), errors="coerce")
        runs = self.table.assign(_score=scores, _trained=steps > 0)
        keys = [key for key in self.params if key not in replicates]
        groups = runs.groupby(keys, dropna=False, sort=False) if keys else [((), runs)]
        recipes = pd.DataFrame(
            [
                dict(zip(keys, key if isinstance(key, tuple) else (key,)))
                | {
                    "_score": group["_score"].mean(),
                    "_trained": bool(group["_trained"].all()),
                    "_run": group["_score"].idxmin() if lower else group["_score"].idxmax(),
                }
                for key, group in groups
                if group["_score"].notna().any()
            ]
        )
        over = ", ".join(replicates)
        best = str(recipes.sort_values("_score", ascending=lower)["_run"].iloc[0])
        best_said = f"the best mean {metric} over {over}" if replicates else f"the best {metric}"
        if not prefer:
            return best, best_said
        trained = recipes[recipes["_trained"]]
        if trained.empty:
            if replicates:
                return best, f"no recipe delivered a trained step in every run over {over}; {best_said}"
            return best, f"no trial delivered a trained step (each kept its base model); {best_said}"
        order = list(prefer)
        ranked = trained.sort_values([*order, "_score"], ascending=[*(prefer[k] == "min" for k in order), lower])
        said = ", ".join(f"the {'largest' if prefer[k] == 'max' else 'smallest'} {k}" for k in order)
        among = f"{len(trained)} of {len(recipes)} " + (
            f"recipes whose every run over {over} delivered a trained step"
            if replicates
            else "trials that delivered a trained step"
        )
        return str(ranked["_run"].iloc[0]), f"{said} of the {among}"

    def markdown(self, digits: int = 4) -> str:
        best = self.best()
        labels = [*self.params, "status", *([DELIVERED_STEP] if DELIVERED_STEP in self.table else [])]
        header = ["trial", *labels, *(f"{m} ↓" if m in self.lower_is_better else m for m in self.metrics)]
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * (len(labels) + 1)) + "|"]
        lines[-1] += "|".join(["---:"] * len(self.metrics)) + ("|" if self.metrics else "")
        for trial, row in self.table.iterrows():
            cells = [str(trial), *(_label(row[column]) for column in labels)]
            for metric in self.metrics:
                value = row[metric]
                text = "–" if pd.isna(value) else f"{value:.{digits}g}"
                cells.append(f"**{text}**" if best.get(metric) == trial else text)
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)


def _label(value: Any) -> str:
    """A parameter, status or step cell: a whole-number step reads `150`, not `150.0`; a missing one `–`."""
    if isinstance(value, float):
        return "–" if pd.isna(value) else f"{value:g}"
    return str(value)


def build_table(rows: list[TrialRow], main_metric: str, mode: str) -> AblationTable:
    """One row per trial (sorted by id); the main metric first among the metric columns.

    `best_*` bookkeeping (best score so far) stays in MLflow: a trial's final `val_*` values already are those of
    its best checkpoint, the model its suites evaluated. The step it delivered (`DELIVERED_STEP`) is a column.
    """
    params = sorted({key for row in rows for key in row.params})
    lower: set[str] = {main_metric} if mode == "min" else set()
    records = {}
    for row in sorted(rows, key=lambda r: r.trial_id):
        lower |= {m for m in str(row.result.get(LOWER_IS_BETTER_KEY, "")).split(",") if m}
        records[row.trial_id] = {**row.params, "status": row.status, **numeric_metrics(row.result)}
    table = pd.DataFrame.from_dict(records, orient="index").rename_axis("trial")
    found = [c for c in table.columns if c not in params and c != "status" and not c.startswith("best_")]
    lower |= validation_lower_is_better(found)
    metrics = sorted(found, key=lambda c: (c != main_metric, "/" in c, c))
    delivered = [DELIVERED_STEP] if DELIVERED_STEP in table else []
    return AblationTable(table[[*params, "status", *delivered, *metrics]], params, metrics, lower)


def plot_metric(ablation: AblationTable, metric: str, path: Path, title: str) -> Path:
    """Bars of `metric` per trial, labelled by the searched values; the best bar highlighted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = ablation.table
    values = pd.to_numeric(table[metric], errors="coerce") if metric in table else pd.Series(float("nan"), table.index)
    labels = [
        "\n".join(p.rsplit(".", 1)[-1] + "=" + str(table.at[t, p]) for p in ablation.params) or str(t)
        for t in table.index
    ]
    best = ablation.best().get(metric)
    figure, axes = plt.subplots(figsize=(max(6.0, 1.1 * len(table)), 4.5))
    colours = ["tab:orange" if t == best else "tab:blue" for t in table.index]
    axes.bar(range(len(table)), values.fillna(0).to_numpy(), color=colours)
    axes.set_xticks(range(len(table)), labels, fontsize=7)
    axes.set_ylabel(f"{metric}{' (lower is better)' if metric in ablation.lower_is_better else ''}")
    axes.set_title(title)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def write_table(ablation: AblationTable, out: str, metric: str, study: str) -> dict[str, str]:
    """`ablation.csv`, `ablation.md` and `<metric>.png` under `out` (a directory or a storage URI)."""
    names = {"csv": "ablation.csv", "markdown": "ablation.md", "plot": f"{metric.replace('/', '_')}.png"}
    with storage.staged(out) as directory:
        ablation.table.to_csv(directory / names["csv"])
        (directory / names["markdown"]).write_text(f"# {study}\n\n{ablation.markdown()}\n", encoding="utf-8")
        plot_metric(ablation, metric, directory / names["plot"], f"{study}: {metric}")
    return {kind: storage.join(out, name) for kind, name in names.items()}
