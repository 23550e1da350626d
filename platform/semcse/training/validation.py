"""The held-out checks run every `eval_every` steps; their mean (`val_score`) drives early stopping.

Following SemCSE (Appendix A.3), on validation abstracts that have two texts s1, s2 of the mode:

- `val_rank_pair`: average rank of s2 among all validation s2 for query s1;
- `val_rank_document`: average rank of the matching `title + abstract` among all validation
  documents for the mean embedding of s1 and s2.

Crop modes have no generated texts, so they use the analogues that test the same abilities:
first crop ↔ last crop of an abstract for the pair check, and the abstract's first half ↔ second
half of its sentences for the document check (SemCSE's "abstract segments" task). Ranks are 1-based,
lower is better, and use the loss's geometry (Euclidean for triplet, cosine for InfoNCE).

Each abstract's own score (the mean of its two ranks) is kept beside the averages, so a trained
step can be tested against the base model on the same abstracts (`significantly_better`): on a few
hundred validation abstracts a strong base model's ranks move by noise alone, and a step that is
better only by noise must not replace the base.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from semcse.data.modes import pair_mode
from semcse.evaluation.metrics import Similarity, true_ranks
from semcse.evaluation.uncertainty import Bootstrap
from semcse.models.encoder import TextEncoder


@dataclass(frozen=True)
class Validated:
    """One evaluation: the logged metrics (with `val_score`, lower is better) and, where the check has
    them, per-abstract scores whose mean is `val_score` (None: only the averages can be compared)."""

    metrics: dict[str, float]
    items: np.ndarray | None = None


@dataclass(frozen=True)
class ValidationSet:
    """Texts for the two checks; query i matches target i. Document queries are averaged embeddings."""

    pair_queries: list[str]
    pair_targets: list[str]
    document_queries: list[tuple[str, ...]]
    document_targets: list[str]
    similarity: Similarity
    max_length: int | None = None

    def __len__(self) -> int:
        return len(self.pair_queries)


def build_validation_set(
    mode: str, rows: pd.DataFrame, size: int, similarity: Similarity, seed: int = 0, max_length: int | None = None
) -> ValidationSet:
    """From pair rows of the validation split (see `build_pair_rows`): a seeded sample of at most `size` abstracts.

    A random sample rather than the first rows: corpora are often sorted (by label, source or date),
    and the head of a sorted split covers a few topics, where ranks mean something else.
    `max_length` truncates validation texts as training does (None: the model's own length).
    """
    usable = rows[rows["texts"].map(len) >= 2]
    usable = usable.sample(n=min(size, len(usable)), random_state=seed).sort_index()
    texts = [list(t) for t in usable["texts"]]
    if pair_mode(mode).source == "crops":
        halves = [_halves(list(s)) for s in usable["sentences"]]
        return ValidationSet(
            pair_queries=[t[0] for t in texts],
            pair_targets=[t[-1] for t in texts],
            document_queries=[(first,) for first, _ in halves],
            document_targets=[second for _, second in halves],
            similarity=similarity,
            max_length=max_length,
        )
    documents = (usable["title"].str.strip() + " " + usable["abstract"].str.strip()).str.strip()
    return ValidationSet(
        pair_queries=[t[0] for t in texts],
        pair_targets=[t[1] for t in texts],
        document_queries=[(t[0], t[1]) for t in texts],
        document_targets=documents.tolist(),
        similarity=similarity,
        max_length=max_length,
    )


def _halves(sentences: list[str]) -> tuple[str, str]:
    middle = max(1, len(sentences) // 2)
    return " ".join(sentences[:middle]), " ".join(sentences[middle:])


def evaluate(encoder: TextEncoder, val: ValidationSet, batch_size: int = 64) -> Validated:
    """Both average ranks, their mean, and each abstract's mean rank; every text is encoded once, in one
    batched pass without gradients."""
    width = len(val.document_queries[0])
    flat_queries = [text for group in val.document_queries for text in group]
    vectors = encoder.encode(
        val.pair_queries + val.pair_targets + flat_queries + val.document_targets,
        batch_size=batch_size,
        max_length=val.max_length,
    )
    n = len(val)
    pair_q, pair_t = vectors[:n], vectors[n : 2 * n]
    document_q = vectors[2 * n : 2 * n + n * width].reshape(n, width, -1).mean(1)
    document_t = vectors[2 * n + n * width :]
    pair = true_ranks(pair_q, pair_t, similarity=val.similarity)
    document = true_ranks(document_q, document_t, similarity=val.similarity)
    items = (pair + document) / 2
    metrics = {
        "val_rank_pair": float(pair.mean()),
        "val_rank_document": float(document.mean()),
        "val_score": float(items.mean()),
    }
    return Validated(metrics, items)


def significantly_better(items: np.ndarray, base: np.ndarray, resamples: int = 1000, seed: int = 0) -> bool:
    """Whether per-abstract scores (lower is better) beat the base model's on the same abstracts: the 95%
    paired bootstrap interval of the mean difference lies below zero."""
    difference = Bootstrap(resamples, seed).mean("validation", np.asarray(items) - np.asarray(base))
    return bool(difference.interval()[1] < 0)
