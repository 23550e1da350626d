"""The held-out sets the quality benchmarks score models on, and the runs they train, reused by name.

Training corpus: the first `--train` abstracts of the unlabelled invasion-biology corpus. Held out, with
95% bootstrap intervals (paired between models):

- `inas`: the 721 expert-labelled INAS dev abstracts (invasion hypotheses; disjoint from the corpus), every
  paper among all the others (`evaluation.split=all`): kNN accuracy (10-NN), label agreement (5-NN), V-measure.
  In-domain: where a gain can show (the data's README, "Where a gain can show");
- `ohsumed`: ohsumed's test papers, neighbours among its training abstracts (kNN accuracy, label agreement);
- `cs_papers`: TL;DR queries and title → abstract among cs_papers (average ranks);
- `methodology`: Spearman of similarity against LLM judgements of medical methodology (the aspects suite).

all-MiniLM-L6-v2 starts near its ceiling on the last three, so they are checked for losses only.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from _common import OHSUMED, minilm_dir, ohsumed_split, st_fit

from semcse.core.data.io import write_parquet
from semcse.stages.embedding import ModelRef, model_folder
from semcse.stages.evaluation import aspects, knn, semantic
from semcse.stages.evaluation.results import SuiteResult

DATA = OHSUMED.parent
INVASION = DATA / "invasion_biology_unlabelled.parquet"
INAS = DATA / "inas_dev.parquet"
JUDGEMENTS = DATA / "pairwise" / "medical_methodology"
CS_PAPERS = DATA / "cs_papers.parquet"
SETS = ("inas", "ohsumed", "methodology", "cs_papers")
SUITE_DIRS = {"inas": "eval-inas", "ohsumed": "eval-knn", "methodology": "eval-aspects", "cs_papers": "eval-semantic"}
COLUMNS = {  # None: the suite's spearman column
    "inas": ["knn_accuracy", "label_agreement", "v_measure"],
    "ohsumed": ["knn_accuracy", "label_agreement"],
    "methodology": None,
    "cs_papers": ["query_paper", "title_abstract"],
}


def invasion_corpus(work: Path, abstracts: int) -> Path:
    """The first `abstracts` rows of the invasion corpus (id, title, abstract): what a user's corpus would be."""
    frame = pd.read_parquet(INVASION, columns=["id", "title", "abstract"]).head(abstracts)
    return write_parquet(frame, work / "invasion.parquet")


@dataclass(frozen=True)
class HeldOut:
    """Where each held-out set was written under `--work` (None: not scored in this run)."""

    inas: Path
    ohsumed: Path
    cs_papers: Path | None
    methodology: Path | None

    @classmethod
    def build(cls, work: Path, ohsumed_refs: int, ohsumed_test: int, cs_papers: int, sets: list[str]) -> HeldOut:
        work.mkdir(parents=True, exist_ok=True)
        labelled = pd.concat(
            [ohsumed_split("train", ohsumed_refs), ohsumed_split("test", ohsumed_test)], ignore_index=True
        )
        inas = pd.read_parquet(INAS, columns=["id", "title", "abstract", "label"])
        return cls(
            inas=write_parquet(inas, work / "inas.parquet"),
            ohsumed=write_parquet(labelled, work / "ohsumed.parquet"),
            cs_papers=_cs_queries(work, cs_papers) if "cs_papers" in sets else None,
            methodology=JUDGEMENTS if "methodology" in sets and JUDGEMENTS.parent.is_dir() else None,
        )


def _cs_queries(work: Path, papers: int) -> Path | None:
    """cs_papers with a TL;DR (the queries) and as many other papers again (the pool), none seen in training."""
    if not CS_PAPERS.is_file():
        return None
    frame = pd.read_parquet(CS_PAPERS, columns=["id", "title", "abstract", "tldr"])
    with_tldr = frame[frame["tldr"].fillna("").str.strip() != ""]
    with_tldr = with_tldr.sample(n=min(papers, len(with_tldr)), random_state=0)
    others = frame.drop(with_tldr.index).sample(n=len(with_tldr), random_state=0)
    return write_parquet(pd.concat([with_tldr, others], ignore_index=True), work / "cs_papers.parquet")


def score(models: list[ModelRef], held: HeldOut, cfg: Any, work: Path, sets: list[str]) -> dict[str, SuiteResult]:
    """Every model on every chosen held-out set: {set: result} with the models as rows."""

    def evaluation(**update: Any) -> Any:
        return cfg.model_copy(update={"evaluation": cfg.evaluation.model_copy(update=update)})

    results = {}
    if "inas" in sets:
        everything = evaluation(split="all", label_col="label")
        results["inas"] = knn.run(models, held.inas, everything, work / SUITE_DIRS["inas"])
    if "ohsumed" in sets:
        results["ohsumed"] = knn.run(models, held.ohsumed, cfg, work / SUITE_DIRS["ohsumed"])
    if "methodology" in sets and held.methodology is not None:
        judged = evaluation(judged_aspects={"medical_methodology": "methodology"})
        results["methodology"] = aspects.run(models, held.methodology, judged, work / SUITE_DIRS["methodology"])
    if "cs_papers" in sets and held.cs_papers is not None:
        queries = evaluation(query_col="tldr", split="all", label_col=None)
        results["cs_papers"] = semantic.run(models, held.cs_papers, queries, work / SUITE_DIRS["cs_papers"])
    return results


def share_embeddings(model: ModelRef, work: Path, cache: Path) -> None:
    """Store `model`'s evaluation embeddings in `cache`, linked from each suite's folder under `work`.

    Meant for the base model, which every new `--work` would otherwise embed again though it never changes.
    Sharing is safe: `embed_sets` keys each shard by the model's files, the evaluation settings and the texts,
    so a shared folder only ever serves vectors of exactly these inputs. A folder an earlier run of this `--work`
    filled is left as it is.
    """
    for suite_dir in SUITE_DIRS.values():
        linked = work / suite_dir / "embeddings" / model_folder(model)
        if linked.exists() or linked.is_symlink():
            continue
        shared = cache / suite_dir / model_folder(model)
        shared.mkdir(parents=True, exist_ok=True)
        linked.parent.mkdir(parents=True, exist_ok=True)
        linked.symlink_to(shared.resolve(), target_is_directory=True)


def default_cache() -> Path:
    """Where the base model's embeddings are kept between runs: the user's cache folder (XDG), not `--work`."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "semcse" / "quality-embeddings"


def columns_of(suite: str, result: SuiteResult) -> list[str]:
    return COLUMNS[suite] or [c for c in result.table.columns if c.startswith("spearman:")]


def figures(results: dict[str, SuiteResult]) -> pd.DataFrame:
    """Models × figures, each cell `value [low, high]`."""
    cells: dict[str, dict[str, str]] = {}
    for suite, result in results.items():
        intervals = result.intervals
        for model in result.table.index:
            for column in columns_of(suite, result):
                value = result.table.loc[model, column]
                low, high = intervals.loc[model, f"{column}_ci_low"], intervals.loc[model, f"{column}_ci_high"]
                arrow = " ↓" if column in result.lower_is_better else ""
                cells.setdefault(model, {})[f"{suite}:{column}{arrow}"] = f"{value:.4f} [{low:.4f}, {high:.4f}]"
    return pd.DataFrame.from_dict(cells, orient="index")


def differences(results: dict[str, SuiteResult], pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Paired `a − b` with 95% intervals on every figure, for each (a, b)."""
    rows = []
    for suite, result in results.items():
        for a, b in pairs:
            for column in columns_of(suite, result):
                d = result.difference(a, b, column)
                rows.append(
                    {"a": a, "b": b, "figure": f"{suite}:{column}"}
                    | {"difference": d.difference, "low": d.low, "high": d.high, "verdict": d.verdict}
                )
    return rows


def raw(result: SuiteResult) -> dict[str, Any]:
    """A suite's table and intervals as plain JSON."""
    return {
        "table": json.loads(result.table.to_json(orient="index")),
        "intervals": json.loads(result.intervals.to_json(orient="index")),
    }


RECORD = "benchmark_wall.json"


def once(out: Path, marker: str, record: Path, fit: Callable[[], tuple[Path, float]]) -> tuple[Path, float | None]:
    """`fit()`'s model and wall time, recorded beside it; a model that an earlier `--work` run finished (`marker` in
    `out`) is reused, not refitted, with its wall time when that run recorded one."""
    if (out / marker).is_file():
        return out, json.loads(record.read_text())["wall_s"] if record.is_file() else None
    model_dir, wall = fit()
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"wall_s": wall}))
    return model_dir, wall


def trained(cfg: Any, prepared: Any, run_dir: Path) -> tuple[Path, float | None]:
    """Our trainer's delivered model and wall time (reused from an earlier `--work`, see `once`)."""
    from semcse.stages.training.driver import STATUS_FILE
    from semcse.stages.training.trainer import train

    def fit() -> tuple[Path, float]:
        start = time.perf_counter()
        model_dir = Path(train(cfg, prepared).model_dir)
        return model_dir, time.perf_counter() - start

    return once(Path(cfg.training.out), STATUS_FILE, run_dir / RECORD, fit)


def fitted_st(prepared: Any, run_dir: Path) -> tuple[Path, float | None]:
    """sentence-transformers' `fit` on exactly our pairs and batch order (reused like `trained`)."""

    def fit() -> tuple[Path, float]:
        st = st_fit(minilm_dir(), prepared.train_rows, run_dir / "st", prepared.training)
        return st.model_dir, st.wall_s

    return once(run_dir / "st", "modules.json", run_dir / f"st-{RECORD}", fit)
