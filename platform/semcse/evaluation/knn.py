"""Labelled-corpus suite: kNN accuracy, kNN label agreement and KMeans V-measure (plus anisotropy).

Test papers (the split column, else a stable hash split) query a FAISS index of the training
papers in the model's own metric: kNN accuracy is the majority label of the 10 nearest against
the truth (the cropping paper's local-coherence measure), label agreement the share of the 5
nearest with the same label (SemCSE's clustering task). V-measure clusters all papers (capped at
`V_MEASURE_ROWS`, stable hash sample) with KMeans, k = number of labels, because KMeans needs no
split. Anisotropy is the variance share of the first 50 principal components.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from semcse.config import RunConfig
from semcse.evaluation import metrics
from semcse.evaluation.embed import ModelRef, combined_similarity, combined_vectors, embed_sets
from semcse.evaluation.inputs import (
    EvaluationDataError,
    label_column,
    load_corpus,
    paper_text,
    sample_ids,
    test_mask,
    text_set,
)
from semcse.evaluation.results import LabelledSpace, SuiteResult
from semcse.index import VectorIndex

NAME = "knn"
V_MEASURE_ROWS = 20_000


def run(models: list[ModelRef], data: str | Path, cfg: RunConfig, out: str | Path) -> SuiteResult:
    frame = load_corpus(data, cfg)
    label_col = label_column(frame, cfg, required=True, source=data)
    papers = text_set(frame["id"], paper_text(frame))
    if len(papers) != len(frame):
        raise EvaluationDataError(f"{data}: {len(frame) - len(papers)} row(s) have neither title nor abstract")
    labels = frame[label_col].astype(str).to_numpy()
    test = test_mask(frame, cfg)
    clustered = sample_ids(frame["id"], V_MEASURE_ROWS)
    k = max(cfg.evaluation.accuracy_k, cfg.evaluation.agreement_k)
    rows, spaces, curves = {}, {}, {}
    for spec in models:
        embedded = embed_sets(spec, {"papers": papers}, Path(out) / "embeddings", cfg.evaluation)
        vectors = combined_vectors(embedded.vectors("papers", papers["id"]))
        index = VectorIndex.build(
            vectors[~test], combined_similarity(embedded), ivf_threshold=cfg.evaluation.ivf_threshold
        )
        _, neighbours = index.search(vectors[test], k)
        neighbour_labels = labels[~test][neighbours]
        rows[spec.name] = {
            "knn_accuracy": metrics.knn_accuracy(neighbour_labels[:, : cfg.evaluation.accuracy_k], labels[test]),
            "label_agreement": metrics.label_agreement(
                neighbour_labels[:, : cfg.evaluation.agreement_k], labels[test]
            ),
            "v_measure": metrics.kmeans_v_measure(vectors[clustered], labels[clustered], seed=cfg.evaluation.seed),
            "anisotropy": metrics.anisotropy(vectors),
        }
        spaces[spec.name] = LabelledSpace(vectors[test], labels[test])
        curves[spec.name] = metrics.pca_variance_curve(vectors, 100)
    notes = [
        f"{int((~test).sum())} train / {int(test.sum())} test papers, {len(np.unique(labels))} labels; "
        f"chance (always the majority training label) accuracy = {chance_accuracy(labels, test):.3f}"
    ]
    table = pd.DataFrame.from_dict(rows, orient="index")
    return SuiteResult(NAME, table, spaces=spaces, pca_curves=curves, notes=notes)


def chance_accuracy(labels: np.ndarray, test: np.ndarray) -> float:
    """Accuracy of always predicting the most frequent training label: the floor kNN must clear."""
    majority = pd.Series(labels[~test]).value_counts().index[0]
    return float(np.mean(labels[test] == majority))
