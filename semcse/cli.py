"""The `semcse` command: one subcommand per stage, each a thin shell around the library.

This module holds the root command and the stages' commands; the command groups `semcse corpus …` and
`semcse map …` are in `semcse.commands`, with what every command shares (`commands.common`).

Every command takes `--config FILE` and repeatable `--set section.key=value`; known user errors
(bad config, unreadable corpus, unreachable cluster) print one clear message and exit with
status 2 instead of a traceback.
"""

from __future__ import annotations

import gc
import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from semcse import __version__
from semcse.commands import corpus, maps
from semcse.commands.common import (
    ConfigOpt,
    ConsoleLog,
    SetOpt,
    build_config,
    console,
    err_console,
    user_errors,
    value_errors,
)
from semcse.core import storage
from semcse.core.config import ConfigError
from semcse.core.data.modes import MODES

app = typer.Typer(
    name="semcse",
    help="Semantic, multifaceted and decodable embeddings of scientific abstracts, on Ray.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,
)
app.add_typer(corpus.app, name="corpus")
app.add_typer(maps.app, name="map")
index_app = typer.Typer(help="Searchable FAISS indexes over a corpus (one per aspect), for the search service.")
app.add_typer(index_app, name="index")


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
    from semcse.core import logs

    logs.set_verbose(verbose)
    logs.configure(ConsoleLog(err_console))


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
    from semcse.stages.evaluation.report import terminal_text
    from semcse.stages.evaluation.runner import run_evaluation

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
    run = run_evaluation(cfg)
    for ref, decoded in run.decoders.items():
        console.print(f"\n[bold]decoder[/] {ref} ({decoded['abstracts']} held-out abstracts)")
        console.print(decoded["table"], highlight=False, markup=False, soft_wrap=True)
    for result in run.suites.values():
        console.print(f"\n[bold]{result.name}[/]")
        console.print(terminal_text(result), highlight=False, markup=False, soft_wrap=True)
    if run.suites:
        console.print(f"\ntables, plots and embeddings → {run.out}")


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
    from semcse.stages.generation import run_generation

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
        typer.Option(
            "--pairs",
            help=f"{' | '.join(MODES)} | aspect:NAME; a mix of the LLM-free modes (crops+title, "
            "crops:0.3+title:0.7); or auto, the LLM-free recipe the tuning study chose.",
        ),
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
    from semcse.stages.training.trainer import prepare, train

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
    ranks = ", ".join(
        f"{k.removeprefix('val_rank_')} rank {v:.2f}" for k, v in best.items() if k.startswith("val_rank_")
    )
    console.print(f"{what}: {ranks} (validation, lower is better)")
    console.print(f"encoder → {result.model_dir}")  # the registration itself is logged where it happens


@app.command("tune")
@user_errors
def tune_command(
    study: Annotated[
        str,
        typer.Option("--study", help="A shipped study by name (in semcse/studies/, e.g. llm-free) or a YAML path."),
    ],
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Start over instead of restoring an interrupted study.")
    ] = False,
    config: Annotated[
        str | None, typer.Option("--config", "-c", help="Run config replacing the study's base file.")
    ] = None,
    overrides: SetOpt = None,
) -> None:
    """Run a Ray Tune ablation study; print and log its table (markdown, CSV, plot). Resumes when interrupted.

    --set overrides the study's fixed base config.

    Example: semcse tune --study cropping --set training.base_model=MODEL_DIR --set training.max_steps=100
    """
    from semcse.orchestration.tuning.runner import run_study
    from semcse.orchestration.tuning.study import load_study

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


@app.command("train-decoder")
@user_errors
@value_errors
def train_decoder_command(
    texts: Annotated[str | None, typer.Option("--texts", help="Generated texts (Parquet shards).")] = None,
    encoder: Annotated[str | None, typer.Option("--encoder", help="Encoder embedding the summaries.")] = None,
    base_model: Annotated[str | None, typer.Option("--base-model", help="Local causal LM (kept frozen).")] = None,
    aspect: Annotated[str | None, typer.Option("--aspect", help="summary | aspect:NAME.")] = None,
    out: Annotated[str | None, typer.Option("--out", "-o", help="Where the decoder directory goes.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Train an embedding → text decoder (on Ray Train; decoder.launcher=local: in this process); log to MLflow and
    register `semcse-decoder` when a trained step beats the untrained decoder.

    Example: semcse train-decoder --texts runs/demo/texts --encoder models:/semcse-encoder@champion
    --base-model /models/Llama-3-8B --aspect aspect:species
    """
    from semcse.stages.training.decoder import run

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
    shown = {k: v for k, v in result.metrics.items() if k.startswith("val_") or k in ("step", "best_step")}
    console.print(", ".join(f"{k}={v:.4g}" for k, v in shown.items()))
    if result.version:
        console.print(f"registered {cfg.decoder.register_name} v{result.version} @{cfg.decoder.register_alias}")


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
    from semcse.stages.search import run_index

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
        str | None, typer.Option("--host", help="HTTP host (default 127.0.0.1; 0.0.0.0 answers other machines).")
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
    from semcse.orchestration.serving import StopSignals, drain, run_serve

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
    from semcse.stages.training.aspect_encoders import train_aspects

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
    from semcse.stages.training.distill import distill

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
    from semcse.core.vector_index import VectorIndexError
    from semcse.models.aspects import encode_aspects, parse_weights
    from semcse.models.unified import UnknownAspect, load_encoder
    from semcse.stages.search import SearchIndex

    cfg = build_config(config, overrides)
    if (query is None) == (paper_id is None):
        raise ConfigError("give exactly one of --query TEXT or --id PAPER_ID")
    searcher = SearchIndex.load(index)
    try:
        alpha = searcher.weights(parse_weights(weights) or None)
        if paper_id is not None:
            hits = searcher.neighbours(paper_id, k, alpha)
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
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Rerun steps an earlier run finished. Without it a finished step is skipped unless its settings "
            "changed or a step it reads was made again since.",
        ),
    ] = False,
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
    from semcse.core.tracking import ui_hint

    cfg = build_config(config, overrides)
    if add is None and (replace or retrain):
        raise ConfigError("--replace and --retrain go with --add NEW_ABSTRACTS")
    if add is not None:
        if start or until or force:
            raise ConfigError("--add updates a built run as a whole; it takes no --from, --until or --force")
        from semcse.orchestration.update import run_update

        report = run_update(cfg, add, replace=replace, retrain=retrain)
        for line in report.lines():
            console.print(line, highlight=False, soft_wrap=True, markup=False)
        console.print(f"\nupdate {report.key}: {report.directory}/report.json", highlight=False, soft_wrap=True)
    else:
        from semcse.orchestration.pipeline import Pipeline

        state = Pipeline(cfg).run(start, until, force)
        console.print(f"\nrun directory: {cfg.run_dir} (state in {state.path})", highlight=False, soft_wrap=True)
    console.print(f"MLflow UI: {ui_hint(cfg.tracking)}", highlight=False, soft_wrap=True)


def entry_point(args: list[str] | None = None) -> None:
    """The `semcse` command and the job scripts: run one command, then let the process end at once.

    By the time a command returns, torch, transformers and MLflow hold millions of objects, which the
    interpreter's teardown would walk in a last garbage collection (docs/BENCHMARKS.md, `update.py`).
    Freezing them skips that walk; exit handlers (MLflow ending its run, logs flushing) still run.
    """
    try:
        app(args)
    finally:
        gc.freeze()


if __name__ == "__main__":
    entry_point()
