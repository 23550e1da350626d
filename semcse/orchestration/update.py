"""Living corpora: add new abstracts to a built pipeline run and pay only for what is new.

`semcse pipeline --add NEW` (or `run_update`) takes a run directory the pipeline built and runs the
steps of `STEPS` in order, each recorded in `<run_dir>/updates/<key>/pipeline.json` once it is done
(`semcse.orchestration.steps`, the pipeline's own step runner). Each step calls the owner of what it changes:

1. **validate** the new rows alone, and against the run's corpus: an id it already holds with the
   same text is skipped, with another text rejected as a conflict (or, with `replace`, accepted as
   a replacement); a copy of a paper it holds under another id is merged into it.
   `new = added + merged + skipped + rejected` always holds.
2. **corpus**: the accepted rows join the validated corpus (`data.validation.grow_corpus`: rewritten
   whole, then renamed over it).
3. **invalidate** / **generate** (when the run generated texts): replaced papers' generated units
   are withdrawn, then generation runs over the grown corpus; it is keyed by unit, so only the
   new and replaced abstracts are generated and every earlier summary is reused as it is.
4. **train** / **evaluate** / **register**: nothing, unless `retrain` is asked for; then they are
   the pipeline's own steps on the grown corpus, and since the index and the map hold vectors of
   the model the pipeline trains, those are rebuilt by the pipeline's steps too (a new model is a
   new space: the map is laid out again). Without it the registered model stays as it is.
5. **embed** the added papers once, with the model the index was built with.
6. **index**: the current index version minus replaced papers plus the added ones, published as a
   new version (`SearchIndex.publish_grown`); aspect-weighted search finds them at once.
7. **map**: the added papers are placed into the current map (every old point keeps its
   coordinates) and appended, published as a new version (`SemanticMap.publish_grown`); the report
   says where each landed (its nearest old papers on the map).
8. **finish**: one MLflow run, a child of the run that built the corpus, holds the counts, the
   step times and the report.

A kill at any point loses at most the step in flight: a rerun with the same file finds its
update directory (the key is a hash of the new rows and the flags), skips recorded steps and
redoes the one that was interrupted, which is safe because each step is idempotent (the corpus
merge replaces rows by id, versions are published once per update). Served apps read the index and
the map through their version pointer, so they move to the new version whole, when it is complete.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from semcse.core import storage, versions
from semcse.core.config import ConfigError, RunConfig
from semcse.core.tracking import Tracker
from semcse.orchestration.pipeline import UPDATES_DIR, Pipeline
from semcse.orchestration.steps import Outputs, StepRunner, StepState

log = logging.getLogger(__name__)

REQUEST = "request.json"
NEAREST = 3


@dataclass
class UpdateReport:
    """What an update did. Its counts are validation's (`data.validation.ValidationCounts`, which reconcile):
    new = added + merged + skipped + rejected, replaced ⊆ added."""

    key: str
    source: str
    directory: str
    new: int
    added: int
    replaced: int
    skipped: int
    rejected: int
    reasons: dict[str, int]
    corpus: int
    rejects: str
    merged: int = 0
    generated: int | None = None
    generation_reused: int | None = None
    retrained: bool = False
    promoted: bool | None = None
    embedded: int = 0
    index: dict[str, Any] | None = None
    map: dict[str, Any] | None = None
    landings: dict[str, dict[str, Any]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    run_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        """The report as a person reads it, one event per line."""
        out = [
            "new = added + merged + skipped + rejected: "
            f"{self.new:,} = {self.added:,} + {self.merged:,} + {self.skipped:,} + {self.rejected:,}"
            + (f" ({self.replaced:,} of the added replace a paper)" if self.replaced else "")
            + (f" {self.reasons}" if self.reasons else ""),
            f"corpus: {self.corpus:,} papers" + (f"; rejected rows in {self.rejects}" if self.rejected else ""),
        ]
        if self.generated is not None:
            out.append(f"generated texts for {self.generated:,} abstracts ({self.generation_reused:,} reused)")
        if self.retrained:
            verdict = "promoted to @champion" if self.promoted else "not promoted"
            out.append(f"retrained on the grown corpus ({verdict}); index and map rebuilt with the trained model")
        if self.embedded:
            out.append(f"embedded {self.embedded:,} papers")
        if self.index:
            out.append(f"index: {self.index['papers']:,} papers (version {self.index['version']})")
        if self.map:
            out.append(f"map: {self.map['points']:,} points (version {self.map['version']}); old points unmoved")
        for paper, landing in list(self.landings.items())[:10]:
            near = "; ".join(f"{n['id']} {n['title'][:40]!r}" for n in landing["near"])
            out.append(f"  {paper} landed at ({landing['x']:.2f}, {landing['y']:.2f}) near {near}")
        if len(self.landings) > 10:
            out.append(f"  … and {len(self.landings) - 10:,} more (all in the update's report.json)")
        return out


def update_key(path: str | Path, replace: bool, retrain: bool) -> str:
    """A key for one update: the bytes of the new rows' files and the flags (a rerun finds its own state)."""
    from semcse.core.data.io import list_files

    digest = hashlib.blake2b(digest_size=8)
    digest.update(json.dumps({"replace": replace, "retrain": retrain}).encode())
    for file, _ in list_files(path):
        digest.update(storage.basename(file).encode())
        with storage.open_lines(file) as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


class Update:
    """One update of one run directory; `run` does the steps not yet recorded (`STEPS`, one method each)."""

    def __init__(
        self,
        cfg: RunConfig,
        new_corpus: str | Path,
        replace: bool = False,
        retrain: bool = False,
        on_step: Callable[[str], None] | None = None,
    ) -> None:
        self.cfg = cfg
        self.source = str(new_corpus)
        self.replace, self.retrain = replace, retrain
        self.pipeline = Pipeline(cfg)
        built = self.pipeline.state.steps
        if "validate" not in built or "train" not in built:
            raise ConfigError(
                f"{cfg.run_dir} holds no built corpus and model (pipeline.json lacks validate/train); "
                "run `semcse pipeline` first, then add to it"
            )
        self.key = update_key(new_corpus, replace, retrain)
        self.dir = storage.join(self.pipeline.run_dir, UPDATES_DIR, self.key)
        self._refuse_if_another_is_unfinished()
        self.state = StepState.load(self.dir)
        table = {name: partial(step, self) for name, step in STEPS.items()}
        self.runner = StepRunner("update", table, self.state, headings=False, on_step=on_step)
        request = storage.join(self.dir, REQUEST)
        if not storage.is_file(request):
            storage.write_json(request, {"add": self.source, "replace": replace, "retrain": retrain})

    def _refuse_if_another_is_unfinished(self) -> None:
        """Updates apply one after the other: a second one would validate against a corpus the index lacks."""
        root = storage.join(self.pipeline.run_dir, UPDATES_DIR)
        for key in storage.names(root):
            other = storage.join(root, key)
            request = storage.join(other, REQUEST)
            if key == self.key or not storage.is_file(request) or "finish" in StepState.load(other).steps:
                continue
            asked = storage.read_json(request)
            flags = "".join(f" --{flag}" for flag in ("replace", "retrain") if asked[flag])
            raise ConfigError(
                f"an earlier update ({key}) did not finish; rerun it first with "
                f"`semcse pipeline --add {asked['add']}{flags}` (same config), then add more"
            )

    # ----- orchestration -----------------------------------------------------------------------------

    def run(self) -> UpdateReport:
        if "finish" in self.state.steps:
            log.info("update %s (%s) was applied earlier; nothing to do", self.key, self.source)
            return self.report()
        log.info(
            "adding %s to %s (update %s; rerun the same command to resume it)", self.source, self.cfg.run_dir, self.key
        )
        from semcse.core.runtime import connect

        self.cfg = self.pipeline.cfg = connect(self.cfg)
        self.runner.run(self.cfg.tracking, self._start_run)
        return self.report()

    def _start_run(self) -> Tracker:
        """The update's MLflow run, a child of the pipeline run that built the corpus."""
        built_by = self.pipeline.state.parent_run_id
        parent = Tracker(self.cfg.tracking, built_by) if built_by else None
        tags = {"stage": "update", "semcse.update": self.key, "semcse.corpus_run": built_by or ""}
        tracker = Tracker.start(self.cfg.tracking, run_name=f"update-{self.key[:8]}", parent=parent, tags=tags)
        tracker.log_params(
            {"add": self.source, "replace": self.replace, "retrain": self.retrain, "run_dir": self.cfg.run_dir}
        )
        return tracker

    def _done(self, step: str) -> dict[str, Any]:
        return self.state.recorded(step)

    @property
    def additions(self) -> pd.DataFrame:
        from semcse.core.data.io import read_corpus

        return read_corpus(self._done("validate")["additions"])

    @property
    def replaced(self) -> list[str]:
        return list(self._done("validate").get("replaced_ids", []))

    def _nothing_to_add(self) -> bool:
        return self._done("validate")["additions"] is None

    def _built(self, step: str, key: str) -> str | None:
        """An output of the pipeline's build (e.g. the index root), or None when that step made none."""
        return self.pipeline.state.recorded(step).get(key)

    def _corpus_path(self) -> str:
        return self.pipeline.state.outputs("validate")["corpus"]

    # ----- steps ---------------------------------------------------------------------------------------

    def validate(self) -> dict[str, Any]:
        from semcse.core.data.io import read_corpus, read_raw
        from semcse.core.data.validation import validate

        result = validate(
            read_raw(self.source, self.cfg.corpus),
            self.cfg.corpus,
            against=read_corpus(self._corpus_path()),
            replace=self.replace,
        )
        paths = result.write(self.dir)
        report = result.report
        log.debug(
            "new = added + merged + skipped + rejected: %d = %d + %d + %d + %d%s",
            report.total,
            report.accepted,
            report.merged,
            report.skipped,
            report.rejected,
            f" {report.reasons}" if report.reasons else "",
        )
        return {
            "source": self.source,
            "additions": str(paths["accepted"]) if report.accepted else None,
            "duplicates": str(paths["duplicates"]),
            "rejects": str(paths["rejects"]),
            "replaced_ids": result.replaced,
            "skipped_ids": result.skipped,
            **report.to_dict(),
        }

    def corpus(self) -> dict[str, Any]:
        from semcse.core.data.io import read_corpus
        from semcse.core.data.validation import grow_corpus, grow_duplicates

        path = self._corpus_path()
        grow_duplicates(path, self._done("validate")["duplicates"])
        if self._nothing_to_add():
            return {"papers": len(read_corpus(path))}
        papers = grow_corpus(path, self.additions)
        log.debug("corpus: %d papers (%s)", papers, path)
        return {"papers": papers}

    def _texts(self) -> str | None:
        return None if self._nothing_to_add() else self._built("generate", "texts")

    def invalidate(self) -> dict[str, Any]:
        from semcse.core.data.generated import Manifest

        texts = self._texts()
        if texts and self.replaced:
            Manifest.load(texts).invalidate(self.replaced)
            log.debug("generated texts of %d replaced papers withdrawn in %s", len(self.replaced), texts)
        return {"texts": texts, "invalidated": self.replaced if texts else []}

    def generate(self) -> dict[str, Any]:
        texts = self._texts()
        if not texts:
            return {"texts": None}
        from semcse.stages.generation import run_generation

        report = run_generation(self.pipeline.validated_config({"generation.out": texts}))
        report.require_finished()
        return {"texts": texts, "units": report.units, "reused": report.units_reused, "rows": report.rows_written}

    def _retrained(self, step: str) -> dict[str, Any]:
        """With `retrain`, the pipeline's own step, run again over the grown corpus; its outputs."""
        if not self.retrain or self._nothing_to_add():
            return {"rerun": False}
        return {"rerun": True, **self._redo(step)}

    def _redo(self, step: str) -> dict[str, Any]:
        """The build's own step, run again and recorded in the build's state, where its next run reads it."""
        return self.pipeline.runner.redo(step, self.runner.parent)

    def train(self) -> dict[str, Any]:
        return self._retrained("train")

    def evaluate(self) -> dict[str, Any]:
        return {"rerun": self._retrained("evaluate")["rerun"]}

    def register(self) -> dict[str, Any]:
        return self._retrained("register")

    def _rebuilt(self) -> bool:
        return bool(self._done("train").get("rerun"))

    def _model(self) -> str | None:
        """The model every vector in the index and the map came from: new vectors must come from it too."""
        from semcse.stages.search import SearchIndex

        index = self._built("index", "index")
        if index:
            return SearchIndex.manifest(index)["model"]
        return self._built("map", "model")

    def embed(self) -> dict[str, Any]:
        model = self._model()
        if self._nothing_to_add() or self._rebuilt() or model is None:
            return {"vectors": None, "papers": 0}
        log.info("embedding %d papers with %s", len(self.additions), model)
        vectors = self._vectors(model)
        return {"vectors": True, "aspects": list(vectors), "papers": len(self.additions), "model": model}

    def _vectors(self, model: str | None = None) -> dict[str, np.ndarray]:
        """The added papers' vectors, embedded on Ray Data actors into the run's embeddings (the contract's
        content-keyed shards, beside the build's own): after the embed step, reading them back embeds nothing."""
        from semcse.stages.embedding import EMBEDDINGS_DIR, ModelRef, embed_papers

        model = model or self._done("embed")["model"]
        embeddings = storage.join(self.pipeline.run_dir, EMBEDDINGS_DIR)
        [embedded] = embed_papers([ModelRef(model, model)], self.additions, embeddings, self.cfg.evaluation)
        return embedded.vectors

    def index(self) -> dict[str, Any]:
        from semcse.core.data.duplicates import read_aliases
        from semcse.stages.search import SearchIndex

        if self._rebuilt():
            self._redo("index")
        root = self._built("index", "index")
        if not root:
            return {"index": None}
        embedded, aliases = self._done("embed").get("vectors"), read_aliases(self._done("validate")["duplicates"])
        if embedded or (aliases and not self._rebuilt()):  # rows that all merged into papers still add their ids
            additions = self.additions if embedded else pd.DataFrame(columns=["id", "title"])
            SearchIndex.publish_grown(root, f"add-{self.key}", additions, self._vectors, self.replaced, aliases)
        papers = SearchIndex.manifest(root)["size"]
        log.debug("index: %d papers, version %s", papers, versions.current(root))
        return {"index": root, "version": versions.current(root), "papers": papers}

    def map(self) -> dict[str, Any]:
        from semcse.stages.maps import SemanticMap

        if self._rebuilt():
            self._redo("map")
        root = self._built("map", "map")
        if not root:
            return {"map": None}
        if not self._done("embed").get("vectors"):
            return {"map": root, "version": versions.current(root), "points": SemanticMap.manifest(root)["points"]}
        additions = self.additions
        ids = additions["id"].astype(str).tolist()
        label_col = self.cfg.corpus.label_col
        labels = additions[label_col].fillna("").astype(str).tolist() if label_col and label_col in additions else None
        version, grown = SemanticMap.publish_grown(
            root, f"add-{self.key}", ids, self._vectors, self.cfg.map.place_steps, labels, self.replaced
        )
        log.debug("map: %d points, version %s (old points unmoved)", len(grown), version)
        return {"map": root, "version": version, "points": len(grown), "landings": self._landings(grown, ids)}

    def _landings(self, grown: Any, ids: list[str]) -> dict[str, dict[str, Any]]:
        """Where each added paper is on the map, and its nearest papers that were there before."""
        from semcse.core.data.io import read_corpus

        rows = {paper: row for row, paper in enumerate(grown.ids)}
        added = np.asarray([rows[p] for p in ids], dtype=np.int64)
        old = np.setdiff1d(np.arange(len(grown)), added)
        titles = read_corpus(self._corpus_path()).set_index("id")["title"].astype(str).to_dict()
        near = grown.nearest(grown.coords[added], NEAREST, among=old)
        landings = {}
        for paper, row, neighbours in zip(ids, added, near):
            x, y = grown.coords[row]
            landed = [{"id": grown.ids[j], "title": titles.get(grown.ids[j], "")} for j in neighbours]
            landings[paper] = {"x": float(x), "y": float(y), "near": landed}
        return landings

    def finish(self) -> dict[str, Any]:
        report = self.report()
        tracker = Tracker(self.cfg.tracking, self.state.parent_run_id)
        counts = ("new", "added", "replaced", "skipped", "rejected", "corpus", "embedded")
        metrics = {f"update/{name}": getattr(report, name) for name in counts}
        if report.generated is not None:
            metrics |= {"update/generated": report.generated, "update/generation_reused": report.generation_reused}
        if report.index:
            metrics["update/index_papers"] = report.index["papers"]
        if report.map:
            metrics["update/map_points"] = report.map["points"]
        tracker.log_metrics(metrics)
        tracker.log_dict(report.to_dict(), "update_report.json")
        return {"report": storage.write_json(storage.join(self.dir, "report.json"), report.to_dict())}

    def report(self) -> UpdateReport:
        """The report, composed from what the recorded steps returned (so a resumed update reports the same)."""
        checked = self._done("validate")
        generated = self._done("generate")
        index, semantic_map = self._done("index"), self._done("map")
        return UpdateReport(
            key=self.key,
            source=self.source,
            directory=self.dir,
            new=checked["total"],
            added=checked["accepted"],
            replaced=checked["replaced"],
            skipped=checked["skipped"],
            rejected=checked["rejected"],
            merged=checked["merged"],
            reasons=checked["reasons"],
            corpus=self._done("corpus").get("papers", 0),
            rejects=checked["rejects"],
            generated=generated.get("units"),
            generation_reused=generated.get("reused"),
            retrained=self._rebuilt(),
            promoted=self._done("register").get("champion"),
            embedded=self._done("embed").get("papers", 0),
            index={"version": index["version"], "papers": index["papers"]} if index.get("papers") else None,
            map={"version": semantic_map["version"], "points": semantic_map["points"]}
            if semantic_map.get("points")
            else None,
            landings=semantic_map.get("landings", {}),
            seconds={step: entry["seconds"] for step, entry in self.state.steps.items()},
            run_id=self.state.parent_run_id,
        )


def run_update(
    cfg: RunConfig,
    new_corpus: str | Path,
    replace: bool = False,
    retrain: bool = False,
    on_step: Callable[[str], None] | None = None,
) -> UpdateReport:
    """Add the rows of `new_corpus` to the run in `cfg.run_dir`, resuming an interrupted update of the same rows.

    `replace` lets rows whose id is already in the corpus with another text replace that paper;
    `retrain` trains, evaluates and registers again on the grown corpus. `on_step(name)` is called
    after each step's work and before it is recorded (progress hooks, crash tests).
    """
    return Update(cfg, new_corpus, replace, retrain, on_step).run()


STEPS: dict[str, Callable[[Update], Outputs]] = {
    "validate": Update.validate,
    "corpus": Update.corpus,
    "invalidate": Update.invalidate,
    "generate": Update.generate,
    "train": Update.train,
    "evaluate": Update.evaluate,
    "register": Update.register,
    "embed": Update.embed,
    "index": Update.index,
    "map": Update.map,
    "finish": Update.finish,
}
