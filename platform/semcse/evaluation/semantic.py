"""SemCSE's semantic benchmark: matching tasks as average rank, clustering as kNN label agreement.

- title → abstract, first half → second half of the abstract, query → paper (title + abstract):
  the average rank of the true match over the candidate pool (1 is perfect). The pool is the
  corpus, capped at `evaluation.max_pool` papers chosen by a stable hash of the id (the paper used
  900 and 6,000), because every query is ranked against every candidate.
- clustering (when the corpus has labels): for each test paper, the share of its 5 nearest
  training papers with the same label.
- overall: each task normalised across the compared models (best 1, median 0.5, floor 0), averaged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from semcse.config import RunConfig
from semcse.evaluation import metrics
from semcse.evaluation.embed import ModelEmbeddings, ModelRef, combined_similarity, combined_vectors, embed_sets
from semcse.evaluation.inputs import (
    halves,
    label_column,
    load_corpus,
    paper_text,
    queries_from,
    sample_ids,
    test_mask,
    text_set,
)
from semcse.evaluation.results import LabelledSpace, SuiteResult
from semcse.index import VectorIndex

NAME = "semantic"
MATCHING = {"title_abstract": ("titles", "abstracts"), "half_half": ("first_halves", "second_halves")}


def text_sets(frame: pd.DataFrame, cfg: RunConfig, source: str | Path) -> dict[str, pd.DataFrame]:
    """Every text set the suite embeds, keyed by name; pairs of sets share ids."""
    pool = frame[sample_ids(frame["id"], cfg.evaluation.max_pool)]
    split = [halves(a) for a in pool["abstract"]]
    sets = {
        "titles": text_set(pool["id"], pool["title"]),
        "abstracts": text_set(pool["id"], pool["abstract"]),
        "first_halves": text_set(pool["id"], [first for first, _ in split]),
        "second_halves": text_set(pool["id"], [second for _, second in split]),
    }
    queries = queries_from(frame, cfg, source)
    if queries is not None and len(queries):
        queries = queries[sample_ids(queries["id"], cfg.evaluation.max_pool)]
        known = frame.set_index("id").loc[queries["id"]]
        sets["queries"] = queries
        sets["query_papers"] = text_set(queries["id"], paper_text(known.reset_index()))
    if label_column(frame, cfg, required=False, source=source) is not None:
        sets["papers"] = text_set(frame["id"], paper_text(frame))
    return sets


def run(models: list[ModelRef], data: str | Path, cfg: RunConfig, out: str | Path) -> SuiteResult:
    frame = load_corpus(data, cfg)
    sets = text_sets(frame, cfg, data)
    label_col = label_column(frame, cfg, required=False, source=data)
    rows, spaces, curves = {}, {}, {}
    for spec in models:
        embedded = embed_sets(spec, sets, Path(out) / "embeddings", cfg.evaluation)
        rows[spec.name] = _matching_scores(embedded, sets)
        if label_col is not None:
            papers = frame.set_index("id").loc[sets["papers"]["id"]].reset_index()
            vectors = combined_vectors(embedded.vectors("papers", papers["id"]))
            labels = papers[label_col].astype(str).to_numpy()
            rows[spec.name]["clustering"] = _label_agreement(vectors, labels, embedded, test_mask(papers, cfg), cfg)
            spaces[spec.name] = LabelledSpace(vectors, labels)
            curves[spec.name] = metrics.pca_variance_curve(vectors, 100)
    table = pd.DataFrame.from_dict(rows, orient="index")
    lower = {c for c in table.columns if c != "clustering"}
    table["overall"] = overall_score(table, lower)
    notes = [f"matching pools: {', '.join(f'{k}={len(v)}' for k, v in sets.items() if k != 'papers')}"]
    if "queries" not in sets:
        notes.append("no queries: set evaluation.query_col (e.g. tldr) or evaluation.texts with kind='query' texts")
    if label_col is None:
        notes.append("no labels: clustering skipped (set evaluation.label_col)")
    return SuiteResult(NAME, table, lower_is_better=lower, spaces=spaces, pca_curves=curves, notes=notes)


def _matching_scores(embedded: ModelEmbeddings, sets: dict[str, pd.DataFrame]) -> dict[str, float]:
    tasks = dict(MATCHING)
    if "queries" in sets:
        tasks["query_paper"] = ("queries", "query_papers")
    scores = {}
    for task, (query_set, candidate_set) in tasks.items():
        ids = sorted(set(sets[query_set]["id"]) & set(sets[candidate_set]["id"]))
        queries = combined_vectors(embedded.vectors(query_set, ids))
        candidates = combined_vectors(embedded.vectors(candidate_set, ids))
        scores[task] = metrics.average_rank(queries, candidates, similarity=combined_similarity(embedded))
    return scores


def _label_agreement(
    vectors: np.ndarray, labels: np.ndarray, embedded: ModelEmbeddings, test: np.ndarray, cfg: RunConfig
) -> float:
    index = VectorIndex.build(
        vectors[~test], combined_similarity(embedded), ivf_threshold=cfg.evaluation.ivf_threshold
    )
    _, neighbours = index.search(vectors[test], cfg.evaluation.agreement_k)
    return metrics.label_agreement(labels[~test][neighbours], labels[test])


def overall_score(table: pd.DataFrame, lower_is_better: set[str]) -> pd.Series:
    """Mean over tasks of each model's normalised score (best 1, median 0.5, floor 0)."""
    normalised = pd.DataFrame(
        {
            task: metrics.normalised_scores(table[task].to_dict(), higher_is_better=task not in lower_is_better)
            for task in table.columns
        }
    )
    return normalised.mean(axis=1)
