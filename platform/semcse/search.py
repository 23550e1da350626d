"""A searchable corpus on disk: one FAISS index per aspect, the papers' titles, and aspect-weighted queries.

Layout of a search directory (written by `semcse index build`):
`search.json` (model reference, aspects, index subdirectory per aspect), `papers.parquet` (id, title,
and label when the corpus has one), and one `VectorIndex` directory per aspect.

Weighted search follows the maps' distance `d = Σ_a α_a d_a` with normalised weights: each weighted
aspect's index proposes `candidates` neighbours, and every proposed paper is then scored exactly on
every weighted aspect (vectors reconstructed from the indexes), so a paper close on one aspect but
missed by another aspect's shortlist still gets its true combined score.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from semcse.index import VectorIndex, VectorIndexError

MANIFEST, PAPERS = "search.json", "papers.parquet"


def aspect_dir(position: int, aspect: str) -> str:
    """A file-system-safe subdirectory name per aspect (`""`, the single vector, is `default`)."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in aspect)
    return f"aspect-{position}-{safe}" if aspect else "default"


@dataclass
class SearchHit:
    id: str
    title: str
    score: float
    distances: dict[str, float]


@dataclass
class SearchIndex:
    """Per-aspect vector indexes over the same papers (same row order), plus their titles."""

    model: str
    indexes: dict[str, VectorIndex]
    papers: pd.DataFrame

    @property
    def aspects(self) -> list[str]:
        return list(self.indexes)

    @property
    def dim(self) -> int:
        return next(iter(self.indexes.values())).dim

    @classmethod
    def build(
        cls, model: str, ids: list[str], titles: list[str], vectors: Mapping[str, np.ndarray], metric: str
    ) -> SearchIndex:
        indexes = {a: VectorIndex.build(v, metric, ids=list(ids)) for a, v in vectors.items()}  # type: ignore[arg-type]
        return cls(model, indexes, pd.DataFrame({"id": list(ids), "title": list(titles)}))

    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        dirs = {a: aspect_dir(i, a) for i, a in enumerate(self.indexes)}
        for aspect, index in self.indexes.items():
            index.save(directory / dirs[aspect])
        self.papers.to_parquet(directory / PAPERS, index=False)
        manifest = {"model": self.model, "aspects": self.aspects, "dirs": dirs, "size": len(self.papers)}
        (directory / MANIFEST).write_text(json.dumps(manifest, indent=2))
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> SearchIndex:
        directory = Path(directory)
        if not (directory / MANIFEST).is_file():
            raise FileNotFoundError(f"{directory} is not a search index: {MANIFEST} is missing (semcse index build)")
        manifest = json.loads((directory / MANIFEST).read_text())
        indexes = {a: VectorIndex.load(directory / manifest["dirs"][a]) for a in manifest["aspects"]}
        for index in indexes.values():
            if index.meta.get("kind") == "ivf":
                import faiss

                faiss.extract_index_ivf(index.index).make_direct_map()
        return cls(manifest["model"], indexes, pd.read_parquet(directory / PAPERS))

    def row_of(self, paper_id: str) -> int:
        rows = np.flatnonzero(self.papers["id"].to_numpy() == paper_id)
        if not len(rows):
            raise VectorIndexError(f"unknown paper id {paper_id!r}: it is not in this index")
        return int(rows[0])

    def stored(self, row: int) -> dict[str, np.ndarray]:
        """The indexed vectors of one paper (normalised for cosine indexes), per aspect."""
        return {a: index.index.reconstruct(row)[None] for a, index in self.indexes.items()}

    def weights(self, weights: Mapping[str, float] | None) -> dict[str, float]:
        """Normalised α over this index's aspects; none given means all aspects count equally."""
        if not weights:
            return {a: 1.0 / len(self.aspects) for a in self.aspects}
        unknown = sorted(set(weights) - set(self.aspects))
        if unknown:
            raise VectorIndexError(f"weights name unknown aspect(s) {unknown}; this index has {self.aspects}")
        if any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            raise VectorIndexError(f"aspect weights must be non-negative with a positive sum, got {dict(weights)}")
        total = float(sum(weights.values()))
        return {a: float(w) / total for a, w in weights.items() if w > 0}

    def search(
        self,
        query: Mapping[str, np.ndarray],
        k: int,
        weights: Mapping[str, float] | None = None,
        exclude: int | None = None,
        candidates: int = 50,
    ) -> list[SearchHit]:
        """The k papers with the best weighted score; `query` holds one [1, d] vector per weighted aspect."""
        alpha = self.weights(weights)
        missing = [a for a in alpha if a not in query]
        if missing:
            raise VectorIndexError(f"the query has no vector for weighted aspect(s) {missing}")
        shortlist = min(len(self.papers), max(candidates, k + 1))
        rows = sorted({int(r) for a in alpha for r in self.indexes[a].search(query[a], shortlist)[1][0] if r >= 0})
        rows = [r for r in rows if r != exclude]
        if not rows:
            return []
        scores = {a: self._scores(a, query[a], rows) for a in alpha}
        combined = sum(alpha[a] * scores[a] for a in alpha)
        best = np.argsort(-combined, kind="stable")[:k]
        return [
            SearchHit(
                id=str(self.papers["id"].iat[rows[i]]),
                title=str(self.papers["title"].iat[rows[i]]),
                score=float(combined[i]),
                distances={a: float(_distance(self.indexes[a].metric, scores[a][i])) for a in alpha},
            )
            for i in best
        ]

    def _scores(self, aspect: str, query: np.ndarray, rows: list[int]) -> np.ndarray:
        """Exact "higher = closer" scores of `rows` for one aspect, in the VectorIndex convention."""
        index = self.indexes[aspect]
        stored = np.stack([index.index.reconstruct(r) for r in rows])
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != index.dim:
            raise VectorIndexError(f"query vectors have dimension {q.shape[0]} but the index stores {index.dim}")
        if index.metric == "euclidean":
            return -np.linalg.norm(stored - q, axis=1)
        if index.metric == "cosine":
            q = q / max(float(np.linalg.norm(q)), 1e-12)
        return stored @ q


def _distance(metric: str, score: Any) -> float:
    """Back from a score to a distance: 1 − cos for cosine, Euclidean distance, or −dot."""
    return 1.0 - score if metric == "cosine" else -score


def build_from_corpus(corpus: pd.DataFrame, model_ref: str, model: Any, batch_size: int = 64) -> SearchIndex:
    """Embed title + abstract of every paper with every aspect of `model`; index by the model's metric."""
    from semcse.evaluation.embed import aspects_of
    from semcse.evaluation.inputs import paper_text

    texts = paper_text(corpus).tolist()
    aspects = aspects_of(model)
    if aspects == [""]:
        vectors = {"": np.asarray(model.encode(texts, batch_size=batch_size, show_progress=True), np.float32)}
    else:
        vectors = {a: np.asarray(v, np.float32) for a, v in model.encode(texts, aspects=aspects).items()}
    metric = "euclidean" if getattr(model, "similarity", "cosine") == "euclidean" else "cosine"
    titles = corpus["title"].fillna("").astype(str).tolist()
    return SearchIndex.build(model_ref, corpus["id"].astype(str).tolist(), titles, vectors, metric)
