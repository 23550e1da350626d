"""`semcse corpus validate|stats`: a corpus checked row by row, and described."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from semcse.commands.common import ConfigOpt, SetOpt, build_config, console, user_errors
from semcse.core.config import RunConfig

app = typer.Typer(help="Validate and describe a corpus (Parquet, JSONL or CSV; a file or a directory).")

CorpusPath = Annotated[str, typer.Argument(help="A corpus file or a directory of shards: a path or a storage URI.")]
FormatOpt = Annotated[str | None, typer.Option("--format", help="parquet | jsonl | csv (default: from the suffix).")]
IdColOpt = Annotated[str | None, typer.Option("--id-col", help="Column holding the id.")]
TitleColOpt = Annotated[str | None, typer.Option("--title-col", help="Column holding the title.")]
AbstractColOpt = Annotated[str | None, typer.Option("--abstract-col", help="Column holding the abstract.")]


def _corpus_config(
    config: str | None,
    overrides: list[str] | None,
    fmt: str | None,
    id_col: str | None,
    title_col: str | None,
    abstract_col: str | None,
    path: str | None = None,
) -> RunConfig:
    return build_config(
        config,
        overrides,
        **{
            "corpus.path": path,
            "corpus.format": fmt,
            "corpus.id_col": id_col,
            "corpus.title_col": title_col,
            "corpus.abstract_col": abstract_col,
        },
    )


@app.command("validate")
@user_errors
def corpus_validate(
    path: CorpusPath,
    out: Annotated[
        str | None, typer.Option("--out", "-o", help="Where accepted.parquet, rejects.parquet, report.json go.")
    ] = None,
    fmt: FormatOpt = None,
    id_col: IdColOpt = None,
    title_col: TitleColOpt = None,
    abstract_col: AbstractColOpt = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Check every row; write accepted rows and quarantined rejects (with reasons); log counts to MLflow.

    Example: semcse corpus validate examples/sample_corpus.jsonl --out runs/sample/corpus
    """
    from semcse.core.data.validation import run_validation
    from semcse.core.tracking import ui_hint

    cfg = _corpus_config(config, overrides, fmt, id_col, title_col, abstract_col, path)
    with console.status(f"validating {path}"):
        report = run_validation(cfg, out)
    counts = report.counts
    console.print(f"corpus validate: {path}", highlight=False)
    table = Table(show_header=True)
    table.add_column("outcome")
    table.add_column("rows", justify="right")
    table.add_row("in", f"{counts.total:,}")
    table.add_row("accepted", f"{counts.accepted:,}")
    table.add_row("merged (duplicates)", f"{counts.merged:,}")
    table.add_row("rejected", f"{counts.rejected:,}")
    for reason, count in counts.reasons.items():
        table.add_row(f"  {reason}", f"{count:,}")
    console.print(table)
    console.print(counts.equation(), highlight=False)
    console.print(f"accepted rows → {report.accepted}\nrejects (with reason) → {report.rejects}")
    console.print(f"duplicates (merged and likely) → {report.duplicates}")
    if report.run_id:
        console.print(f"MLflow run {report.run_id} (experiment {cfg.tracking.experiment!r}); open the UI with:")
        console.print(f"  {ui_hint(cfg.tracking)}", highlight=False, soft_wrap=True)


@app.command("stats")
@user_errors
def corpus_stats_command(
    path: CorpusPath,
    fmt: FormatOpt = None,
    id_col: IdColOpt = None,
    title_col: TitleColOpt = None,
    abstract_col: AbstractColOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Counts, length percentiles (characters, words) and duplicate rates.

    Example: semcse corpus stats examples/sample_corpus.jsonl
    """
    from semcse.core.data.stats import PERCENTILES, file_stats

    cfg = _corpus_config(config, overrides, fmt, id_col, title_col, abstract_col)
    stats = file_stats(path, cfg.corpus)
    if as_json:
        console.print_json(json.dumps(stats))
        return
    console.print(f"corpus stats: {path}", highlight=False)
    table = Table()
    table.add_column("statistic")
    table.add_column("value", justify="right")
    for key in ("rows", "unparsable_lines", "empty_titles", "empty_abstracts"):
        table.add_row(key, f"{stats[key]:,}")
    table.add_row("duplicate id rate", f"{stats['duplicate_id_rate']:.2%}")
    table.add_row("duplicate abstract rate", f"{stats['duplicate_abstract_rate']:.2%}")
    console.print(table)
    lengths = Table(title="lengths")
    lengths.add_column("percentile")
    series = [(field, unit) for field in ("title", "abstract") for unit in ("chars", "words")]
    for field, unit in series:
        lengths.add_column(f"{field} {unit}", justify="right")
    for point in [f"p{p}" for p in PERCENTILES] + ["max"]:
        lengths.add_row(point, *(f"{stats[field].get(f'{unit}_{point}', 0):,.0f}" for field, unit in series))
    console.print(lengths)
