"""The `semcse` command: one subcommand per stage, each a thin shell around the library.

Every command takes `--config FILE` and repeatable `--set section.key=value`; known user errors
(bad config, unreadable corpus, unreachable cluster) print one clear message and exit with
status 2 instead of a traceback.
"""

from __future__ import annotations

import functools
import gc
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from semcse import __version__, storage
from semcse.config import ConfigError, RunConfig, load_config
from semcse.logs import LineFormatter

if TYPE_CHECKING:
    from semcse.models.encoder import TextEncoder

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
index_app = typer.Typer(help="Searchable FAISS indexes over a corpus (one per aspect), for the search service.")
app.add_typer(index_app, name="index")

ConfigOpt = Annotated[
    str | None,
    typer.Option("--config", "-c", help="Run config: a YAML file, or a shipped one by name (demo, semcse-paper, …)."),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", help="Override a config value, e.g. --set training.batch_size=16 (repeatable)."),
]
P = ParamSpec("P")
R = TypeVar("R")


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn expected user errors into one red line and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        from semcse.data.generated import GeneratedDataError
        from semcse.data.io import CorpusError
        from semcse.generation import GenerationIncomplete
        from semcse.runtime import RayUnavailable

        try:
            return func(*args, **kwargs)
        except (
            ConfigError,
            CorpusError,
            GeneratedDataError,
            GenerationIncomplete,
            RayUnavailable,
            FileNotFoundError,
            storage.StorageError,
        ) as exc:
            fail(exc)

    return wrapper


def fail(problem: Exception) -> NoReturn:
    """One red `error:` line (never wrapped, so a log search finds it whole) and exit status 2."""
    err_console.print(f"[bold red]error:[/] {escape(str(problem))}", highlight=False, soft_wrap=True)
    raise typer.Exit(2) from None


def build_config(config: str | Path | None, overrides: list[str] | None, **flags: Any) -> RunConfig:
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
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Show everything: Ray's, DeepSpeed's and transformers' logs, progress and warnings "
            "(same as SEMCSE_LOG_LEVEL=DEBUG). By default only our own lines and real problems are shown.",
        ),
    ] = False,
) -> None:
    """Semantic, multifaceted and decodable embeddings of scientific abstracts, on Ray."""
    from semcse import logs

    logs.set_verbose(verbose)
    logs.configure(ConsoleLog(err_console))


class ConsoleLog(logging.Handler):
    """How the library's log records look in a terminal: a rule per heading (a pipeline step), a line per event.

    Lines read as `semcse.logs.LineFormatter` writes them in Ray workers, so the driver's and the
    workers' lines look alike; records go to stderr, leaving stdout to each command's results.
    """

    def __init__(self, target: Console) -> None:
        super().__init__()
        self.target = target
        self.setFormatter(LineFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if getattr(record, "heading", False):
                self.target.rule(f"[bold]{escape(record.getMessage())}")
            else:
                self.target.print(self.format(record), markup=False, highlight=False, soft_wrap=True)
        except Exception:
            self.handleError(record)


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


@corpus_app.command("validate")
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
    from semcse.data.validation import run_validation
    from semcse.tracking import ui_hint

    cfg = _corpus_config(config, overrides, fmt, id_col, title_col, abstract_col, path)
    with console.status(f"validating {path}"):
        report = run_validation(cfg, out or storage.join(cfg.run_dir, "corpus", storage.basename(path).split(".")[0]))
    counts = report.counts
    console.print(f"corpus validate: {path}", highlight=False)
    table = Table(show_header=True)
    table.add_column("outcome")
    table.add_column("rows", justify="right")
    table.add_row("in", f"{counts.total:,}")
    table.add_row("accepted", f"{counts.accepted:,}")
    table.add_row("rejected", f"{counts.rejected:,}")
    for reason, count in counts.reasons.items():
        table.add_row(f"  {reason}", f"{count:,}")
    console.print(table)
    console.print(f"in = accepted + rejected: {counts.total:,} = {counts.accepted:,} + {counts.rejected:,}")
    console.print(f"accepted rows → {report.accepted}\nrejects (with reason) → {report.rejects}")
    if report.run_id:
        console.print(f"MLflow run {report.run_id} (experiment {cfg.tracking.experiment!r}); open the UI with:")
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
        list[str] | None,
        typer.Option("--suite", help="semantic | knn | aspects | decoder (repeatable; default from config)."),
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
        str | None, typer.Option("--data", "-d", help="Corpus file/directory, or a pairwise/ dir for aspects.")
    ] = None,
    out: Annotated[str | None, typer.Option("--out", "-o", help="Directory for tables, plots, embeddings.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Compare models side by side with the papers' suites; write CSV/markdown/PNG to --out, log to MLflow.

    Example: semcse evaluate --suite knn --model minilm=PATH --data examples/sample_corpus.jsonl
    --set evaluation.label_col=topic --set evaluation.split=all --out runs/eval
    """
    from semcse.data.embeddings import EmbeddingError
    from semcse.evaluation.inputs import EvaluationDataError
    from semcse.evaluation.report import terminal_text
    from semcse.evaluation.runner import evaluate
    from semcse.models.aspects import MissingAspectError
    from semcse.runtime import connect
    from semcse.vector_index import VectorIndexError

    cfg = build_config(
        config,
        overrides,
        **{
            "evaluation.suites": suite or None,
            "evaluation.models": model or None,
            "evaluation.data": data,
            "evaluation.out": out,
        },
    )
    ev = cfg.evaluation
    target = ev.out or storage.join(cfg.run_dir, "evaluation")
    suites = [s for s in ev.suites if s != "decoder"]
    if "decoder" in ev.suites:
        _evaluate_decoders(cfg, ev.models, target)
    if not suites:
        return
    if not ev.data:
        raise ConfigError("no data to evaluate on: pass --data PATH or set evaluation.data")
    cfg = connect(cfg)
    try:
        results = evaluate(suites, ev.models, ev.data, target, cfg)
    except (EmbeddingError, EvaluationDataError, MissingAspectError, VectorIndexError) as exc:
        fail(exc)
    for result in results.values():
        console.print(f"\n[bold]{result.name}[/]")
        console.print(terminal_text(result), highlight=False, markup=False, soft_wrap=True)
    console.print(f"\ntables, plots and embeddings → {target}")


def _evaluate_decoders(cfg: RunConfig, decoders: list[str], target: str) -> None:
    """The decoder suite: each --model is a decoder (a directory or models:/semcse-decoder@alias)."""
    from semcse.evaluation.decoder_eval import evaluate_decoder

    if not decoders:
        raise ConfigError("the decoder suite needs --model DECODER (a directory or models:/semcse-decoder@alias)")
    for ref in decoders:
        try:
            result = evaluate_decoder(
                cfg, ref, storage.join(target, storage.basename(ref.replace(":", "_").replace("@", "_")))
            )
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        console.print(f"\n[bold]decoder[/] {ref} ({result['abstracts']} held-out abstracts)")
        console.print(result["table"], highlight=False, markup=False, soft_wrap=True)


TaskOpt = Annotated[str | None, typer.Option("--task", help="summaries | aspects | queries | judgements.")]
EngineOpt = Annotated[str | None, typer.Option("--engine", help="transformers | vllm | http.")]


@app.command("generate")
@user_errors
def generate(
    corpus: Annotated[str | None, typer.Option("--corpus", help="The (validated) corpus to generate from.")] = None,
    out: Annotated[str | None, typer.Option("--out", "-o", help="Directory of output shards.")] = None,
    task: TaskOpt = None,
    engine: EngineOpt = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Local model directory, or the served model name (http).")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N abstracts.")] = None,
    retry_rejects: Annotated[
        bool,
        typer.Option("--retry-rejects", help="Generate again the finished units that have rejected samples."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run report as JSON (for jobs).")] = False,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """LLM texts with Ray Data: SemCSE summaries, aspect summaries, queries, or pairwise judgements.

    Resumable and unit-keyed: a rerun generates only the abstracts (pairs) not yet finished in --out
    with the same settings; outputs of other settings are kept apart by the manifest. Units the
    engine failed on (an outage) stay unfinished and are retried by the next run; units with
    rejected (unparsable, cut-off) samples are finished unless --retry-rejects.

    Token budgets per answer unless generation.max_new_tokens is set: summaries 96 (and stop at the
    end of the line; one cut off before its first sentence ends is rejected), queries 64, aspects
    128, judgements 384 (reasoning first, then the score).

    Example: semcse generate --corpus examples/sample_corpus.jsonl --model runs/tiny-lm --limit 8
    """
    from semcse.generation import run_generation

    cfg = build_config(
        config,
        overrides,
        **{
            "corpus.path": corpus,
            "generation.out": out,
            "generation.task": task,
            "generation.engine": engine,
            "generation.model": model,
            "generation.limit": limit,
            "generation.retry_rejects": retry_rejects or None,
        },
    )
    report = run_generation(cfg)
    if as_json:
        console.print_json(json.dumps(report.to_dict(), default=str))
        return
    metrics = report.metrics
    table = Table(title=f"generate {report.task} ({report.engine})")
    table.add_column("outcome")
    table.add_column("value", justify="right")
    table.add_row("units generated / reused", f"{report.units:,} / {report.units_reused:,}")
    for name in ("ok", "not_applicable", "rejected", "retried"):
        table.add_row(name, f"{int(metrics.get(f'count.{name}', 0)):,}")
    for cause, count in sorted(report.reject_reasons.items()):
        table.add_row(f"  rejected: {cause}", f"{count:,}")
    table.add_row("units unfinished (engine errors; rerun)", f"{report.units_unfinished:,}")
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
    texts: Annotated[str | None, typer.Option("--texts", help="Generated texts directory (Parquet).")] = None,
    corpus: Annotated[str | None, typer.Option("--corpus", help="Validated corpus (file or directory).")] = None,
    base_model: Annotated[
        str | None,
        typer.Option(
            "--base-model",
            help="Local Hugging Face or sentence-transformers directory, models:/name@alias, or scratch:bert-mini "
            "(random init, vocabulary from the training abstracts).",
        ),
    ] = None,
    out: Annotated[str | None, typer.Option("--out", "-o", help="Where the trained encoder is saved.")] = None,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="Optimisation steps.")] = None,
    workers: Annotated[int | None, typer.Option("--workers", help="Ray Train workers.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Train an encoder on Ray Train + DeepSpeed; save the best step as a sentence-transformers directory.

    The base model is evaluated first and is the candidate to beat: the best step is registered as
    `training.register_name@candidate` only when it beats the base on validation; otherwise the
    output directory holds the base model and nothing is registered (see semcse_training.json).

    Example: semcse train --pairs crops --corpus examples/sample_corpus.jsonl --base-model MODEL_DIR --max-steps 50
    """
    from semcse.training.trainer import prepare, train

    cfg = build_config(
        config,
        overrides,
        **{
            "training.pairs": pairs,
            "training.texts": texts,
            "corpus.path": corpus,
            "training.base_model": base_model,
            "training.out": out,
            "training.max_steps": max_steps,
            "training.num_workers": workers,
        },
    )
    with console.status("checking the configuration and preparing pairs"):
        prepared = prepare(cfg)
    result = train(cfg, prepared)
    best = result.best
    what = f"best step {best['step']}" if result.improved else "the base model (no trained step beat it)"
    console.print(
        f"{what}: pair rank {best['val_rank_pair']:.2f}, document rank "
        f"{best['val_rank_document']:.2f} (validation, lower is better)"
    )
    console.print(f"encoder → {result.model_dir}")  # the registration itself is logged where it happens


@app.command("tune")
@user_errors
def tune_command(
    study: Annotated[str, typer.Option("--study", help="A study name under tune/studies/ or a study YAML path.")],
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Start over instead of restoring an interrupted study.")
    ] = False,
    config: Annotated[
        str | None, typer.Option("--config", "-c", help="Run config replacing the study's base file.")
    ] = None,
    overrides: SetOpt = None,
) -> None:
    """Run a Ray Tune ablation study; print and log its table (markdown, CSV, plot). Resumes when interrupted.

    --set overrides the study's fixed base config. Example: semcse tune --study cropping
    --set training.base_model=MODEL_DIR --set training.max_steps=100
    """
    from semcse.tuning.runner import run_study
    from semcse.tuning.study import load_study

    spec, base = load_study(study, overrides, config)
    result = run_study(spec, base, restore=not fresh)
    console.print(f"\n[bold]{result.study}[/] ({'restored' if result.restored else 'new'} study)")
    console.print(result.table.markdown(), highlight=False, markup=False, soft_wrap=True)
    for kind, path in result.paths.items():
        console.print(f"{kind} → {path}", highlight=False)
    for trial_id, reason in result.errors.items():
        console.print(f"[red]trial {trial_id} failed:[/] {escape(reason)}", highlight=False)
    if result.parent_run_id:
        console.print(f"MLflow parent run {result.parent_run_id} (experiment {base.tracking.experiment!r})")


map_app = typer.Typer(help="Interactive t-SNE maps: lay out a corpus, place new texts, explain any position.")
app.add_typer(map_app, name="map")


def _named_refs(values: list[str] | None, what: str) -> dict[str, str]:
    """`[aspect=]ref` options → {aspect: ref}; a bare ref belongs to the single-vector aspect ""."""
    refs = {}
    for value in values or []:
        aspect, _, ref = value.rpartition("=") if "=" in value else ("", "", value)
        refs[aspect] = ref
    if not refs:
        raise ConfigError(f"give at least one {what}")
    return refs


def _value_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Bad map/decoder inputs (ValueError) are user errors too: one red line, exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc

    return wrapper


@app.command("train-decoder")
@user_errors
@_value_errors
def train_decoder_command(
    texts: Annotated[str | None, typer.Option("--texts", help="Generated texts (Parquet shards).")] = None,
    encoder: Annotated[str | None, typer.Option("--encoder", help="Encoder embedding the summaries.")] = None,
    base_model: Annotated[str | None, typer.Option("--base-model", help="Local causal LM (kept frozen).")] = None,
    aspect: Annotated[str | None, typer.Option("--aspect", help="summary | aspect:<name>.")] = None,
    out: Annotated[str | None, typer.Option("--out", "-o", help="Where the decoder directory goes.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Train an embedding → text decoder on Ray Train; log to MLflow and register `semcse-decoder`.

    Example: semcse train-decoder --texts runs/demo/texts --encoder models:/semcse-encoder@champion
    --base-model /models/Llama-3-8B --aspect aspect:species
    """
    from semcse.training.decoder import run

    cfg = build_config(
        config,
        overrides,
        **{
            "decoder.texts": texts,
            "decoder.encoder": encoder,
            "decoder.base_model": base_model,
            "decoder.aspect": aspect,
            "decoder.out": out,
        },
    )
    result = run(cfg)
    console.print(f"decoder → {result.path}")
    console.print(", ".join(f"{k}={v:.4g}" for k, v in result.metrics.items()))
    if result.version:
        console.print(f"registered {cfg.decoder.register_name} v{result.version} @{cfg.decoder.register_alias}")


MapDir = Annotated[str, typer.Argument(help="A saved map directory (a path or a storage URI).")]


@map_app.command("layout")
@user_errors
@_value_errors
def map_layout(
    corpus: Annotated[str, typer.Option("--corpus", help="Corpus file/directory: ids, labels, abstracts.")],
    out: Annotated[str, typer.Option("--out", "-o", help="Where the map directory goes.")],
    embeddings: Annotated[
        str | None,
        typer.Option("--embeddings", help="Embeddings (id, aspect, vector): a Parquet file or a directory of shards."),
    ] = None,
    encoder: Annotated[
        list[str] | None, typer.Option("--encoder", help="[aspect=]encoder embedding the abstracts (repeatable).")
    ] = None,
    weight: Annotated[list[str] | None, typer.Option("--weight", help="aspect=α (repeatable).")] = None,
    label_col: Annotated[str | None, typer.Option("--label-col", help="Corpus column used as label.")] = None,
    png: Annotated[str | None, typer.Option("--png", help="Also render the map to this PNG.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """t-SNE over the aspect-weighted cosine distance; save a map a web service can load.

    Example: semcse map layout --corpus examples/sample_corpus.jsonl --encoder models/minilm --label-col topic -o m
    """
    from semcse.data.embeddings import read_embeddings
    from semcse.data.io import read_corpus
    from semcse.maps import layout, render

    cfg = build_config(config, overrides, **{"corpus.label_col": label_col})
    frame = read_corpus(corpus, cfg.corpus)
    ids = frame["id"].tolist()
    if embeddings is not None:
        vectors = read_embeddings(embeddings, ids)
    else:
        vectors = {
            a: _load_encoder(ref, cfg).encode(frame["abstract"].tolist())
            for a, ref in _named_refs(encoder, "--encoder or --embeddings").items()
        }
    weights = {a: float(w) for a, w in (item.split("=", 1) for item in weight or [])} or cfg.map.weights
    labels = frame[cfg.corpus.label_col].astype(str).tolist() if cfg.corpus.label_col else None
    semantic_map = layout(
        ids,
        vectors,
        weights,
        labels=labels,
        perplexity=cfg.map.perplexity,
        iterations=cfg.map.iterations,
        seed=cfg.map.seed,
        pca_components=cfg.map.pca_components,
        neighbours=cfg.map.neighbours,
    )
    semantic_map.save(out)
    console.print(f"map of {len(semantic_map):,} points (perplexity {semantic_map.perplexity:.1f}) → {out}")
    if png is not None:
        console.print(f"rendered → {render(semantic_map, png)}")


def _load_encoder(ref: str, cfg: RunConfig) -> TextEncoder:
    from semcse.models.encoder import TextEncoder

    return TextEncoder.load(ref, tracking=cfg.tracking)


@map_app.command("place")
@user_errors
@_value_errors
def map_place(
    map_dir: MapDir,
    text: Annotated[list[str], typer.Option("--text", "-t", help="A text to place (repeatable).")],
    encoder: Annotated[list[str], typer.Option("--encoder", help="[aspect=]encoder per weighted aspect.")],
    png: Annotated[str | None, typer.Option("--png", help="Render the map with the placed texts.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Embed texts and place them into a saved map (existing points stay fixed).

    Example: semcse map place m --text "Rats on islands" --encoder models/minilm
    """
    from semcse.maps import SemanticMap, render

    cfg = build_config(config, overrides)
    semantic_map = SemanticMap.load(map_dir)
    refs = _named_refs(encoder, "--encoder")
    if set(refs) == {""} and len(semantic_map.active) == 1:
        refs = {next(iter(semantic_map.active)): refs[""]}
    vectors = {a: _load_encoder(ref, cfg).encode(list(text)) for a, ref in refs.items()}
    coords = semantic_map.place(vectors, steps=cfg.map.place_steps)
    for sentence, (x, y) in zip(text, coords):
        console.print(f"({x:.3f}, {y:.3f})  {sentence}", highlight=False)
    if png is not None:
        console.print(f"rendered → {render(semantic_map, png, highlights=list(zip(coords, text)))}")


@map_app.command("explain")
@user_errors
@_value_errors
def map_explain(
    map_dir: MapDir,
    x: Annotated[float, typer.Option("--x", help="Map x coordinate.")],
    y: Annotated[float, typer.Option("--y", help="Map y coordinate.")],
    decoder: Annotated[list[str], typer.Option("--decoder", help="[aspect=]decoder per weighted aspect.")],
    samples: Annotated[int, typer.Option("--samples", help="Texts to sample per aspect.")] = 1,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Reconstruct the embedding of any map position and decode it to text.

    Example: semcse map explain m --x 3.5 --y -12 --decoder models:/semcse-decoder@champion
    """
    import numpy as np

    from semcse.maps import SemanticMap
    from semcse.models.decoder import EmbeddingDecoder

    cfg = build_config(config, overrides)
    semantic_map = SemanticMap.load(map_dir)
    refs = _named_refs(decoder, "--decoder")
    if set(refs) == {""} and len(semantic_map.active) == 1:
        refs = {next(iter(semantic_map.active)): refs[""]}
    vectors = semantic_map.explain((x, y), steps=cfg.map.explain_steps, margin=cfg.map.margin)
    for aspect, ref in refs.items():
        if aspect not in vectors:
            raise ValueError(f"aspect {aspect!r} has no weight on this map (weighted: {sorted(vectors)})")
        model = EmbeddingDecoder.load(ref, tracking=cfg.tracking)
        texts = model.decode(
            np.repeat(vectors[aspect][None], samples, 0),
            max_new_tokens=cfg.decoder.max_new_tokens,
            temperature=cfg.decoder.temperature,
            top_p=cfg.decoder.top_p,
            engine=cfg.decoder.engine,
            seed=cfg.decoder.seed,
        )
        for sentence in texts:
            console.print(f"[bold]{aspect or 'embedding'}[/]: {sentence}", highlight=False)


@map_app.command("render")
@user_errors
def map_render(
    map_dir: MapDir,
    out: Annotated[str, typer.Option("--out", "-o", help="PNG path.")],
    title: Annotated[str | None, typer.Option("--title", help="Figure title.")] = None,
) -> None:
    """Render a saved map to PNG with labels and a legend.

    Example: semcse map render m --out map.png
    """
    from semcse.maps import SemanticMap, render

    console.print(f"rendered → {render(SemanticMap.load(map_dir), out, title=title)}")


@index_app.command("build")
@user_errors
def index_build(
    corpus: Annotated[str, typer.Option("--corpus", help="The (validated) corpus: a file or a directory.")],
    model: Annotated[str, typer.Option("--model", "-m", help="Encoder: a saved dir or models:/name@alias.")],
    out: Annotated[str, typer.Option("--out", "-o", help="Directory for the search index.")],
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Embed title + abstract of every paper with every aspect of the model and write a search index.

    Example: semcse index build --corpus examples/sample_corpus.jsonl --model models:/semcse-encoder@champion
    --out runs/index
    """
    from semcse.search import run_index

    report = run_index(build_config(config, overrides, **{"corpus.path": str(corpus)}), model, out)
    console.print(f"indexed {report.papers:,} papers, aspects {report.aspects}, dimension {report.dim} → {report.out}")


@app.command("serve")
@user_errors
def serve_command(
    apps_file: Annotated[
        str | None,
        typer.Option(
            "--apps", help="Serve config with the applications (serve deploy format); default: the shipped one."
        ),
    ] = None,
    only: Annotated[list[str] | None, typer.Option("--app", help="Deploy only this application (repeatable).")] = None,
    encoder: Annotated[str | None, typer.Option("--encoder", help="Encoder for embed/search/map.")] = None,
    index: Annotated[str | None, typer.Option("--index", help="Search index (semcse index build).")] = None,
    decoder: Annotated[str | None, typer.Option("--decoder", help="Decoder of the single-vector aspect.")] = None,
    map_dir: Annotated[str | None, typer.Option("--map", help="Saved map directory.")] = None,
    texts: Annotated[
        str | None, typer.Option("--texts", help="Generated texts: the explorer shows each paper's summaries.")
    ] = None,
    host: Annotated[
        str | None, typer.Option("--host", help="HTTP host (default 127.0.0.1; 0.0.0.0 on a cluster).")
    ] = None,
    port: Annotated[int | None, typer.Option("--port", help="HTTP port (default 8000).")] = None,
    no_auth: Annotated[
        bool,
        typer.Option(
            "--no-auth",
            help="Listen beyond loopback without an API key (otherwise refused unless SEMCSE_API_KEY is set).",
        ),
    ] = False,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Start the Serve apps on Ray (a local cluster unless RAY_ADDRESS is set) and serve until Ctrl-C or SIGTERM.

    Flags and the run config's `serve` section override every app's args in --apps. SIGTERM (a
    process supervisor stopping the service) and Ctrl-C both drain: requests in flight are
    answered, Serve and the local cluster are shut down, and the command exits 0.

    Example: semcse serve --app embed --encoder runs/encoder --port 8000
    """
    from semcse.serving import StopSignals, drain, run_serve

    cfg = build_config(
        config,
        overrides,
        **{
            "serve.encoder": encoder,
            "serve.index": index,
            "serve.decoders": decoder,
            "serve.map": map_dir,
            "serve.texts": texts,
            "serve.host": host,
            "serve.port": port,
            "serve.no_auth": no_auth or None,
        },
    )
    stop = StopSignals()
    try:
        with console.status("deploying " + (", ".join(only) if only else "every application")):
            report = run_serve(cfg, apps_file, only, stop)
        for line in report.status_lines():
            console.print(line, highlight=False, markup=False)
        if report.serving:
            console.print("serving; Ctrl-C or SIGTERM stops", highlight=False)
            stopped_by = stop.wait()
        drain(list(report.urls))
    finally:
        stop.restore()
    if not report.serving:
        raise typer.Exit(1)
    console.print(f"{stopped_by}: drained and stopped", highlight=False)


@app.command("train-aspects")
@user_errors
def train_aspects_command(
    pack: Annotated[str | None, typer.Option("--pack", help="Aspect pack name or YAML (semcse/packs/).")] = None,
    texts: Annotated[str | None, typer.Option("--texts", help="Generated aspect texts (Parquet).")] = None,
    corpus: Annotated[str | None, typer.Option("--corpus", help="Validated corpus (file or directory).")] = None,
    base_model: Annotated[str | None, typer.Option("--base-model", help="Local HF or ST encoder directory.")] = None,
    out: Annotated[str | None, typer.Option("--out", "-o", help="Directory of the aspect encoders.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Train one aspect encoder per aspect of a pack (Ray Train runs, concurrently when CPUs allow; MLflow children).

    Example: semcse train-aspects --pack invasion_biology --texts runs/aspects --corpus corpus.parquet --base-model M
    """
    from semcse.training.aspect_encoders import train_aspects

    cfg = build_config(
        config,
        overrides,
        **{
            "multi.aspect_pack": pack,
            "multi.texts": texts,
            "corpus.path": corpus,
            "training.base_model": base_model,
            "multi.aspect_encoders": out,
        },
    )
    result = train_aspects(cfg)
    table = Table(title="aspect encoders")
    for column in ("aspect", "best step", "val score", "encoder"):
        table.add_column(column)
    for aspect, run in result.results.items():
        table.add_row(aspect, str(run.best["step"]), f"{run.best['val_score']:.2f}", str(run.model_dir))
    console.print(table)
    console.print(f"manifest → {storage.join(result.out, 'aspects.json')}; MLflow parent run {result.run_id}")


@app.command("distill")
@user_errors
def distill_command(
    aspect_encoders: Annotated[
        str | None, typer.Option("--aspect-encoders", help="Output directory of `semcse train-aspects`.")
    ] = None,
    corpus: Annotated[str | None, typer.Option("--corpus", help="Validated corpus (file or directory).")] = None,
    base_model: Annotated[str | None, typer.Option("--base-model", help="Base encoder of the unified model.")] = None,
    out: Annotated[str | None, typer.Option("--out", "-o", help="Where the unified model is saved.")] = None,
    direct: Annotated[
        bool, typer.Option("--direct", help="Ablation: train the unified model directly on aspect pairs.")
    ] = False,
    texts: Annotated[str | None, typer.Option("--texts", help="Aspect texts (needed with --direct).")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Distil the aspect encoders into one model with a head per aspect; save it and register `semcse-multi`.

    Example: semcse distill --aspect-encoders runs/aspect-encoders --corpus corpus.parquet --base-model M
    """
    from semcse.training.distill import distill

    cfg = build_config(
        config,
        overrides,
        **{
            "multi.aspect_encoders": aspect_encoders,
            "corpus.path": corpus,
            "training.base_model": base_model,
            "multi.out": out,
            "multi.direct": direct or None,
            "multi.texts": texts,
        },
    )
    result = distill(cfg)
    ranks = ", ".join(
        f"{k.removeprefix('val_rank:')} {v:.2f}" for k, v in result.best.items() if k.startswith("val_rank:")
    )
    console.print(f"best step {result.best['step']}: average target rank per aspect {ranks} (validation)")
    console.print(f"unified model ({', '.join(result.aspects)}) → {result.model_dir}")


def _weights(text: str | None) -> dict[str, float] | None:
    """`hypothesis=0.7,species=0.3` → {aspect: weight}."""
    if not text:
        return None
    weights = {}
    for item in text.split(","):
        aspect, sep, value = item.partition("=")
        try:
            weights[aspect.strip()] = float(value)
        except ValueError:
            raise ConfigError(f"--weights item {item!r} must look like aspect=weight") from None
        if not sep:
            raise ConfigError(f"--weights item {item!r} must look like aspect=weight")
    return weights


@app.command("search")
@user_errors
def search_command(
    index: Annotated[str, typer.Option("--index", help="Directory written by `semcse index build`.")],
    query: Annotated[str | None, typer.Option("--query", "-q", help="Query text.")] = None,
    paper_id: Annotated[str | None, typer.Option("--id", help="Find papers similar to this indexed paper.")] = None,
    weights: Annotated[
        str | None, typer.Option("--weights", "-w", help="Aspect weights, e.g. hypothesis=0.7,species=0.3.")
    ] = None,
    k: Annotated[int, typer.Option("--k", "-k", help="How many papers.")] = 10,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Override the index's model reference.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Aspect-weighted nearest papers, d = Σ α_a d_a with α normalised to sum 1, by query text or by paper id.

    Example: semcse search --index runs/index --query "grazing reduces invasion" --weights hypothesis=0.7,species=0.3
    """
    from semcse.models.aspects import encode_aspects
    from semcse.models.unified import UnknownAspect, load_encoder
    from semcse.search import SearchIndex
    from semcse.vector_index import VectorIndexError

    cfg = build_config(config, overrides)
    if (query is None) == (paper_id is None):
        raise ConfigError("give exactly one of --query TEXT or --id PAPER_ID")
    searcher = SearchIndex.load(index)
    try:
        alpha = searcher.weights(_weights(weights))
        if paper_id is not None:
            row = searcher.row_of(paper_id)
            hits = searcher.search(searcher.stored(row), k, alpha, exclude=row)
        else:
            encoder = load_encoder(model or searcher.model, cfg.tracking)
            hits = searcher.search(encode_aspects(encoder, [query or ""]), k, alpha)
    except (VectorIndexError, UnknownAspect) as exc:
        raise ConfigError(str(exc)) from exc
    names = {a: a or "embedding" for a in alpha}
    table = Table(title="weights " + ", ".join(f"{names[a]}={w:.2f}" for a, w in alpha.items()))
    for column in ("#", "id", "title", "distance", *(f"d[{names[a]}]" for a in alpha)):
        table.add_column(column)
    for rank, hit in enumerate(hits, 1):
        distances = [f"{hit.distances[a]:.3f}" for a in alpha]
        table.add_row(
            str(rank), hit.id, hit.title[:60], f"{sum(alpha[a] * hit.distances[a] for a in alpha):.3f}", *distances
        )
    console.print(table)


@app.command("pipeline")
@user_errors
def pipeline_command(
    config: ConfigOpt = None,
    overrides: SetOpt = None,
    start: Annotated[str | None, typer.Option("--from", help="First step to run (default: validate).")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Last step to run (default: serve).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Rerun steps an earlier run finished.")] = False,
    add: Annotated[
        str | None,
        typer.Option(
            "--add",
            help="Add these abstracts (same columns as the corpus) to the built run: only they are validated, "
            "generated for, embedded, indexed and placed on the map. Rerun the same command to resume.",
        ),
    ] = None,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="With --add: a row whose id is in the corpus with another text replaces that paper "
            "(its texts, vectors, index entry and map point) instead of being rejected.",
        ),
    ] = False,
    retrain: Annotated[
        bool,
        typer.Option(
            "--retrain", help="With --add: train, evaluate and register again on the grown corpus (default: keep)."
        ),
    ] = False,
) -> None:
    """validate → generate → train → evaluate → register → index → map → serve, resumable, under one MLflow run.

    Steps finished by an earlier run in the same run_dir are skipped, so rerunning after a crash resumes.
    Example: semcse pipeline --config demo --set training.max_steps=50
    Add to a built run: semcse pipeline --config demo --add new_abstracts.parquet
    """
    from semcse.tracking import ui_hint

    cfg = build_config(config, overrides)
    if add is None and (replace or retrain):
        raise ConfigError("--replace and --retrain go with --add NEW_ABSTRACTS")
    if add is not None:
        if start or until or force:
            raise ConfigError("--add updates a built run as a whole; it takes no --from, --until or --force")
        from semcse.update import run_update

        report = run_update(cfg, add, replace=replace, retrain=retrain)
        for line in report.lines():
            console.print(line, highlight=False, soft_wrap=True, markup=False)
        console.print(f"\nupdate {report.key}: {report.directory}/report.json", highlight=False, soft_wrap=True)
    else:
        from semcse.pipeline import Pipeline

        state = Pipeline(cfg).run(start, until, force)
        console.print(f"\nrun directory: {cfg.run_dir} (state in {state.path})", highlight=False, soft_wrap=True)
    console.print(f"MLflow UI: {ui_hint(cfg.tracking)}", highlight=False, soft_wrap=True)


def entry_point(args: list[str] | None = None) -> None:
    """The `semcse` command and the job scripts: run one command, then let the process end at once.

    By the time a command returns, torch, transformers and MLflow hold millions of objects, and the
    interpreter's teardown would walk them all in a last garbage collection: 1.6 s after `semcse
    pipeline --add` had printed its report, a fifth of its wall time. Freezing them first skips that
    walk; exit handlers (MLflow ending its run, logs flushing) still run. Only for a process that
    is about to end: a frozen object is never collected.
    """
    try:
        app(args)
    finally:
        gc.freeze()


if __name__ == "__main__":
    entry_point()
