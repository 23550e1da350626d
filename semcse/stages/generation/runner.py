"""The generation run: corpus → units not yet done → Ray Data (requests → engine) → Parquet shards.

Work is keyed by unit (an abstract, or a pair for judgements) and by the run's settings: the
directory's manifest (`data.generated`) says which units are finished under which settings, so a
rerun generates only the rest, whatever `--limit`, shard size or corpus order the earlier run had.
The driver cuts the remaining units into shards of `shard_rows`, streams them through Ray Data and
writes each shard the moment its last sample is parsed, then records it in the manifest, so memory
holds only shards in flight. Unparsable answers are retried up to `max_json_retries` times, then
recorded as rejects with their raw output: in place by engines that can (the transformers actor
holds its model), else in further rounds restricted to the failing samples; the units of a shard
that are already final are written at once and only the failing units wait for their retry. A
crash loses at most unfinished units, and a rerun duplicates nothing.

An engine failure is not a verdict on a unit: a unit with a sample the engine failed on (an http
error after its retries, a vLLM error row) is left out of its shard, neither row nor reject, and
stays unfinished, so the next run generates exactly those units (an outage costs a rerun, never
data). Rejects are final (`generation.retry_rejects` regenerates their units on purpose).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
import pyarrow as pa
from tqdm import tqdm

from semcse.core import storage
from semcse.core.config import ConfigError, GenerationConfig, RunConfig, TrackingConfig
from semcse.core.data.generated import Manifest, describe_settings, settings_key, unit_hash
from semcse.core.data.io import read_corpus
from semcse.core.data.schema import records
from semcse.core.data.shards import content_key, shard_path, write_shard
from semcse.core.data.split import frame_splits
from semcse.core.runtime import connect
from semcse.core.tracking import Tracker, registry_version, resolve_model
from semcse.stages.generation.engines import (
    apply_engine,
    encodable_stop_strings,
    request_stage_resources,
    retries_in_place,
)
from semcse.stages.generation.parsing import Parsed
from semcse.stages.generation.stages import ONLY, ROUND, SHARD, build_requests
from semcse.stages.generation.stats import RunStats
from semcse.stages.generation.tasks import UNIT, Task, build_task
from semcse.stages.generation.tokens import TokenCounter, tokenizer_source

log = logging.getLogger(__name__)

REJECTS_DIR = "_rejects"
REPORT_FILE = "_report.json"
READ_THREADS = 16
SAMPLE_ROWS = 50  # generated rows logged to MLflow as a sample, to read without opening the shards
SampleKey = tuple[str, str, int]


class GenerationIncomplete(RuntimeError):
    """Units left unfinished by engine errors, where a caller cannot go on without them (a pipeline step)."""


@dataclass
class GenerationReport:
    """What a run did; `units_reused` are units a previous run had already finished with these settings.

    `units_unfinished` are units left for the next run because the engine failed on one of their
    samples (`engine_errors`: failed samples by cause); `reject_reasons` counts rejects by cause.
    """

    task: str
    engine: str
    model: str
    out: str
    units: int
    units_reused: int
    shards_total: int
    shards_written: int = 0
    rows_written: int = 0
    rejects_written: int = 0
    units_unfinished: int = 0
    engine_errors: dict[str, int] = field(default_factory=dict)
    reject_reasons: dict[str, int] = field(default_factory=dict)
    exact_token_counts: bool = True
    metrics: dict[str, float] = field(default_factory=dict)
    na_rate: dict[str, float] = field(default_factory=dict)
    run_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def require_finished(self) -> None:
        """Raise `GenerationIncomplete` when units were left for another run: a step that trains on these texts
        must not be recorded as done (a rerun of a recorded step is skipped, and the units would never come)."""
        if self.units_unfinished:
            causes = ", ".join(f"{cause}: {n}" for cause, n in sorted(self.engine_errors.items()))
            raise GenerationIncomplete(
                f"generation left {self.units_unfinished} units unfinished after engine errors ({causes}) in "
                f"{self.out}; run it again when the engine is back: finished units are kept, only those are generated"
            )


class Sample(NamedTuple):
    """A sample's latest outcome: parsed answer, raw text, attempts so far, and the engine's error if it failed."""

    parsed: Parsed
    raw: str
    attempts: int
    error: str


@dataclass
class Shard:
    """One shard's units and, while it is in flight, the outcome of every sample so far."""

    key: str
    units: pd.DataFrame
    hashes: dict[str, str]
    pending: int = 0
    results: dict[SampleKey, Sample] = field(default_factory=dict)
    retry: dict[str, dict[str, list[int]]] = field(default_factory=dict)


def error_cause(error: str) -> str:
    """The cause of an engine error without its details: `http 503`, `ReadTimeout`, `ValueError`."""
    cause = re.sub(r"^gave up after \d+ attempts: ", "", error)
    return cause.split(":", 1)[0].strip()[:80] or "unknown"


def output_dir(cfg: RunConfig) -> str:
    return cfg.generation.out or storage.join(cfg.run_dir, "generation", cfg.generation.task)


def engine_model(gen: GenerationConfig, tracking: TrackingConfig) -> str:
    """The model the engine loads or, for http, the name the server serves; checked here, loaded by the actors.

    A directory, a storage URI or a registry reference (pinned to its version, so every actor loads
    the same weights). vLLM reads local directories and `s3://`/`gs://` URIs itself; a registry
    reference becomes the URI its version was logged at.
    """
    if not gen.model:
        what = "the model name the server serves" if gen.engine == "http" else "a model directory or URI"
        raise ConfigError(f"no engine model configured: set generation.model (or --model) to {what}")
    if gen.engine == "http":
        return gen.model
    if gen.model.startswith("models:/"):
        version = registry_version(gen.model, tracking)
        return str(version.source) if gen.engine == "vllm" else f"models:/{version.name}/{version.version}"
    if storage.is_uri(gen.model):
        if not storage.is_dir(gen.model):
            raise FileNotFoundError(f"model directory not found: {gen.model}")
        return gen.model
    model = resolve_model(gen.model, tracking)
    if gen.engine == "transformers" and not Path(model).is_dir():
        raise FileNotFoundError(f"model directory not found: {gen.model} (the transformers engine loads directories)")
    return model


def plan_shards(units: pd.DataFrame, hashes: list[str], settings: dict[str, Any], shard_rows: int) -> list[Shard]:
    """Cut units (with their content hashes) into shards keyed by their content plus what shapes the output."""
    shards = []
    for start in range(0, len(units), shard_rows):
        chunk = units.iloc[start : start + shard_rows].reset_index(drop=True)
        names = [str(u) for u in chunk[UNIT]]
        key = content_key(chunk.to_dict("records"), settings)
        shards.append(Shard(key, chunk, dict(zip(names, hashes[start : start + shard_rows]))))
    return shards


def run_settings(gen: GenerationConfig, task: Task, model: str) -> dict[str, Any]:
    """What shapes the generated texts: outputs made with other settings are never reused or mixed.

    Retry counts, batch sizes and concurrency only change how the work is done, not what it yields,
    so a rerun with more retries or more actors reuses what is finished.
    """
    keep = ("engine", "top_p", "seed", "max_model_len")
    constrained = {"structured_output": gen.structured_output} if gen.engine != "transformers" else {}
    return {
        **task.settings(),
        "model": model,
        "max_new_tokens": gen.new_tokens,
        "temperature": gen.sampling_temperature,
        **{k: getattr(gen, k) for k in keep},
        **constrained,
    }


class Generation:
    """One run of one task over the shards that are not finished yet."""

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg
        self.gen = cfg.generation
        if not cfg.corpus.path:
            raise ConfigError("no corpus: set corpus.path (or --corpus)")
        self.corpus_path = cfg.corpus.path
        self.task = build_task(self.gen)
        self.model = engine_model(self.gen, cfg.tracking)
        self.tokenizer = tokenizer_source(self.model, self.gen.tokenizer)
        # transformers raises inside `generate` (in an actor: the whole job) on a stop string its tokenizer
        # cannot encode; which ones it can is settled here, before any Ray work
        self.stop_strings = (
            encodable_stop_strings(self.model, self.task.stop) if self.gen.engine == "transformers" else []
        )
        self.out = output_dir(cfg)
        self.stats = RunStats()
        self.samples_logged: list[dict[str, Any]] = []
        self.prompt_order = {pid: i for i, pid in enumerate(self.task.samples())}
        self.rounds = 1 if retries_in_place(self.gen) else self.gen.max_json_retries + 1
        self.settings = run_settings(self.gen, self.task, self.model)
        self.settings_key = settings_key(self.settings)
        self.manifest = Manifest.load(self.out)
        self.in_flight: dict[str, Shard] = {}

    def plan(self) -> tuple[list[Shard], int, int]:
        """Shards of the units not finished under these settings; also the number of units and of reused ones."""
        corpus = read_corpus(self.corpus_path, self.cfg.corpus)
        if self.gen.limit:
            corpus = corpus.head(self.gen.limit)
        units = self.task.units(corpus, frame_splits(corpus, self.cfg.corpus))
        finished = self.manifest.finished_units(self.settings_key)
        if self.gen.retry_rejects:
            rejected = self.rejected_units()
            log.info(
                "%d finished units have rejected samples: generated again (generation.retry_rejects)", len(rejected)
            )
            finished = {unit: content for unit, content in finished.items() if unit not in rejected}
        hashes = [unit_hash(r) for r in records(units)]
        done = [finished.get(str(u)) == h for u, h in zip(units[UNIT], hashes)]
        todo = plan_shards(
            units[[not d for d in done]],
            [h for h, d in zip(hashes, done) if not d],
            self.settings,
            self.gen.shard_rows,
        )
        if todo:
            self.check_context(records(todo[0].units.iloc[:1])[0])
        others = {k: s for k, s in self.manifest.used_settings().items() if k != self.settings_key}
        if others:
            log.warning(
                "%s also holds outputs of other settings (%s); readers refuse to mix them unless "
                "generation.combine_settings=true",
                self.out,
                "; ".join(describe_settings(s) for s in others.values()),
            )
        return todo, len(units), sum(done)

    def rejected_units(self) -> set[str]:
        """Units with a reject in the shard that holds their rows, under these settings."""
        shards = [key for key, entry in self.manifest.shards.items() if entry["settings"] == self.settings_key]
        rejects_dir = storage.join(self.out, REJECTS_DIR)

        def units_of(shard: str) -> set[str]:
            path = shard_path(rejects_dir, shard)
            if not storage.is_file(path):
                return set()
            rejects = storage.read_parquet(path).to_pandas()
            return set(self.task.unit_of(rejects)) & self.manifest.claimed(shard) if len(rejects) else set()

        with ThreadPoolExecutor(READ_THREADS) as pool:
            return set().union(*pool.map(units_of, shards))

    def check_context(self, unit: dict[str, Any]) -> None:
        """Fail on the driver, with a config error, when the prompt alone leaves no room in the context."""
        self.task.requests(unit, TokenCounter(self.tokenizer), self.gen.max_model_len - self.gen.new_tokens)

    def run(self) -> GenerationReport:
        todo, units, reused = self.plan()
        report = GenerationReport(
            task=self.gen.task,
            engine=self.gen.engine,
            model=self.model,
            out=str(self.out),
            units=units - reused,
            units_reused=reused,
            shards_total=len(todo),
            exact_token_counts=self.tokenizer is not None,
        )
        log.info("%d of %d units to generate (%d done earlier) in %s", units - reused, units, reused, self.out)
        tags = {"stage": "generation", "task": self.gen.task, "engine": self.gen.engine}
        with Tracker.start(self.cfg.tracking, run_name=f"generate-{self.gen.task}", tags=tags) as tracker:
            report.run_id = tracker.run_id
            tracker.log_params(self.gen, prefix="generation.")
            tracker.log_params({"corpus.path": str(self.cfg.corpus.path), "out": str(self.out)})
            if todo:
                self.generate(todo, report)
            report.metrics = self.stats.metrics()
            report.na_rate = self.stats.na_rates()
            report.reject_reasons = dict(self.stats.reject_reasons)
            if report.units_unfinished:
                log.warning(
                    "%d units not finished: the engine failed on %d of their samples (%s); run the same command "
                    "again to generate exactly those units",
                    report.units_unfinished,
                    sum(report.engine_errors.values()),
                    ", ".join(f"{cause}: {n}" for cause, n in sorted(report.engine_errors.items())),
                )
            tracker.log_metrics(
                report.metrics
                | {
                    "shards_written": report.shards_written,
                    "units_reused": report.units_reused,
                    "units_unfinished": report.units_unfinished,
                }
            )
            tracker.log_dict(self.samples_logged, "samples.json")
            tracker.log_dict(report.to_dict(), "report.json")
        storage.write_json(storage.join(self.out, REPORT_FILE), report.to_dict())
        return report

    def generate(self, todo: list[Shard], report: GenerationReport) -> None:
        wanted = self.task.samples()
        for shard in todo:
            shard.pending = len(shard.units) * sum(wanted.values())
        first: dict[str, Any] = {ONLY: "", ROUND: 0}
        frames = {s.key: s.units.assign(**first, **{SHARD: s.key}) for s in todo}
        self.in_flight = {s.key: s for s in todo}
        for attempt in range(self.rounds):
            if not frames:
                break
            held = self.round(frames, self.in_flight, attempt, report)
            frames = {key: self.retry_units(self.in_flight[key], attempt + 1) for key in held}

    def round(
        self, frames: dict[str, pd.DataFrame], shards: dict[str, Shard], attempt: int, report: GenerationReport
    ) -> list[str]:
        """Stream one attempt through Ray Data; returns the shards held back for another attempt."""
        import ray.data

        resources = request_stage_resources(self.gen)
        ds = ray.data.from_pandas(list(frames.values())).map_batches(
            build_requests,  # type: ignore[arg-type]  # Ray types a UDF over every batch format; ours is pandas
            fn_kwargs={
                "task": self.task,
                "tokenizer_path": self.tokenizer,
                "max_prompt_tokens": self.gen.max_model_len - self.gen.new_tokens,
                "seed": self.gen.seed,
            },
            batch_format="pandas",
            num_cpus=resources["num_cpus"],
            num_gpus=resources.get("num_gpus"),
        )
        results = apply_engine(ds, self.gen, self.model, self.task, len(frames), self.stop_strings)
        held: list[str] = []
        expected = sum(shards[key].pending for key in frames)
        desc = f"generate {self.gen.task}" + (f" (retry {attempt})" if attempt else "")
        with tqdm(total=expected, desc=desc, unit="sample", dynamic_ncols=True) as bar:
            for batch in _pandas_batches(results):
                for row in records(batch):
                    shard = shards[row[SHARD]]
                    self.record(shard, row, attempt)
                    if shard.pending == 0:
                        self.complete(shard, attempt, held, report)
                bar.update(len(batch))
                rates = self.stats.rates()
                bar.set_postfix(
                    prompt_tok_s=f"{rates['prompt_tokens_per_s']:.0f}",
                    gen_tok_s=f"{rates['generated_tokens_per_s']:.0f}",
                )
        return held

    def record(self, shard: Shard, row: dict[str, Any], attempt: int) -> None:
        """A sample's latest answer; `attempt` counts the rounds before this one, `attempts` the engine's tries."""
        error = str(row["error"] or "")
        self.stats.add_sample(
            int(row["prompt_tokens"]),
            int(row["generated_tokens"]),
            int(row["truncated"]) if attempt == 0 else 0,
            error,
        )
        tries = int(row["attempts"])
        self.stats.retried += tries - 1 + (attempt > 0)
        parsed = (
            Parsed("invalid", reason=f"engine error: {error}")
            if error
            else self.task.parse(row["prompt_id"], row["raw"], str(row["finish_reason"] or ""))
        )
        key = (str(row[UNIT]), row["prompt_id"], int(row["sample"]))
        shard.results[key] = Sample(parsed, row["raw"], attempt + tries, error)
        shard.pending -= 1

    def complete(self, shard: Shard, attempt: int, held: list[str], report: GenerationReport) -> None:
        """Write the shard, or, when samples failed and rounds remain, its final units now and the rest later.

        The failing units move to a retry shard of their own, so one bad sample never holds back the
        other units of its shard (and a crash before the retry round loses only the failing units).
        """
        invalid = [key for key, sample in shard.results.items() if sample.parsed.status == "invalid"]
        if not invalid or attempt == self.rounds - 1:
            self.write(shard, report)
            return
        retry: dict[str, dict[str, list[int]]] = {}
        for unit, prompt_id, sample in invalid:
            retry.setdefault(unit, {}).setdefault(prompt_id, []).append(sample)
        failing = shard.units[UNIT].astype(str).isin(list(retry))
        waiting = self.split(shard, failing)
        waiting.retry, waiting.pending = retry, len(invalid)
        if failing.all():
            self.in_flight[shard.key] = waiting
        else:
            self.write(self.split(shard, ~failing), report)
            self.in_flight.pop(shard.key, None)
            self.in_flight[waiting.key] = waiting
        held.append(waiting.key)

    def split(self, shard: Shard, rows: pd.Series) -> Shard:
        """The part of a shard made of some of its units, with their results so far (same key if it is all)."""
        units = shard.units[rows.to_numpy()].reset_index(drop=True)
        names = set(units[UNIT].astype(str))
        key = shard.key if len(units) == len(shard.units) else content_key(units.to_dict("records"), self.settings)
        part = Shard(key, units, {u: h for u, h in shard.hashes.items() if u in names})
        part.results = {k: v for k, v in shard.results.items() if k[0] in names}
        return part

    def retry_units(self, shard: Shard, attempt: int) -> pd.DataFrame:
        units = shard.units[shard.units[UNIT].astype(str).isin(list(shard.retry))]
        only = units[UNIT].map(lambda u: json.dumps(shard.retry[str(u)]))
        return units.assign(**{SHARD: shard.key, ONLY: only, ROUND: attempt})

    def write(self, shard: Shard, report: GenerationReport) -> None:
        """The shard's finished units: rejects first, then the shard itself, whose manifest entry marks them finished.

        Units the engine failed on are left out whole (neither rows nor rejects), so they stay unfinished.
        """
        failed = {unit for (unit, _, _), sample in shard.results.items() if sample.error}
        original = shard
        if failed:
            for failure in shard.results.values():
                if failure.error:
                    cause = error_cause(failure.error)
                    report.engine_errors[cause] = report.engine_errors.get(cause, 0) + 1
            report.units_unfinished += len(failed)
            finished = ~shard.units[UNIT].astype(str).isin(list(failed))
            if not finished.any():
                shard.results.clear()
                return
            shard = self.split(shard, finished)
        unit_order = {str(unit): i for i, unit in enumerate(shard.units[UNIT])}
        keys = sorted(shard.results, key=lambda k: (unit_order[k[0]], self.prompt_order[k[1]], k[2]))
        rows, rejects = [], []
        for unit, prompt_id, sample in keys:
            parsed, raw, attempts, _ = shard.results[(unit, prompt_id, sample)]
            outcome = "rejected" if parsed.status == "invalid" else parsed.status
            self.stats.add_outcome(prompt_id, outcome, parsed.reason)
            if outcome == "rejected":
                rejects.append(self.task.reject(unit, prompt_id, sample, parsed, raw, attempts))
            else:
                rows.append(self.task.row(unit, prompt_id, sample, parsed))
        rejected = pa.Table.from_pylist(rejects, schema=self.task.rejects_schema)
        write_shard(storage.join(self.out, REJECTS_DIR), shard.key, rejected)
        table = pa.Table.from_pylist(rows, schema=self.task.schema)
        self.manifest.add_shard(shard.key, table, self.settings, shard.hashes)
        room = SAMPLE_ROWS - len(self.samples_logged)
        self.samples_logged.extend(rows[: max(room, 0)])
        report.shards_written += 1
        report.rows_written += len(rows)
        report.rejects_written += len(rejects)
        shard.results.clear()
        original.results.clear()


def run_generation(cfg: RunConfig) -> GenerationReport:
    """Generate the configured task's outputs into `generation.out`, resuming where a previous run stopped."""
    return Generation(connect(cfg)).run()


def _pandas_batches(dataset: Any) -> Iterator[pd.DataFrame]:
    """A Ray Dataset's batches as DataFrames, as they come (Ray's types cover every batch format)."""
    yield from dataset.iter_batches(batch_format="pandas", batch_size=None)
