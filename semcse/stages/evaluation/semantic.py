"""SemCSE's semantic benchmark: matching tasks as average rank, clustering as kNN label agreement.

- title → abstract, first half → second half of the abstract, query → paper (title + abstract):
  the average rank of the true match over the candidate pool (1 is perfect). The pool is the
  test split of the corpus (`evaluation.split`; a model trained on the corpus has used the other
  papers' titles and sentences as positives), capped at `evaluation.max_pool` papers chosen by a
  stable hash of the id (the paper used 900 and 6,000), because every query is ranked against
  every candidate.
- clustering (when the corpus has labels): for each test paper, the share of its 5 nearest
  training papers with the same label (the paper's protocol; labels are never trained on).
- overall: each task normalised across the compared models (best 1, median 0.5, floor 0), averaged:
  the paper's leaderboard figure. It depends on which models are in the table (with two or three
  models each task is 0 or 1), so it ranks a table and decides nothing (`pipeline.metric` refuses it).
- improvement: the mean over tasks of the log-ratio of each model's figure to the first model's
  (the reference: the base model in the pipeline), oriented so that better is positive; 0.05 is
  about 5% better on average. It does not depend on the other models in the table, and the paired
  difference of two models is the mean log-ratio of their own figures, whatever the reference.
  Both compare models, so a model scored alone has neither.

Every figure carries a 95% bootstrap interval over papers, the same draws for every model; one draw
of papers serves every task, so the tasks of a draw are scored on the same papers and the figures
that combine tasks (overall, improvement) are resampled as a whole.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from semcse.core import storage
from semcse.core.config import RunConfig
from semcse.core.data.schema import paper_text
from semcse.stages.embedding import ModelEmbeddings, ModelRef, combined_similarity, combined_vectors, embed_sets
from semcse.stages.evaluation import metrics
from semcse.stages.evaluation.inputs import (
    evaluated_rows,
    halves,
    label_column,
    load_corpus,
    queries_from,
    query_rows,
    sample_ids,
    text_set,
)
from semcse.stages.evaluation.knn import reference_neighbours
from semcse.stages.evaluation.results import LabelledSpace, SuiteResult
from semcse.stages.evaluation.uncertainty import Bootstrap, Estimate, interval_note

NAME = "semantic"
MATCHING = {"title_abstract": ("titles", "abstracts"), "half_half": ("first_halves", "second_halves")}
OVERALL = "overall"
IMPROVEMENT = "improvement"
COMBINED = (OVERALL, IMPROVEMENT)  # figures made of the task figures, never a task of their own
FLOOR = 1e-6  # a task figure of 0 (no label agreement at all) has no logarithm


def text_sets(frame: pd.DataFrame, pool: pd.DataFrame, cfg: RunConfig, source: str | Path) -> dict[str, pd.DataFrame]:
    """Every text set the suite embeds, keyed by name; pairs of sets share ids. Matching uses `pool` only."""
    pool = pool[sample_ids(pool["id"], cfg.evaluation.max_pool)]
    split = [halves(a) for a in pool["abstract"]]
    sets = {
        "titles": text_set(pool["id"], pool["title"]),
        "abstracts": text_set(pool["id"], pool["abstract"]),
        "first_halves": text_set(pool["id"], [first for first, _ in split]),
        "second_halves": text_set(pool["id"], [second for _, second in split]),
    }
    queries = queries_from(pool, cfg, source)
    if queries is not None:
        queries = queries[queries["id"].isin(set(pool["id"]))]  # generated queries cover the whole corpus
    if queries is not None and len(queries):
        known = pool.set_index("id").loc[queries["id"]]
        sets["queries"] = queries
        sets["query_papers"] = text_set(queries["id"], paper_text(known.reset_index()))
    if label_column(frame, cfg, required=False, source=source) is not None:
        sets["papers"] = text_set(frame["id"], paper_text(frame))
    return sets


def run(
    models: list[ModelRef], data: str | Path, cfg: RunConfig, out: str | Path, embeddings: str | Path | None = None
) -> SuiteResult:
    frame = load_corpus(data, cfg)
    pool, split_note = evaluated_rows(frame, cfg, data)
    sets = text_sets(frame, pool, cfg, data)
    label_col = label_column(frame, cfg, required=False, source=data)
    units = [i for name, texts in sets.items() if name != "papers" for i in texts["id"]]
    if label_col is not None:
        papers = frame.set_index("id").loc[sets["papers"]["id"]].reset_index()
        labels = papers[label_col].astype(str).to_numpy()
        queries, references = query_rows(papers, cfg)
        units += list(papers["id"][queries])
    bootstrap = Bootstrap(cfg.evaluation.bootstrap, cfg.evaluation.seed, units=units)
    rows: dict[str, dict[str, Estimate]] = {}
    spaces, curves = {}, {}
    store = embeddings or storage.join(out, "embeddings")
    for embedded in embed_sets(models, sets, store, cfg.evaluation):
        spec = embedded.spec
        rows[spec.name] = _matching_scores(embedded, sets, bootstrap)
        if label_col is not None:
            vectors = combined_vectors(embedded.vectors("papers", papers["id"]))
            agreement = _label_agreement(vectors, labels, embedded, queries, references, cfg)
            rows[spec.name]["clustering"] = bootstrap.mean("clustering", agreement, units=papers["id"][queries])
            spaces[spec.name] = LabelledSpace(vectors, labels)
            curves[spec.name] = metrics.pca_variance_curve(vectors, 100)
    lower = {task for task in next(iter(rows.values())) if task != "clustering"}
    counts = ", ".join(f"{k}={len(v)}" for k, v in sets.items() if k != "papers")
    notes = [
        f"evaluated on the {split_note}",
        f"matching pools: {counts}",
        interval_note(cfg.evaluation.bootstrap, "papers (one draw for every task)", len(rows)),
    ]
    if len(rows) > 1:  # both compare a model with the others in the table: a lone model has neither
        for name, estimate in overall_estimates(rows, lower).items():
            rows[name][OVERALL] = estimate
        for name, estimate in improvement_estimates(rows, lower).items():
            rows[name][IMPROVEMENT] = estimate
        notes.append(
            f"improvement: mean log-ratio of each task figure to {next(iter(rows))!r}'s (better is positive); "
            "overall: the paper's normalisation across the models of this table (a leaderboard figure only)"
        )
    if "queries" not in sets:
        notes.append("no queries: set evaluation.query_col (e.g. tldr) or evaluation.texts with kind='query' texts")
    if label_col is None:
        notes.append("no labels: clustering skipped (set evaluation.label_col)")
    else:
        notes.append(f"clustering: {int(queries.sum()):,} query papers vs {int(references.sum()):,} papers' labels")
    return SuiteResult(NAME, rows, lower_is_better=lower, spaces=spaces, pca_curves=curves, notes=notes)


def _matching_scores(
    embedded: ModelEmbeddings, sets: dict[str, pd.DataFrame], bootstrap: Bootstrap
) -> dict[str, Estimate]:
    tasks = dict(MATCHING)
    if "queries" in sets:
        tasks["query_paper"] = ("queries", "query_papers")
    scores = {}
    for task, (query_set, candidate_set) in tasks.items():
        ids = sorted(set(sets[query_set]["id"]) & set(sets[candidate_set]["id"]))
        queries = combined_vectors(embedded.vectors(query_set, ids))
        candidates = combined_vectors(embedded.vectors(candidate_set, ids))
        ranks = metrics.true_ranks(queries, candidates, similarity=combined_similarity(embedded))
        scores[task] = bootstrap.mean(task, ranks, units=ids)
    return scores


def _label_agreement(
    vectors: np.ndarray,
    labels: np.ndarray,
    embedded: ModelEmbeddings,
    queries: np.ndarray,
    references: np.ndarray,
    cfg: RunConfig,
) -> np.ndarray:
    neighbours = reference_neighbours(
        vectors,
        queries,
        references,
        cfg.evaluation.agreement_k,
        combined_similarity(embedded),
        cfg.evaluation.ivf_threshold,
    )
    return metrics.label_agreements(labels[references][neighbours], labels[queries])


def overall_estimates(rows: dict[str, dict[str, Estimate]], lower_is_better: set[str]) -> dict[str, Estimate]:
    """The overall score on the point values and on every bootstrap draw (tasks normalised per draw)."""
    models = list(rows)
    tasks = [t for t in rows[models[0]] if t not in COMBINED]
    values = np.mean(
        [
            metrics.normalised_columns(np.array([[rows[m][t].value] for m in models]), t not in lower_is_better)[:, 0]
            for t in tasks
        ],
        axis=0,
    )
    replicates = np.mean(
        [
            metrics.normalised_columns(np.stack([rows[m][t].replicates for m in models]), t not in lower_is_better)
            for t in tasks
        ],
        axis=0,
    )
    return {m: Estimate(float(values[i]), replicates[i]) for i, m in enumerate(models)}


def improvement_estimates(rows: dict[str, dict[str, Estimate]], lower_is_better: set[str]) -> dict[str, Estimate]:
    """Each model's mean log-ratio over tasks against the first model, on the point values and on every draw.

    `log(reference / model)` for a task where lower is better (ranks), `log(model / reference)`
    otherwise, so better is positive in both; the same draw's figures are compared, so it is paired.
    """
    models = list(rows)
    reference = rows[models[0]]
    tasks = [t for t in reference if t not in COMBINED]

    def ratio(model: dict[str, Estimate], task: str, replicates: bool) -> np.ndarray:
        own, ref = model[task], reference[task]
        mine = np.maximum(own.replicates if replicates else np.array([own.value]), FLOOR)
        base = np.maximum(ref.replicates if replicates else np.array([ref.value]), FLOOR)
        return np.log(base / mine) if task in lower_is_better else np.log(mine / base)

    return {
        m: Estimate(
            float(np.mean([ratio(rows[m], t, False)[0] for t in tasks])),
            np.mean([ratio(rows[m], t, True) for t in tasks], axis=0),
        )
        for m in models
    }
