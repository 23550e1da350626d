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
    from semcse.tracking import Tracker, ui_hint

    cfg = _corpus_config(config, overrides, fmt, id_col, title_col, abstract_col)
    out = out or Path(cfg.run_dir) / "corpus" / path.stem
    with console.status(f"reading {path}"):
        raw = read_raw(path, cfg.corpus)
    with console.status(f"validating {raw.total:,} rows"):
        result = validate(raw, cfg.corpus)
        paths = result.write(out)
    report = result.report
    console.print(f"corpus validate: {path}", highlight=False)
    table = Table(show_header=True)
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
        console.print(f"MLflow run {tracker.run_id} (experiment {cfg.tracking.experiment!r}); open the UI with:")
        console.print(f"  {ui_hint(cfg.tracking)}", highlight=False, soft_wrap=True)


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
    from semcse.data.stats import PERCENTILES, corpus_stats

    cfg = _corpus_config(config, overrides, fmt, id_col, title_col, abstract_col)
    raw = read_raw(path, cfg.corpus)
    stats = corpus_stats(raw.frame) | {"unparsable_lines": len(raw.broken)}
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


@app.command("evaluate")
@user_errors
def evaluate_command(
    suite: Annotated[
        list[str] | None, typer.Option("--suite", help="semantic | knn | aspects (repeatable; default from config).")
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            "-m",
            help="[NAME=]REF[#pooling]: a saved dir, models:/name@alias, or a plain HF encoder (repeatable).",
        ),
    ] = None,
    data: Annotated[
        Path | None, typer.Option("--data", "-d", help="Corpus file/directory, or a pairwise/ dir for aspects.")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Directory for tables, plots, embeddings.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Compare models side by side with the papers' suites; write CSV/markdown/PNG to --out, log to MLflow.

    Example: semcse evaluate --suite knn --model minilm=PATH --data ../shared/data/ohsumed.parquet --out runs/eval
    """
    from semcse.evaluation.embed import EmbeddingError
    from semcse.evaluation.inputs import EvaluationDataError
    from semcse.evaluation.report import markdown_table
    from semcse.evaluation.runner import evaluate
    from semcse.index import VectorIndexError
    from semcse.runtime import init_ray

    cfg = build_config(
        config,
        overrides,
        **{
            "evaluation.suites": suite or None,
            "evaluation.models": model or None,
            "evaluation.data": str(data) if data else None,
            "evaluation.out": str(out) if out else None,
        },
    )
    ev = cfg.evaluation
    if not ev.data:
        raise ConfigError("no data to evaluate on: pass --data PATH or set evaluation.data")
    target = Path(ev.out or Path(cfg.run_dir) / "evaluation")
    init_ray(cfg.ray)
    try:
        results = evaluate(ev.suites, ev.models, ev.data, target, cfg)
    except (EmbeddingError, EvaluationDataError, VectorIndexError) as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    for result in results.values():
        console.print(f"\n[bold]{result.name}[/]")
        console.print(markdown_table(result.table), highlight=False)
        for note in result.notes:
            console.print(f"  {note}", highlight=False)
    console.print(f"\ntables, plots and embeddings → {target}")


TaskOpt = Annotated[str | None, typer.Option("--task", help="summaries | aspects | queries | judgements.")]
EngineOpt = Annotated[str | None, typer.Option("--engine", help="transformers | vllm | http.")]


@app.command("generate")
@user_errors
def generate(
    corpus: Annotated[Path | None, typer.Option("--corpus", help="The (validated) corpus to generate from.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Directory of output shards.")] = None,
    task: TaskOpt = None,
    engine: EngineOpt = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Local model directory, or the served model name (http).")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N abstracts.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """LLM texts with Ray Data: SemCSE summaries, aspect summaries, queries, or pairwise judgements.

    Resumable: a rerun skips the shards already in --out.

    Example: semcse generate --corpus examples/sample_corpus.jsonl --model runs/tiny-lm --limit 8
    """
    from semcse.generation import run_generation

    cfg = build_config(
        config,
        overrides,
        **{
            "corpus.path": str(corpus) if corpus else None,
            "generation.out": str(out) if out else None,
            "generation.task": task,
            "generation.engine": engine,
            "generation.model": model,
            "generation.limit": limit,
        },
    )
    report = run_generation(cfg)
    metrics = report.metrics
    table = Table(title=f"generate {report.task} ({report.engine})")
    table.add_column("outcome")
    table.add_column("value", justify="right")
    table.add_row("shards written / skipped", f"{report.shards_written:,} / {report.shards_skipped:,}")
    for name in ("ok", "not_applicable", "rejected", "retried"):
        table.add_row(name, f"{int(metrics.get(f'count.{name}', 0)):,}")
    table.add_row("truncated abstracts", f"{int(metrics.get('truncated_units', 0)):,}")
    for name in ("samples_per_s", "prompt_tokens_per_s", "generated_tokens_per_s"):
        table.add_row(name, f"{metrics.get(name, 0):.1f}")
    for prompt_id, rate in report.na_rate.items():
        table.add_row(f"N/A rate {prompt_id}", f"{rate:.1%}")
    console.print(table)
    console.print(f"rows → {report.out}  (rejects with raw output → {report.out}/_rejects)")
    if report.run_id:
        console.print(f"MLflow run {report.run_id} (experiment {cfg.tracking.experiment!r})")


@app.command("train")
@user_errors
def train_command(
    pairs: Annotated[
        str | None,
        typer.Option("--pairs", help="semcse | summaries | same-input | crops | dropout | aspect:<name>."),
    ] = None,
    texts: Annotated[Path | None, typer.Option("--texts", help="Generated texts directory (Parquet).")] = None,
    corpus: Annotated[Path | None, typer.Option("--corpus", help="Validated corpus (file or directory).")] = None,
    base_model: Annotated[
        str | None, typer.Option("--base-model", help="Local Hugging Face or sentence-transformers directory.")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Where the trained encoder is saved.")] = None,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Optimisation steps.")] = None,
    workers: Annotated[int | None, typer.Option("--workers", help="Ray Train workers.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Train an encoder on Ray Train + DeepSpeed; save it as a sentence-transformers directory and register it.

    Example: semcse train --pairs crops --corpus examples/sample_corpus.jsonl --base-model MODEL_DIR --max-steps 50
    """
    from semcse.training.trainer import prepare, train

    cfg = build_config(
        config,
        overrides,
        **{
            "training.pairs": pairs,
            "training.texts": str(texts) if texts else None,
            "corpus.path": str(corpus) if corpus else None,
            "training.base_model": base_model,
            "training.out": str(out) if out else None,
            "training.max_steps": max_steps,
            "training.num_workers": workers,
        },
    )
    with console.status("checking the configuration and preparing pairs"):
        prepared = prepare(cfg)
    result = train(cfg, prepared)
    best = result.best
    console.print(
        f"best step {best['step']}: pair rank {best['val_rank_pair']:.2f}, document rank "
        f"{best['val_rank_document']:.2f} (validation, lower is better)"
    )
    console.print(f"encoder → {result.model_dir}")
    if result.model_version:
        tc = cfg.training
        console.print(f"registered {tc.register_name} version {result.model_version} as @{tc.register_alias}")


NOT_BUILT = {
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
