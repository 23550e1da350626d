"""Labelled-corpus suite: kNN accuracy, kNN label agreement and clustering V-measure (plus anisotropy).

Test papers (the split column, else a stable hash split; validation papers with
`evaluation.split=val`) query a FAISS index of the other papers: kNN accuracy is the majority
label of the 10 nearest against the truth (the cropping paper's local-coherence measure), label
agreement the share of the 5 nearest with the same label (SemCSE's clustering task). Neighbours
are found in the model's own metric, or in the one `evaluation.knn_similarity` names (the
cropping paper used Euclidean distance). V-measure clusters the query papers (capped at
`V_MEASURE_ROWS`, stable hash sample) the way MTEB's clustering evaluator does: held-out papers
only, as PhysBERT's clustering evaluation keeps its abstracts out of training, so a model is not
graded on how it groups the abstracts it trained on, and tuning never clusters the test split;
every paper with `evaluation.split=all` (data no model trained on).
Anisotropy is the variance share of the first 50 principal components of every paper the suite
may read (test and the rest; validation and training when tuning).

Every figure but anisotropy carries a 95% bootstrap interval over query papers, the same draws
for every model; anisotropy has none, because a resample repeats vectors and so biases a
variance share upwards. V-measure's replicates are recentred on it for the same reason
(`Estimate.recentred`); each draw scores all of its seeded clusterings, as the figure does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from semcse.core import storage
from semcse.core.config import RunConfig
from semcse.core.data.schema import paper_text
from semcse.core.vector_index import VectorIndex
from semcse.stages.embedding import ModelRef, combined_similarity, combined_vectors, embed_sets
from semcse.stages.evaluation import metrics
from semcse.stages.evaluation.inputs import (
    EvaluationDataError,
    label_column,
    load_corpus,
    query_rows,
    sample_ids,
    text_set,
)
from semcse.stages.evaluation.results import LabelledSpace, SuiteResult
from semcse.stages.evaluation.uncertainty import Bootstrap, Estimate, interval_note

NAME = "knn"
V_MEASURE_ROWS = 20_000


def run(
    models: list[ModelRef], data: str | Path, cfg: RunConfig, out: str | Path, embeddings: str | Path | None = None
) -> SuiteResult:
    frame = load_corpus(data, cfg)
    label_col = label_column(frame, cfg, required=True, source=data)
    papers = text_set(frame["id"], paper_text(frame))
    if len(papers) != len(frame):
        raise EvaluationDataError(f"{data}: {len(frame) - len(papers)} row(s) have neither title nor abstract")
    labels = frame[label_col].astype(str).to_numpy()
    test, reference = query_rows(frame, cfg)
    read = test | reference  # with evaluation.split=val, the test split is in neither
    held_out = read if cfg.evaluation.split == "all" else test  # `all`: data no model trained on
    clustered = np.flatnonzero(held_out)[sample_ids(frame["id"][held_out], V_MEASURE_ROWS)]
    clusters = len(np.unique(labels[clustered]))
    k = max(cfg.evaluation.accuracy_k, cfg.evaluation.agreement_k)
    bootstrap = Bootstrap(cfg.evaluation.bootstrap, cfg.evaluation.seed)
    rows: dict[str, dict[str, Estimate]] = {}
    spaces, curves, metric_used = {}, {}, {}
    store = embeddings or storage.join(out, "embeddings")
    for embedded in embed_sets(models, {"papers": papers}, store, cfg.evaluation):
        spec = embedded.spec
        vectors = combined_vectors(embedded.vectors("papers", papers["id"].tolist()))
        similarity = cfg.evaluation.knn_similarity or combined_similarity(embedded)
        metric_used[spec.name] = similarity
        neighbours = reference_neighbours(vectors, test, reference, k, similarity, cfg.evaluation.ivf_threshold)
        neighbour_labels = labels[reference][neighbours]
        hits = metrics.knn_hits(neighbour_labels[:, : cfg.evaluation.accuracy_k], labels[test])
        agreements = metrics.label_agreements(neighbour_labels[:, : cfg.evaluation.agreement_k], labels[test])
        rows[spec.name] = {
            "knn_accuracy": bootstrap.mean("knn", hits),
            "label_agreement": bootstrap.mean("knn", agreements),
            "v_measure": _v_measure(vectors[clustered], labels[clustered], bootstrap, cfg.evaluation.seed),
            # no interval: a bootstrap draw repeats vectors, which lowers the rank of the sample and inflates the
            # variance share of the leading components (the draws would sit above the point estimate)
            "anisotropy": Estimate(metrics.anisotropy(vectors[read]), np.full(1, np.nan)),
        }
        spaces[spec.name] = LabelledSpace(vectors[test], labels[test])
        curves[spec.name] = metrics.pca_variance_curve(vectors[read], 100)
    asked = (
        f"each of {len(frame)} papers queries the others (all split)"
        if cfg.evaluation.split == "all"
        else f"{int(reference.sum())} reference / {int(test.sum())} query ({cfg.evaluation.split} split) papers"
    )
    notes = [
        f"{asked}, {len(np.unique(labels))} labels; chance (always the majority reference label) accuracy = "
        f"{chance_accuracy(labels, test, reference):.3f}",
        "neighbours by " + ", ".join(f"{name}: {metric}" for name, metric in metric_used.items()),
        interval_note(cfg.evaluation.bootstrap, "query papers", len(rows)),
        f"V-measure clusters {len(clustered)} papers into {clusters} clusters"
        if clusters > 1
        else f"no V-measure: the {len(clustered)} clustered papers carry one label",
        "anisotropy has no interval: resampling with replacement repeats vectors and biases it upwards",
    ]
    return SuiteResult(NAME, rows, spaces=spaces, pca_curves=curves, notes=notes)


def reference_neighbours(
    vectors: np.ndarray,
    queries: np.ndarray,
    references: np.ndarray,
    k: int,
    similarity: metrics.Similarity,
    ivf_threshold: int,
) -> np.ndarray:
    """Each query's k nearest references, as positions among the references, nearest first.

    A query that is a reference too (`evaluation.split=all`) is never its own neighbour: one more neighbour is
    found and the query itself dropped, by position, so an exact duplicate of it still counts.
    """
    index = VectorIndex.build(vectors[references], similarity, ivf_threshold=ivf_threshold)
    if not (queries & references).any():
        return index.search(vectors[queries], k)[1]
    _, found = index.search(vectors[queries], k + 1)
    position = np.cumsum(references) - 1
    own = np.where(references[queries], position[queries], -1)
    return np.stack([row[row != me][:k] for row, me in zip(found, own)])


def _v_measure(vectors: np.ndarray, labels: np.ndarray, bootstrap: Bootstrap, seed: int) -> Estimate:
    """V-measure averaged over MTEB-protocol clusterings (k = the labels among these papers); NaN with fewer than
    two labels, where it is undefined."""
    clusters = len(np.unique(labels))
    if clusters < 2:
        return Estimate(float("nan"), np.full(1, np.nan))
    scores = metrics.VMeasure(labels, metrics.mteb_clusterings(vectors, clusters, seed))
    return bootstrap.statistic("clustered", len(labels), scores).recentred()


def chance_accuracy(labels: np.ndarray, test: np.ndarray, reference: np.ndarray) -> float:
    """Accuracy of always predicting the most frequent training label: the floor kNN must clear."""
    majority = pd.Series(labels[reference]).value_counts().index[0]
    return float(np.mean(labels[test] == majority))
