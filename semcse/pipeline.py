"""The end-to-end pipeline: validate → generate → train → evaluate → register → index → map → serve.

Each step writes under one run directory (a local path, or a storage URI such as `s3://bucket/run`
that every node of a cluster reaches) and logs under one MLflow parent run. The state file
`<run_dir>/pipeline.json` records each finished step with its outputs, so a rerun after a crash
skips what is done (generation is never redone because training died) and keeps logging into
the same parent run. `start`/`until` run a slice; a slice that needs an earlier step's outputs
says which step to run first. The index and the map are versioned roots (`semcse.versions`), so a
corpus update (`semcse.update`) can publish grown versions that served apps pick up.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from semcse import logs, storage
from semcse.config import ConfigError, RunConfig
from semcse.tracking import Tracker, set_alias

log = logging.getLogger(__name__)
STEPS = ("validate", "generate", "train", "evaluate", "register", "index", "map", "serve")
STATE_FILE = "pipeline.json"


@dataclass
class PipelineState:
    """What is finished: persisted (whole, after every step) so a killed run resumes where it stopped."""

    path: str
    parent_run_id: str | None = None
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, run_dir: str) -> PipelineState:
        path = storage.join(run_dir, STATE_FILE)
        if not storage.is_file(path):
            return cls(path)
        data = storage.read_json(path)
        return cls(path, data.get("parent_run_id"), data.get("steps", {}))

    def save(self) -> None:
        storage.write_json(self.path, {"parent_run_id": self.parent_run_id, "steps": self.steps})

    def outputs(self, step: str) -> dict[str, Any]:
        if step not in self.steps:
            raise ConfigError(f"step {step!r} has not run yet in this run directory; run the pipeline from {step!r}")
        return self.steps[step]["outputs"]


def step_range(start: str | None, until: str | None) -> list[str]:
    """The steps from `start` to `until` inclusive, in pipeline order."""
    for name in (start, until):
        if name is not None and name not in STEPS:
            raise ConfigError(f"unknown step {name!r}; steps are {', '.join(STEPS)}")
    first = STEPS.index(start) if start else 0
    last = STEPS.index(until) if until else len(STEPS) - 1
    if first > last:
        raise ConfigError(f"--from {start} comes after --until {until}")
    return list(STEPS[first : last + 1])


def _versus_incumbent(tables: dict[str, Any], metric: str) -> dict[str, Any] | None:
    """The evaluation's paired `trained − incumbent` difference on `SUITE:COLUMN`, or None when it was not computed."""
    suite, _, column = metric.partition(":")
    return tables.get(suite, {}).get("versus_incumbent", {}).get(column)


def _evidence(incumbent: str, metric: str, comparison: dict[str, Any]) -> str:
    """`trained − base on suite:column: −0.043 (95% CI [−0.085, −0.011])`."""
    return (
        f"trained − {incumbent} on {metric}: {comparison['difference']:+.3f} "
        f"(95% CI [{comparison['low']:+.3f}, {comparison['high']:+.3f}])"
    )


class Pipeline:
    """Runs the configured steps in order; each step calls its stage and returns its outputs (JSON-serialisable).

    Progress is reported through `logging` (a heading per step, one line per event); how it looks is
    the caller's choice (`semcse.logs`, the CLI).
    """

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg  # resolved by `run` (`runtime.connect`), which first checks it as the user gave it
        self.run_dir = storage.normalize(cfg.run_dir)
        self.state = PipelineState.load(self.run_dir)

    def run(self, start: str | None = None, until: str | None = None, force: bool = False) -> PipelineState:
        steps = step_range(start, until)
        self._check_ready(steps)
        from semcse.runtime import connect

        self.cfg = connect(self.cfg)
        parent = self._parent()
        try:
            with parent.as_parent():
                for step in steps:
                    self._run_step(step, parent, force)
        except BaseException:
            parent.finish("FAILED")
            raise
        if all(s in self.state.steps for s in STEPS):
            parent.finish("FINISHED")
        return self.state

    def _run_step(self, step: str, parent: Tracker, force: bool) -> None:
        if step in self.state.steps and not force:
            log.info("✓ %s: done in an earlier run, skipped", step, extra=logs.stage("pipeline"))
            return
        log.info(step, extra=logs.HEADING)
        began = time.time()
        outputs = self._steps()[step]()
        seconds = round(time.time() - began, 1)
        self.state.steps[step] = {"outputs": outputs, "seconds": seconds}
        self.state.save()
        parent.log_metrics({f"pipeline/{step}_seconds": seconds})

    def _parent(self) -> Tracker:
        if self.state.parent_run_id:
            return Tracker.resume(self.cfg.tracking, self.state.parent_run_id)
        parent = Tracker.start(self.cfg.tracking, run_name=f"pipeline-{self.cfg.name}", tags={"stage": "pipeline"})
        parent.log_params(self.cfg)
        self.state.parent_run_id = parent.run_id
        self.state.save()
        return parent

    def _check_ready(self, steps: list[str]) -> None:
        """Fail before any work when a needed setting is missing (not after an hour of generation)."""
        if "validate" in steps and not self.cfg.corpus.path:
            raise ConfigError("corpus.path is not set: the pipeline needs a corpus to validate")
        if "train" in steps and not self.cfg.training.base_model:
            raise ConfigError("training.base_model is not set: the pipeline needs a base encoder to train from")
        needs_generation = not self.cfg.training.crop_based and not self.cfg.generation.model
        if "train" in steps and needs_generation and "generate" not in self.state.steps:
            raise ConfigError(
                f"training.pairs={self.cfg.training.pairs!r} trains on generated texts but generation.model is not "
                "set; set it, or use training.pairs=crops for the LLM-free mode"
            )

    def _steps(self) -> dict[str, Callable[[], dict[str, Any]]]:
        return {
            "validate": self.validate,
            "generate": self.generate,
            "train": self.train,
            "evaluate": self.evaluate,
            "register": self.register,
            "index": self.index,
            "map": self.map,
            "serve": self.serve,
        }

    def validate(self) -> dict[str, Any]:
        from semcse.data.validation import run_validation

        report = run_validation(self.cfg, storage.join(self.run_dir, "corpus"))
        counts = report.counts
        log.info(
            "in = accepted + rejected: %s = %s + %s %s",
            f"{counts.total:,}",
            f"{counts.accepted:,}",
            f"{counts.rejected:,}",
            counts.reasons,
            extra=logs.stage("validate"),
        )
        if counts.accepted == 0:
            raise ConfigError(f"no valid rows in {self.cfg.corpus.path}; see {report.rejects}")
        return {"corpus": str(report.accepted), "rejects": str(report.rejects), **counts.to_dict()}

    def generate(self) -> dict[str, Any]:
        if not self.cfg.generation.model:
            log.info("no generation.model configured: LLM-free run, nothing to generate", extra=logs.stage("generate"))
            return {"texts": None}
        from semcse.generation import run_generation

        out = storage.join(self.run_dir, "texts")
        cfg = self._on_validated({"generation.out": out})
        report = run_generation(cfg)
        report.require_finished()
        return {"texts": str(out), "rows": report.rows_written, "rejects": report.rejects_written}

    def train(self) -> dict[str, Any]:
        from semcse.training.trainer import train

        texts = self.state.steps.get("generate", {}).get("outputs", {}).get("texts")
        updates = {"training.out": storage.join(self.run_dir, "model")}
        if texts:
            updates["training.texts"] = texts
        result = train(self._on_validated(updates))
        return {
            "model": str(result.model_dir),
            "version": result.model_version,
            "improved": result.improved,
            "run_id": result.run_id,
            "best": result.best,
        }

    def evaluate(self) -> dict[str, Any]:
        """Base, trained and (when registered) current champion side by side, with paired differences.

        The corpus is scored on its test split only (`evaluation.split`); separate data given as
        `evaluation.data` is scored whole unless the split is set explicitly.
        """
        from semcse.evaluation.report import terminal_text
        from semcse.evaluation.runner import evaluate

        trained = self.state.outputs("train")["model"]
        pooling = self.cfg.training.pooling
        base = f"base={self.cfg.training.base_model}" + (f"#{pooling}" if pooling else "")
        models = [base, f"trained={trained}"]
        champion = self._champion()
        if champion is not None:
            models.append(f"champion={champion[1]}")
        incumbent = "champion" if champion is not None else "base"
        if self.cfg.evaluation.data:
            whole = "split" not in self.cfg.evaluation.model_fields_set
            cfg = self._with({"evaluation.split": "all"}) if whole else self.cfg
        else:
            cfg = self._on_validated({})
        data = cfg.evaluation.data or cfg.corpus.path
        if not data:
            raise ConfigError("nothing to evaluate on: set evaluation.data or corpus.path")
        out = storage.join(self.run_dir, "evaluation")
        suites = [s for s in cfg.evaluation.suites if s != "decoder"]
        results = evaluate(suites, models, data, out, cfg)
        tables = {}
        for name, result in results.items():
            log.info("\n%s\n%s", name, terminal_text(result), extra=logs.BLOCK)
            tables[name] = {
                "table": json.loads(result.table.to_json(orient="index")),
                "intervals": json.loads(result.intervals.to_json(orient="index")),
                "lower_is_better": sorted(result.lower_is_better),
                "versus_incumbent": {m: d.to_dict() for m, d in result.differences("trained", incumbent).items()},
            }
        return {
            "out": out,
            "suites": tables,
            "incumbent": incumbent,
            "champion_version": champion[0] if champion else None,
        }

    def _champion(self) -> tuple[str, str] | None:
        """(version, reference) of the registered `@champion`, the model a new one must beat.

        The reference names the version (`models:/name/7`), resolved by whichever node embeds with it.
        """
        from semcse.tracking import alias_version

        name = self.cfg.training.register_name
        version = alias_version(self.cfg.tracking, name, "champion")
        if version is None:
            return None
        return version, f"models:/{name}/{version}"

    def register(self) -> dict[str, Any]:
        """Promote the trained model to @champion only when it beats the incumbent with an interval excluding zero
        on `pipeline.metric`, and is significantly worse on none of the `pipeline.guards` the evaluation computed.

        The incumbent is the current champion, or the base model when there is none. A tie or a
        difference the paired bootstrap cannot tell from noise keeps the incumbent.
        """
        evaluation = self.state.outputs("evaluate")
        tables = evaluation["suites"]
        comparison = _versus_incumbent(tables, self.cfg.pipeline.metric)
        if comparison is None:
            raise ConfigError(
                f"pipeline.metric={self.cfg.pipeline.metric!r} is not in the evaluation results "
                f"(suites: {sorted(tables)}); use SUITE:COLUMN"
            )
        incumbent = evaluation["incumbent"]
        evidence = _evidence(incumbent, self.cfg.pipeline.metric, comparison)
        guards = {guard: _versus_incumbent(tables, guard) for guard in self.cfg.pipeline.guards}
        losses = {guard: found for guard, found in guards.items() if found and found["verdict"] == "worse"}
        unchecked = [guard for guard, found in guards.items() if found is None]
        if unchecked:
            log.info(
                "not checked: %s (the evaluation computed no such column: a suite that did not run, or a corpus "
                "without labels); promotion goes by the guards that were",
                ", ".join(unchecked),
                extra=logs.stage("register"),
            )
        version = self.state.outputs("train")["version"]
        name = self.cfg.training.register_name
        promoted = version is not None and comparison["verdict"] == "better" and not losses
        if version is None:
            verdict = f"training did not beat the base model on validation, so nothing was registered; {evidence}"
        elif promoted:
            set_alias(self.cfg.tracking, name, "champion", version)
            verdict = f"trained model beats the {incumbent}: {evidence} → {name}@champion = version {version}"
        elif comparison["verdict"] == "better":
            worse = "; ".join(_evidence(incumbent, guard, found) for guard, found in losses.items())
            verdict = f"better ({evidence}) but worse on a guard metric ({worse}); keeping the {incumbent}"
        else:
            outcome = "the trained model is worse" if comparison["verdict"] == "worse" else comparison["verdict"]
            verdict = f"{outcome}: {evidence}; keeping the {incumbent}"
        log.info(verdict, extra=logs.stage("register"))
        return {
            "champion": promoted,
            "incumbent": incumbent,
            "difference": comparison,
            "guard_losses": losses,
            "guards_not_checked": unchecked,
            "verdict": verdict,
        }

    def index(self) -> dict[str, Any]:
        if not self.cfg.pipeline.build_index:
            return {"index": None}
        from semcse.search import run_index

        model = self.state.outputs("train")["model"]
        report = run_index(self._on_validated({}), model, storage.join(self.run_dir, "index"), versioned=True)
        return {"index": report.out, "papers": report.papers, "model": model, "version": report.version}

    def map(self) -> dict[str, Any]:
        """The corpus laid out with the trained model (`map` settings), for `semcse map`, the map app and updates.

        Papers are embedded on Ray Data actors (reusing the index step's vectors) and laid out in a
        Ray task, so neither runs in the driver (on a cluster, a head node without CPUs for work).
        """
        if not self.cfg.pipeline.build_map:
            return {"map": None}
        from semcse import versions
        from semcse.data.io import read_corpus
        from semcse.embedding import EMBEDDINGS_DIR, ModelRef, embed_papers
        from semcse.maps import layout_papers
        from semcse.runtime import run_remote

        model = self.state.outputs("train")["model"]
        frame = read_corpus(self.state.outputs("validate")["corpus"])
        embedded = embed_papers(
            ModelRef(model, model), frame, storage.join(self.run_dir, EMBEDDINGS_DIR), self.cfg.evaluation
        )
        semantic_map = run_remote(layout_papers, frame, embedded.vectors, self.cfg.map, self.cfg.corpus.label_col)
        out = storage.join(self.run_dir, "map")
        version, _ = versions.publish(out, "build", semantic_map.save)
        return {"map": out, "points": len(semantic_map), "model": model, "version": version}

    def serve(self) -> dict[str, Any]:
        """The run's apps: embed, search (with the generated texts, when the run has them) and map; together
        the search and map apps serve the explorer page at the map's URL."""
        if not self.cfg.pipeline.deploy:
            return {"deployed": False}
        from semcse.serving import run_serve

        built_map = self.state.steps.get("map", {}).get("outputs", {}).get("map")
        texts = self.state.steps.get("generate", {}).get("outputs", {}).get("texts")
        settings = self.cfg.serve.model_copy(
            update={"encoder": self.state.outputs("train")["model"], "index": self.state.outputs("index")["index"]}
            | ({"map": built_map} if built_map else {})
            | ({"texts": texts} if texts else {})
        )
        apps = ["embed", "search"] if settings.index else ["embed"]
        apps += ["map"] if built_map else []
        report = run_serve(self.cfg.model_copy(update={"serve": settings}), self.cfg.pipeline.serve_config, apps)
        for line in report.status_lines():
            log.info(line, extra=logs.stage("serve"))
        return {"deployed": report.serving, "urls": report.urls, "failed": report.failed}

    def _on_validated(self, updates: dict[str, Any]) -> RunConfig:
        """The run config reading the validated corpus (canonical columns, never the user's names), plus `updates`."""
        corpus = self.cfg.corpus.validated(self.state.outputs("validate")["corpus"])
        return self._with({f"corpus.{key}": value for key, value in corpus.model_dump().items()} | updates)

    def _with(self, updates: dict[str, Any]) -> RunConfig:
        """A copy of the run config with `section.key` values set (validated like any override)."""
        data = self.cfg.model_dump()
        for key, value in updates.items():
            section, _, name = key.partition(".")
            data[section][name] = value
        return RunConfig.model_validate(data)
