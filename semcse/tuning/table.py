"""The paper-style ablation table of a study: trials as rows, metrics as columns, the best of each marked.

Written as CSV (plain numbers, for further analysis) and markdown (best per column in bold, `↓` on
lower-is-better columns), plus a bar chart of the study's main metric per trial. Directions come from
the trials themselves (validation ranks and the suites' own lower-is-better sets), so a new suite
metric needs no change here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from semcse import storage
from semcse.tuning.tracking import numeric_metrics
from semcse.tuning.trial import LOWER_IS_BETTER_KEY


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

    def markdown(self, digits: int = 4) -> str:
        best = self.best()
        header = [
            "trial",
            *self.params,
            "status",
            *(f"{m} ↓" if m in self.lower_is_better else m for m in self.metrics),
        ]
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * (len(self.params) + 2)) + "|"]
        lines[-1] += "|".join(["---:"] * len(self.metrics)) + ("|" if self.metrics else "")
        for trial, row in self.table.iterrows():
            cells = [str(trial), *(str(row[p]) for p in self.params), str(row["status"])]
            for metric in self.metrics:
                value = row[metric]
                text = "–" if pd.isna(value) else f"{value:.{digits}g}"
                cells.append(f"**{text}**" if best.get(metric) == trial else text)
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)


def build_table(rows: list[TrialRow], main_metric: str, mode: str) -> AblationTable:
    """One row per trial (sorted by id); the main metric first among the metric columns.

    `best_*` bookkeeping (best step, best score so far) stays in MLflow: a trial's final `val_*` values
    already are those of its best checkpoint, the model its suites evaluated.
    """
    params = sorted({key for row in rows for key in row.params})
    lower: set[str] = {main_metric} if mode == "min" else set()
    records = {}
    for row in sorted(rows, key=lambda r: r.trial_id):
        lower |= {m for m in str(row.result.get(LOWER_IS_BETTER_KEY, "")).split(",") if m}
        records[row.trial_id] = {**row.params, "status": row.status, **numeric_metrics(row.result)}
    table = pd.DataFrame.from_dict(records, orient="index").rename_axis("trial")
    found = [c for c in table.columns if c not in params and c != "status" and not c.startswith("best_")]
    lower |= {c for c in found if c.startswith("val_")}
    metrics = sorted(found, key=lambda c: (c != main_metric, "/" in c, c))
    return AblationTable(table[[*params, "status", *metrics]], params, metrics, lower)


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
