"""The `semcse` command: one subcommand per stage, each a thin shell around the library.

Every command takes `--config FILE` and repeatable `--set section.key=value`; known user errors
(bad config, unreadable corpus, unreachable cluster) print one clear message and exit with
status 2 instead of a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from semcse import __version__
from semcse.config import ConfigError, RunConfig, load_config

console = Console()
err_console = Console(stderr=True)

app = typer.Typer(
    name="semcse",
    help="Semantic, multifaceted and decodable embeddings of scientific abstracts, on Ray.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)
corpus_app = typer.Typer(help="Validate and describe a corpus (Parquet, JSONL or CSV; a file or a directory).")
app.add_typer(corpus_app, name="corpus")

ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="YAML run config (see jobs/configs/).")]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", help="Override a config value, e.g. --set training.batch_size=16 (repeatable)."),
]
F = TypeVar("F", bound=Callable[..., Any])


def user_errors(func: F) -> F:
    """Turn expected user errors into one red line and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from semcse.data.io import CorpusError
        from semcse.runtime import RayUnavailable

        try:
            return func(*args, **kwargs)
        except (ConfigError, CorpusError, RayUnavailable, FileNotFoundError) as exc:
            err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def build_config(config: Path | None, overrides: list[str] | None, **flags: Any) -> RunConfig:
    """Config file < --set overrides < explicit flags (flags given as `section.key` → value)."""
    extra = [f"{key}={json.dumps(value)}" for key, value in flags.items() if value is not None]
    return load_config(config, [*(overrides or []), *extra])


def version_callback(value: bool) -> None:
    if value:
        console.print(f"semcse {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=version_callback, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Semantic, multifaceted and decodable embeddings of scientific abstracts, on Ray."""


CorpusPath = Annotated[Path, typer.Argument(help="A corpus file or a directory of shards.")]
FormatOpt = Annotated[str | None, typer.Option("--format", help="parquet | jsonl | csv (default: from the suffix).")]
IdColOpt = Annotated[str | None, typer.Option("--id-col", help="Column holding the id.")]
TitleColOpt = Annotated[str | None, typer.Option("--title-col", help="Column holding the title.")]
AbstractColOpt = Annotated[str | None, typer.Option("--abstract-col", help="Column holding the abstract.")]


def _corpus_config(config, overrides, fmt, id_col, title_col, abstract_col) -> RunConfig:
    return build_config(
        config,
        overrides,
        **{
            "corpus.format": fmt,
            "corpus.id_col": id_col,
            "corpus.title_col": title_col,
            "corpus.abstract_col": abstract_col,
        },
    )


@corpus_app.command("validate")
@user_errors
def corpus_validate(
    path: CorpusPath,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Where accepted.parquet, rejects.parquet, report.json go.")
    ] = None,
    fmt: FormatOpt = None,
    id_col: IdColOpt = None,
    title_col: TitleColOpt = None,
    abstract_col: AbstractColOpt = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Check every row; write accepted rows and quarantined rejects (with reasons); log counts to MLflow.

    Example: semcse corpus validate ../shared/data/cs_papers.parquet --out runs/cs/corpus
    """
    from semcse.data.io import read_raw
    from semcse.data.validation import validate
    from semcse.tracking import Tracker

    cfg = _corpus_config(config, overrides, fmt, id_col, title_col, abstract_col)
    out = out or Path(cfg.run_dir) / "corpus" / path.stem
    with console.status(f"reading {path}"):
        raw = read_raw(path, cfg.corpus)
    with console.status(f"validating {raw.total:,} rows"):
        result = validate(raw, cfg.corpus)
        paths = result.write(out)
    report = result.report
    table = Table(title=f"corpus validate: {path}", show_header=True)
    table.add_column("outcome")
    table.add_column("rows", justify="right")
    table.add_row("in", f"{report.total:,}")
    table.add_row("accepted", f"{report.accepted:,}")
    table.add_row("rejected", f"{report.rejected:,}")
    for reason, count in report.reasons.items():
        table.add_row(f"  {reason}", f"{count:,}")
    console.print(table)
    console.print(f"in = accepted + rejected: {report.total:,} = {report.accepted:,} + {report.rejected:,}")
    console.print(f"accepted rows → {paths['accepted']}\nrejects (with reason) → {paths['rejects']}")
    with Tracker.start(cfg.tracking, run_name="corpus-validate", tags={"stage": "corpus"}) as tracker:
        tracker.log_params({"corpus.path": str(path), **cfg.corpus.model_dump()})
        tracker.log_metrics(
            {"rows_in": report.total, "rows_accepted": report.accepted, "rows_rejected": report.rejected}
            | {f"rejected.{reason.replace(' ', '_')}": n for reason, n in report.reasons.items()}
        )
        tracker.log_artifact(paths["report"])
    if tracker.run_id:
        console.print(f"MLflow run {tracker.run_id} (experiment {cfg.tracking.experiment!r})")


@corpus_app.command("stats")
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
    from semcse.data.io import read_raw
    from semcse.data.stats import corpus_stats

    cfg = _corpus_config(config, overrides, fmt, id_col, title_col, abstract_col)
    raw = read_raw(path, cfg.corpus)
    stats = corpus_stats(raw.frame) | {"unparsable_lines": len(raw.broken)}
    if as_json:
        console.print_json(json.dumps(stats))
        return
    table = Table(title=f"corpus stats: {path}")
    table.add_column("statistic")
    table.add_column("value", justify="right")
    for key in ("rows", "unparsable_lines", "empty_titles", "empty_abstracts"):
        table.add_row(key, f"{stats[key]:,}")
    table.add_row("duplicate id rate", f"{stats['duplicate_id_rate']:.2%}")
    table.add_row("duplicate abstract rate", f"{stats['duplicate_abstract_rate']:.2%}")
    console.print(table)
    lengths = Table(title="lengths (percentiles)")
    lengths.add_column("field")
    columns = [k for k in stats["abstract"] if k.startswith("chars") or k.startswith("words")]
    for key in columns:
        lengths.add_column(key, justify="right")
    for field in ("title", "abstract"):
        lengths.add_row(field, *(f"{stats[field].get(k, 0):.0f}" for k in columns))
    console.print(lengths)


NOT_BUILT = {
    "generate": (3, "LLM summaries, aspect summaries, queries and judgements with Ray Data"),
    "train": (4, "encoder training (SemCSE, crops, dropout) on Ray Train + DeepSpeed"),
    "evaluate": (5, "the published evaluation suites (semantic, knn, aspects, decoder)"),
    "distill": (6, "the unified multi-aspect model distilled from aspect encoders"),
    "search": (6, "aspect-weighted similarity search over FAISS indexes"),
    "index": (6, "building FAISS indexes over a corpus"),
    "train-decoder": (7, "the embedding → text decoder"),
    "map": (7, "t-SNE maps, placing new texts and explaining any point"),
    "tune": (8, "Ray Tune ablation studies"),
    "serve": (9, "the Ray Serve applications"),
    "pipeline": (10, "the end-to-end pipeline"),
}


def _register_not_built(name: str, issue: int, what: str) -> None:
    def command(
        ctx: typer.Context,
    ) -> None:
        err_console.print(
            f"[yellow]`semcse {name}` is not built yet[/] ({what}; tracked in issue #{issue}). Nothing was run.",
            highlight=False,
        )
        raise typer.Exit(2)

    command.__doc__ = f"(not built yet) {what[0].upper()}{what[1:]} (issue #{issue})."
    app.command(name, context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(command)


for _name, (_issue, _what) in NOT_BUILT.items():
    _register_not_built(_name, _issue, _what)


if __name__ == "__main__":
    sys.exit(app())
