"""The end-to-end pipeline: validate → generate → train → evaluate → register → index → map → serve.

Each step writes under one run directory (a local path, or a storage URI such as `s3://bucket/run`
that every node of a cluster reaches) and logs under one MLflow parent run. The state file
`<run_dir>/pipeline.json` records each finished step with its outputs, so a rerun after a crash
skips what is done (generation is never redone because training died) and keeps logging into
the same parent run; a finished step runs again when its settings (`SHAPED_BY`) changed or a step
it reads (`READS`) was made again, so a changed recipe retrains and everything built on the model
follows. `start`/`until` run a slice; a slice that needs an earlier step's outputs says which step
to run first. The index and the map are versioned roots (`semcse.core.versions`), so a
corpus update (`semcse.orchestration.update`) can publish grown versions that served apps pick up.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import asdict
from functools import partial
from typing import Any

from semcse.core import logs, storage
from semcse.core.config import ConfigError, RunConfig, shapes, with_overrides
from semcse.core.tracking import Tracker, set_alias
from semcse.orchestration import promotion
from semcse.orchestration.steps import Outputs, StepRunner, StepState, step_range

log = logging.getLogger(__name__)
UPDATES_DIR = (
    "updates"  # under the run directory: one directory per `semcse pipeline --add` (`semcse.orchestration.update`)
)


class Pipeline:
    """Runs the configured steps in order; each step calls its stage and returns its outputs (JSON-serialisable).

    Progress is reported through `logging` (a heading per step, one line per event); how it looks is
    the caller's choice (`semcse.core.logs`, the CLI).
    """

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg  # resolved by `run` (`runtime.connect`), which first checks it as the user gave it
        self.run_dir = storage.normalize(cfg.run_dir)
        self.state = StepState.load(self.run_dir)
        table = {name: partial(step, self) for name, step in STEPS.items()}
        self.runner = StepRunner(
            "pipeline",
            table,
            self.state,
            reads=READS,
            settings=step_settings(cfg),
            defaults=step_settings(RunConfig()),
            resolved={"train": left_to_recipe(cfg)},
        )

    def run(self, start: str | None = None, until: str | None = None, force: bool = False) -> StepState:
        """Steps `start` to `until` (default: all); those an earlier run finished are skipped unless `force`."""
        steps = step_range(list(STEPS), start, until)
        self._check_ready(steps)
        if "validate" in steps and not force:
            self._keep_added_papers()
        from semcse.core.runtime import connect

        self.cfg = connect(self.cfg)
        return self.runner.run(self.cfg.tracking, self._start_run, steps, force)

    def _start_run(self) -> Tracker:
        parent = Tracker.start(self.cfg.tracking, run_name=f"pipeline-{self.cfg.name}", tags={"stage": "pipeline"})
        parent.log_params(self.cfg)
        return parent

    def _check_ready(self, steps: list[str]) -> None:
        """Fail before any work when a needed setting is missing (not after an hour of generation)."""
        if "validate" in steps and not self.cfg.corpus.path:
            raise ConfigError("corpus.path is not set: the pipeline needs a corpus to validate")
        if "train" in steps and not self.cfg.training.base_model:
            raise ConfigError("training.base_model is not set: the pipeline needs a base encoder to train from")
        needs_generation = not self.cfg.training.recipe.crop_based and not self.cfg.generation.model
        if "train" in steps and needs_generation and "generate" not in self.state.steps:
            raise ConfigError(
                f"training.pairs={self.cfg.training.pairs!r} trains on generated texts but generation.model is not "
                "set; set it, or use training.pairs=crops for the LLM-free mode"
            )

    def _keep_added_papers(self) -> None:
        """Refuse to validate again (changed corpus settings) over a corpus that updates have grown.

        Validation writes the corpus afresh from `corpus.path`, and the papers `semcse pipeline --add`
        put into it would be gone from everything rebuilt on it.
        """
        reason = self.runner.outdated("validate")
        root = storage.join(self.run_dir, UPDATES_DIR)
        updates = storage.names(root)
        if reason is not None and updates:
            raise ConfigError(
                f"validate: {reason}, but {len(updates)} update(s) under {root} "
                "added papers to this run's corpus, and validating again from corpus.path would drop them; build "
                "into a new run_dir, or pass --force to rebuild this one from corpus.path alone"
            )

    def validate(self) -> dict[str, Any]:
        from semcse.core.data.validation import run_validation

        report = run_validation(self.cfg, storage.join(self.run_dir, "corpus"))
        counts = report.counts
        log.info(counts.equation(), extra=logs.stage("validate"))
        if counts.accepted == 0:
            raise ConfigError(f"no valid rows in {self.cfg.corpus.path}; see {report.rejects}")
        return {
            "corpus": str(report.accepted),
            "rejects": str(report.rejects),
            "duplicates": str(report.duplicates),
            **counts.to_dict(),
        }

    def generate(self) -> dict[str, Any]:
        if not self.cfg.generation.model:
            log.info("no generation.model configured: LLM-free run, nothing to generate", extra=logs.stage("generate"))
            return {"texts": None}
        from semcse.stages.generation import run_generation

        out = storage.join(self.run_dir, "texts")
        cfg = self.validated_config({"generation.out": out})
        report = run_generation(cfg)
        report.require_finished()
        return {"texts": str(out), "rows": report.rows_written, "rejects": report.rejects_written}

    def train(self) -> dict[str, Any]:
        from semcse.stages.training.trainer import train

        texts = self.state.recorded("generate").get("texts")
        updates = {"training.out": storage.join(self.run_dir, "model")}
        if texts:
            updates["training.texts"] = texts
        result = train(self.validated_config(updates))
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
        `evaluation.data` is scored whole unless the split is set explicitly. When training delivered the
        base model unchanged, there is no trained model: the base is scored (beside the champion, if any)
        once, not a second time under another name, and its row is what register compares.
        """
        from semcse.stages.embedding import EMBEDDINGS_DIR
        from semcse.stages.evaluation.report import terminal_text
        from semcse.stages.evaluation.runner import evaluate

        train = self.state.outputs("train")
        delivered_base = not train["improved"]
        pooling = self.cfg.training.pooling
        base = f"base={self.cfg.training.base_model}" + (f"#{pooling}" if pooling else "")
        models = [base] if delivered_base else [base, f"trained={train['model']}"]
        champion = self._champion()
        if champion is not None:
            models.append(f"champion={champion[1]}")
        incumbent = "champion" if champion is not None else "base"
        candidate = "base" if delivered_base else "trained"
        if delivered_base:
            log.info(
                "training delivered the base model unchanged: scoring it %s",
                "beside the champion" if champion else "alone (no trained model to compare)",
                extra=logs.stage("evaluate"),
            )
        cfg = self.evaluation_config()
        data = cfg.evaluation.data or cfg.corpus.path
        if not data:
            raise ConfigError("nothing to evaluate on: set evaluation.data or corpus.path")
        out = storage.join(self.run_dir, "evaluation")
        suites = [s for s in cfg.evaluation.suites if s != "decoder"]
        results = evaluate(suites, models, data, out, cfg, embeddings=storage.join(self.run_dir, EMBEDDINGS_DIR))
        tables = {}
        for name, result in results.items():
            log.info("\n%s\n%s", name, terminal_text(result), extra=logs.BLOCK)
            tables[name] = {
                "table": json.loads(result.table.to_json(orient="index")),
                "intervals": json.loads(result.intervals.to_json(orient="index")),
                "lower_is_better": sorted(result.lower_is_better),
                "versus_incumbent": {m: d.to_dict() for m, d in result.differences(candidate, incumbent).items()},
            }
        return {
            "out": out,
            "suites": tables,
            "incumbent": incumbent,
            "champion_version": champion[0] if champion else None,
        }

    def evaluation_config(self) -> RunConfig:
        """The config the suites score with: the validated corpus's test split, or separate `evaluation.data` whole
        unless the run chose a split (`evaluation.inputs.scoring_config`)."""
        from semcse.stages.evaluation.inputs import scoring_config

        return scoring_config(self.cfg) if self.cfg.evaluation.data else self.validated_config({})

    def _champion(self) -> tuple[str, str] | None:
        """(version, reference) of the registered `@champion`, the model a new one must beat.

        The reference names the version (`models:/name/7`), resolved by whichever node embeds with it.
        """
        from semcse.core.tracking import alias_version

        name = self.cfg.training.register_name
        version = alias_version(self.cfg.tracking, name, "champion")
        if version is None:
            return None
        return version, f"models:/{name}/{version}"

    def register(self) -> dict[str, Any]:
        """Apply the promotion rule (`promotion.py`) to the evaluation: set `@champion` when it says so.

        The incumbent is the current champion, or the base model when there is none.
        """
        evaluation = self.state.outputs("evaluate")
        version = self.state.outputs("train")["version"]
        name = self.cfg.training.register_name
        rule = self.cfg.pipeline
        decision = promotion.decide(
            evaluation["suites"], evaluation["incumbent"], rule.metric, rule.guards, version, name
        )
        if decision.guards_not_checked:
            log.info(
                "not checked: %s (the evaluation computed no such column, or no interval for it: a suite that did "
                "not run, a corpus without labels); promotion goes by the guards that were",
                ", ".join(decision.guards_not_checked),
                extra=logs.stage("register"),
            )
        if decision.champion and version is not None:
            set_alias(self.cfg.tracking, name, "champion", version)
        log.info(decision.verdict, extra=logs.stage("register"))
        return decision.to_dict()

    def index(self) -> dict[str, Any]:
        if not self.cfg.pipeline.build_index:
            return {"index": None}
        from semcse.stages.search import run_index

        model = self.state.outputs("train")["model"]
        report = run_index(self.validated_config({}), model, storage.join(self.run_dir, "index"), versioned=True)
        return {"index": report.out, "papers": report.papers, "model": model, "version": report.version}

    def map(self) -> dict[str, Any]:
        """The corpus laid out with the trained model (`map` settings), for `semcse map`, the map app and updates.

        Papers are embedded on Ray Data actors (reusing the index step's vectors) and laid out in a
        Ray task, so neither runs in the driver (on a cluster, a head node without CPUs for work).
        """
        if not self.cfg.pipeline.build_map:
            return {"map": None}
        from semcse.core import versions
        from semcse.core.data.io import read_corpus
        from semcse.stages.maps.corpus import map_corpus

        model = self.state.outputs("train")["model"]
        frame = read_corpus(self.state.outputs("validate")["corpus"])
        semantic_map = map_corpus(frame, {"": model}, with_overrides(self.cfg, {"run_dir": self.run_dir}))
        out = storage.join(self.run_dir, "map")
        version, _ = versions.publish(out, "build", semantic_map.save)
        return {"map": out, "points": len(semantic_map), "model": model, "version": version}

    def serve(self) -> dict[str, Any]:
        """The run's apps: embed, search (with the generated texts, when the run has them) and map; together
        the search and map apps serve the explorer page at the map's URL."""
        if not self.cfg.pipeline.deploy:
            return {"deployed": False}
        from semcse.orchestration.serving import run_serve

        built_map = self.state.recorded("map").get("map")
        texts = self.state.recorded("generate").get("texts")
        parts = {
            "serve.encoder": self.state.outputs("train")["model"],
            "serve.index": self.state.outputs("index")["index"],
        }
        parts |= ({"serve.map": built_map} if built_map else {}) | ({"serve.texts": texts} if texts else {})
        cfg = with_overrides(self.cfg, parts)
        apps = ["embed", "search"] if cfg.serve.index else ["embed"]
        apps += ["map"] if built_map else []
        report = run_serve(cfg, self.cfg.pipeline.serve_config, apps)
        for line in report.status_lines():
            log.info(line, extra=logs.stage("serve"))
        return {"deployed": report.serving, "urls": report.urls, "failed": report.failed}

    def validated_config(self, updates: dict[str, Any]) -> RunConfig:
        """The run config reading the validated corpus (canonical columns, never the user's names), plus `updates`."""
        corpus = self.cfg.corpus.validated(self.state.outputs("validate")["corpus"])
        return with_overrides(
            self.cfg, {f"corpus.{key}": value for key, value in corpus.model_dump().items()} | updates
        )


STEPS: dict[str, Callable[[Pipeline], Outputs]] = {
    "validate": Pipeline.validate,
    "generate": Pipeline.generate,
    "train": Pipeline.train,
    "evaluate": Pipeline.evaluate,
    "register": Pipeline.register,
    "index": Pipeline.index,
    "map": Pipeline.map,
    "serve": Pipeline.serve,
}

# The earlier steps whose outputs each step uses: when one of them is made again, the step is redone.
READS: dict[str, tuple[str, ...]] = {
    "validate": (),
    "generate": ("validate",),
    "train": ("validate", "generate"),
    "evaluate": ("validate", "train"),
    "register": ("train", "evaluate"),
    "index": ("validate", "train"),
    "map": ("validate", "train", "index"),
    "serve": ("generate", "train", "index", "map"),
}
# The settings (sections, or `section.key`) that shape each step's outputs.
SHAPED_BY: dict[str, tuple[str, ...]] = {
    "validate": ("corpus",),
    "generate": ("generation",),
    "train": ("training", "evaluation.agreement_k"),  # the label guard's neighbours decide the delivered step
    "evaluate": ("evaluation",),
    "register": ("pipeline.metric", "pipeline.guards"),
    "index": ("pipeline.build_index", "evaluation.max_length", "evaluation.pooling"),
    "map": ("map", "pipeline.build_map", "evaluation.max_length", "evaluation.pooling"),
    "serve": ("serve", "pipeline.deploy", "pipeline.serve_config"),
}


def left_to_recipe(cfg: RunConfig) -> list[str]:
    """The training settings the run left unset, which `step_settings` records as the recipe decides them."""
    return [f"training.{name}" for name in asdict(cfg.training.recipe) if getattr(cfg.training, name) is None]


def step_settings(cfg: RunConfig) -> dict[str, dict[str, Any]]:
    """Each step's settings (`SHAPED_BY`, less those marked `config.NOT_SHAPING`) from the run config as the user gave
    it.

    Training's settings are recorded as its recipe decides them (`pairs: auto` as the mode and values it stands for),
    so a version that changes `auto` or a mode's defaults retrains a run made with the earlier one.
    """
    data = cfg.model_dump(mode="json")
    data["training"] |= asdict(cfg.training.recipe)
    settings: dict[str, dict[str, Any]] = {}
    for step, names in SHAPED_BY.items():
        chosen: dict[str, Any] = {}
        for name in names:
            section, _, key = name.partition(".")
            model = type(getattr(cfg, section))
            values = {key: data[section][key]} if key else data[section]
            chosen |= {f"{section}.{k}": v for k, v in values.items() if shapes(model, k)}
        settings[step] = chosen
    return settings
