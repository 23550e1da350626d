"""A searchable corpus on disk: one FAISS index per aspect, the papers' titles, and aspect-weighted queries.

Layout of a search directory (written by the index stage, `run_index`: `semcse index build` and the
pipeline's index step):
`search.json` (model reference, aspects, index subdirectory per aspect), `papers.parquet` (id, title,
and, for an index built from a corpus, the abstract and every other corpus column: what a served
index shows a reader and colours a map by, kept with the vectors so that one version's texts always
belong to its vectors), `aliases.json` (the ids validation merged into another paper → that paper's id, which
every lookup by id resolves), and one `VectorIndex` directory per aspect. The pipeline keeps
its index as a versioned root (`semcse.core.versions`): `load` reads whichever version is current, and a
corpus update publishes a grown copy (`add`, `remove`) as the next version.

Weighted search is exact for any weights: it ranks every paper by `Σ_a α_a s_a(q, v)` (normalised
α), because that sum is one inner product over the papers' aspect vectors laid side by side.
For cosine models `Σ_a α_a cos_a(q, v) = ⟨[α_a q̂_a]_a, [v̂_a]_a⟩`; for Euclidean models the
weighted squared distance `Σ_a α_a ‖q_a − v_a‖²` ranks as `⟨[2α_a q_a]_a ‖ [−α_a]_a, [v_a]_a ‖
[‖v_a‖²]_a⟩` (the query's own norms do not change the order). A shortlist per aspect would miss
exactly the papers that are moderately close on every aspect, which is what weighting is for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from semcse.core import storage, versions
from semcse.core.config import ConfigError, EvaluationConfig, RunConfig
from semcse.core.vector_index import Metric, VectorIndex, VectorIndexError
from semcse.stages.embedding import EMBEDDINGS_DIR

MANIFEST, PAPERS, ALIASES = "search.json", "papers.parquet", "aliases.json"


def aspect_dir(position: int, aspect: str) -> str:
    """A file-system-safe subdirectory name per aspect (`""`, the single vector, is `default`)."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in aspect)
    return f"aspect-{position}-{safe}" if aspect else "default"


@dataclass
class SearchHit:
    """One ranked paper: its weighted score, the distance on each weighted aspect, and the similarity on every
    aspect the query has (weighted or not: how close the paper is on what the weights leave out)."""

    id: str
    title: str
    score: float
    distances: dict[str, float]
    similarities: dict[str, float]


@dataclass
class SearchIndex:
    """Per-aspect vector indexes over the same papers (same row order), plus their titles and the ids merged into
    them."""

    model: str
    indexes: dict[str, VectorIndex]
    papers: pd.DataFrame
    aliases: dict[str, str] = field(default_factory=dict)
    _stacked: np.ndarray | None = field(default=None, init=False, repr=False)
    _rows: dict[str, int] | None = field(default=None, init=False, repr=False)

    @property
    def aspects(self) -> list[str]:
        return list(self.indexes)

    @property
    def dim(self) -> int:
        return next(iter(self.indexes.values())).dim

    @classmethod
    def build(
        cls,
        model: str,
        ids: list[str],
        titles: list[str],
        vectors: Mapping[str, np.ndarray],
        metric: Metric,
        details: pd.DataFrame | None = None,
        aliases: Mapping[str, str] | None = None,
    ) -> SearchIndex:
        """An index over papers in `ids` order; `details` (row-aligned: abstract, label, …) is stored beside them."""
        indexes = {a: VectorIndex.build(v, metric, ids=list(ids)) for a, v in vectors.items()}
        index = cls(model, indexes, _papers(ids, titles, details))
        index.add_aliases(aliases or {})
        return index

    def save(self, location: str | Path) -> str:
        """Write the index at `location` (a directory or a storage URI), replacing what was there."""
        with storage.staged(location) as directory:
            dirs = {a: aspect_dir(i, a) for i, a in enumerate(self.indexes)}
            for aspect, index in self.indexes.items():
                index.save(directory / dirs[aspect])
            self.papers.to_parquet(directory / PAPERS, index=False)
            (directory / ALIASES).write_text(json.dumps(self.aliases))
            manifest = {"model": self.model, "aspects": self.aspects, "dirs": dirs, "size": len(self.papers)}
            (directory / MANIFEST).write_text(json.dumps(manifest, indent=2))
        return str(location)

    @classmethod
    def load(cls, location: str | Path) -> SearchIndex:
        """An index (a directory or a storage URI, fetched once per node), or a versioned root's current version."""
        resolved = versions.resolve(location)
        manifest = cls.manifest(resolved)
        directory = storage.local_copy(resolved)
        indexes = {a: VectorIndex.load(directory / manifest["dirs"][a]) for a in manifest["aspects"]}
        aliases = json.loads((directory / ALIASES).read_text()) if (directory / ALIASES).is_file() else {}
        return cls(manifest["model"], indexes, pd.read_parquet(directory / PAPERS), aliases)

    @staticmethod
    def manifest(location: str | Path) -> dict[str, Any]:
        """An index's `search.json` (model reference, aspects, size) without loading its vectors."""
        path = storage.join(versions.resolve(location), MANIFEST)
        if not storage.is_file(path):
            raise FileNotFoundError(f"{location} is not a search index: {MANIFEST} is missing (semcse index build)")
        return dict(storage.read_json(path))

    def add(
        self,
        ids: list[str],
        titles: list[str],
        vectors: Mapping[str, np.ndarray],
        details: pd.DataFrame | None = None,
    ) -> None:
        """Append papers (one [m, d] array per aspect, `details` as in `build`); searchable with every weighting
        at once."""
        if set(vectors) != set(self.aspects):
            raise VectorIndexError(f"vectors for aspects {sorted(vectors)}; this index has {self.aspects}")
        ids = [str(i) for i in ids]
        clash = sorted(set(ids) & set(self.papers["id"].astype(str)))
        if clash or len(set(ids)) != len(ids):
            raise VectorIndexError(f"papers already in the index or given twice: {clash[:5] or ids}")
        added = _papers(ids, titles, details)
        for aspect, index in self.indexes.items():
            index.add(vectors[aspect], ids if index.ids is not None else None)
        self.papers = pd.concat([self.papers, added], ignore_index=True)
        self._stacked, self._rows = None, None

    def add_aliases(self, aliases: Mapping[str, str]) -> None:
        """Ids merged into indexed papers (alias → paper id): looked up by id, they find that paper."""
        unknown = sorted(set(aliases.values()) - set(self.papers["id"].astype(str)))
        if unknown:
            raise VectorIndexError(f"aliases of papers not in the index: {unknown[:5]}")
        self.aliases.update({str(alias): str(paper) for alias, paper in aliases.items()})

    def remove(self, ids: list[str]) -> None:
        """Drop papers by id (all their aspect vectors, and the ids merged into them); the others keep their
        order."""
        rows = [self.row_of(str(i), aliases=False) for i in ids]
        gone = {str(i) for i in ids}
        self.aliases = {alias: paper for alias, paper in self.aliases.items() if paper not in gone}
        for index in self.indexes.values():
            index.remove(rows)
        self.papers = self.papers.drop(index=rows).reset_index(drop=True)
        self._stacked, self._rows = None, None

    @classmethod
    def publish_grown(
        cls,
        root: str,
        tag: str,
        additions: pd.DataFrame,
        vectors: Callable[[], Mapping[str, np.ndarray]],
        replaced: Sequence[str] = (),
        aliases: Mapping[str, str] | None = None,
    ) -> str:
        """Publish the current version of the versioned index `root`, less `replaced` papers, plus `additions`
        (validated corpus rows) with their `vectors` and the new `aliases`, as a new version tagged `tag`; its name.

        Once per tag (`versions.publish(once=True)`): a rerun after the new version became current
        writes nothing, and only then are the vectors asked for.
        """

        def write(directory: Path) -> None:
            index = cls.load(root)
            gone = set(replaced) & set(index.papers["id"].astype(str))
            # a replaced paper is the same paper with a new text: the ids merged into it stay its own
            merged_into_gone = {alias: paper for alias, paper in index.aliases.items() if paper in gone}
            index.remove(sorted(gone))
            ids = additions["id"].astype(str).tolist()
            if ids:
                index.add(ids, additions["title"].tolist(), vectors(), details=additions)
            added = set(ids)
            kept = {alias: paper for alias, paper in merged_into_gone.items() if paper in added}
            index.add_aliases({**kept, **(aliases or {})})
            index.save(directory)

        return versions.publish(root, tag, write, once=True)[0]

    def row_of(self, paper_id: str, aliases: bool = True) -> int:
        """A paper's row, from an id → row table built once per set of papers (the page asks per hit); an id merged
        into a paper finds that paper's row unless `aliases` is false."""
        if self._rows is None:
            self._rows = {str(p): row for row, p in enumerate(self.papers["id"])}
        row = self._rows.get(self.aliases.get(paper_id, paper_id) if aliases else paper_id)
        if row is None:
            raise VectorIndexError(f"unknown paper id {paper_id!r}: it is not in this index")
        return row

    def paper(self, paper_id: str) -> dict[str, Any]:
        """Everything stored about one paper (id, title, abstract and corpus columns when the index has them);
        a missing value is None."""
        row = self.papers.iloc[self.row_of(paper_id)]
        return {str(k): None if _missing(v) else v for k, v in row.items()}

    def neighbours(
        self, paper_id: str, k: int, weights: Mapping[str, float] | None = None, among: np.ndarray | None = None
    ) -> list[SearchHit]:
        """The k papers nearest an indexed paper under `weights`, the paper itself left out (its stored vectors
        are the query, so nothing is embedded again)."""
        row = self.row_of(paper_id)
        return self.search(self.stored(row), k, weights, exclude=row, among=among)

    def rows_where(
        self, column: str, low: float | None = None, high: float | None = None, values: list[str] | None = None
    ) -> np.ndarray:
        """Which papers a filter keeps, as a mask over rows: a number column within [low, high] (either bound
        may be open), or any column whose value, as text, is one of `values`; a missing value is never kept."""
        if column not in self.papers or column in ("id", "abstract"):
            kept = sorted(c for c in map(str, self.papers.columns) if c not in ("id", "abstract"))
            raise VectorIndexError(f"no column {column!r} to filter by; the papers have {kept}")
        cells = self.papers[column]
        if values is not None:
            return (cells.notna() & cells.astype(str).isin(values)).to_numpy()
        if not pd.api.types.is_numeric_dtype(cells) or pd.api.types.is_bool_dtype(cells):
            raise VectorIndexError(f"column {column!r} holds no numbers: filter it by values, not by a range")
        numbers = cells.astype(np.float64).to_numpy()
        kept_rows = ~np.isnan(numbers)
        if low is not None:
            kept_rows &= numbers >= low
        if high is not None:
            kept_rows &= numbers <= high
        return kept_rows

    def stored(self, row: int) -> dict[str, np.ndarray]:
        """The indexed vectors of one paper (normalised for cosine indexes), per aspect."""
        return {a: index.index.reconstruct(row)[None] for a, index in self.indexes.items()}

    def weights(self, weights: Mapping[str, float] | None) -> dict[str, float]:
        """Normalised α over this index's aspects without the zero-weight ones; none given: all count equally."""
        from semcse.models.aspects import aspect_weights

        try:
            alpha = aspect_weights(weights, self.aspects)
        except ValueError as exc:
            raise VectorIndexError(str(exc)) from exc
        return {a: w for a, w in alpha.items() if w > 0}

    @property
    def metric(self) -> str:
        return next(iter(self.indexes.values())).metric

    def stacked(self) -> np.ndarray:
        """The papers' aspect vectors side by side (plus their squared norms for Euclidean models), built once."""
        if self._stacked is None:
            blocks = [self.indexes[a].vectors() for a in self.aspects]
            if self.metric == "euclidean":
                blocks += [np.square(b).sum(1, keepdims=True) for b in blocks]
            self._stacked = np.ascontiguousarray(np.concatenate(blocks, axis=1), dtype=np.float32)
        return self._stacked

    def _stacked_query(self, query: Mapping[str, np.ndarray], alpha: dict[str, float]) -> np.ndarray:
        """The query whose inner product with `stacked()` rows is the weighted score (up to a constant)."""
        parts, norms = [], []
        for aspect in self.aspects:
            weight = alpha.get(aspect, 0.0)
            q = np.zeros(self.indexes[aspect].dim, np.float32) if weight == 0 else self._vector(aspect, query[aspect])
            parts.append(weight * (2 * q if self.metric == "euclidean" else q))
            norms.append(-weight)
        if self.metric == "euclidean":
            parts.append(np.asarray(norms, np.float32))
        return np.concatenate(parts).astype(np.float32)

    def search(
        self,
        query: Mapping[str, np.ndarray],
        k: int,
        weights: Mapping[str, float] | None = None,
        exclude: int | None = None,
        among: np.ndarray | None = None,
    ) -> list[SearchHit]:
        """The k papers with the best weighted score, exactly; `query` holds one [1, d] vector per weighted aspect.
        `among`, a mask over rows (`rows_where`), keeps the others out."""
        alpha = self.weights(weights)
        missing = [a for a in alpha if a not in query]
        if missing:
            raise VectorIndexError(f"the query has no vector for weighted aspect(s) {missing}")
        combined = self.stacked() @ self._stacked_query(query, alpha)
        eligible = np.ones(len(combined), bool) if among is None else np.asarray(among, bool).copy()
        if exclude is not None:
            eligible[exclude] = False
        combined[~eligible] = -np.inf
        k = min(k, int(eligible.sum()))
        if k < 1:
            return []
        top = np.argpartition(-combined, k - 1)[:k]
        rows = top[np.argsort(-combined[top], kind="stable")]
        per_aspect = self._scores(rows, query)
        hits = []
        for i, row in enumerate(rows):
            scores = {a: float(values[i]) for a, values in per_aspect.items()}
            hits.append(
                SearchHit(
                    id=str(self.papers["id"].iat[row]),
                    title=str(self.papers["title"].iat[row]),
                    score=float(sum(alpha[a] * scores[a] for a in alpha)),
                    distances={a: float(_distance(self.indexes[a].metric, scores[a])) for a in alpha},
                    similarities=scores,
                )
            )
        return hits

    def _vector(self, aspect: str, query: np.ndarray) -> np.ndarray:
        index = self.indexes[aspect]
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != index.dim:
            raise VectorIndexError(f"query vectors have dimension {q.shape[0]} but the index stores {index.dim}")
        if not np.isfinite(q).all():
            raise VectorIndexError("the query vector contains NaN or infinite values")
        return q / max(float(np.linalg.norm(q)), 1e-12) if index.metric == "cosine" else q

    def _scores(self, rows: np.ndarray, query: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The papers' "higher = closer" scores on every aspect the query has (cosine, or minus the squared
        Euclidean distance), read from the aspect's columns of the search matrix: one product per aspect."""
        stacked, start, out = self.stacked(), 0, {}
        for aspect in self.aspects:
            dim = self.indexes[aspect].dim
            if aspect in query:
                stored, q = stacked[rows, start : start + dim], self._vector(aspect, query[aspect])
                out[aspect] = -np.square(stored - q).sum(1) if self.metric == "euclidean" else stored @ q
            start += dim
        return out


def _papers(ids: list[str], titles: list[str], details: pd.DataFrame | None) -> pd.DataFrame:
    """The papers table: id and title first, then the row-aligned `details` columns (their own id/title dropped)."""
    if len(titles) != len(ids):
        raise VectorIndexError(f"{len(titles)} titles for {len(ids)} papers")
    table = pd.DataFrame({"id": [str(i) for i in ids], "title": ["" if _missing(t) else str(t) for t in titles]})
    if details is None:
        return table
    if len(details) != len(ids):
        raise VectorIndexError(f"details of {len(details)} papers for {len(ids)} ids")
    extra = details.drop(columns=[c for c in ("id", "title") if c in details]).reset_index(drop=True)
    return pd.concat([table, extra], axis=1)


def _missing(value: Any) -> bool:
    """A null cell (None, NaN, NaT) but never a list or an array, whose truth pandas refuses to take."""
    return value is None or (np.ndim(value) == 0 and bool(pd.isna(value)))


def _distance(metric: str, score: Any) -> float:
    """Back from a score to a distance: 1 − cos for cosine, the Euclidean distance, or −dot."""
    if metric == "euclidean":
        return float(np.sqrt(max(-score, 0.0)))
    return 1.0 - score if metric == "cosine" else -score


def build_from_corpus(
    corpus: pd.DataFrame,
    model_ref: str,
    cfg: EvaluationConfig,
    embeddings: str,
    model: Any = None,
    aliases: Mapping[str, str] | None = None,
) -> SearchIndex:
    """Embed title + abstract of every paper with every aspect of the model (on Ray Data actors, shards under
    `embeddings`); index by the model's metric, storing the corpus's other columns and the ids merged into its
    papers (`aliases`). `model` (an in-memory model) is embedded instead of `model_ref`.
    """
    from semcse.stages.embedding import ModelRef, embed_papers

    [embedded] = embed_papers(
        [ModelRef(model_ref, model if model is not None else model_ref)], corpus, embeddings, cfg
    )
    metric: Metric = "euclidean" if embedded.similarity == "euclidean" else "cosine"
    titles = corpus["title"].tolist()
    ids = corpus["id"].astype(str).tolist()
    return SearchIndex.build(model_ref, ids, titles, embedded.vectors, metric, details=corpus, aliases=aliases)


@dataclass
class IndexReport:
    """What the index stage built: where, from which model, over how many papers, which aspects, what size."""

    out: str
    model: str
    papers: int
    aspects: list[str]
    dim: int
    version: str | None = None  # the version published, when `out` is a versioned root


def run_index(cfg: RunConfig, model: str, out: str | Path, versioned: bool = False) -> IndexReport:
    """The index stage: embed every paper of `corpus.path` with every aspect of `model`; save the index at `out`.

    Papers are embedded on Ray Data actors into `<run_dir>/embeddings` (which the map step then
    reuses). `versioned` publishes the index as the first version of a versioned root
    (`semcse.core.versions`), which the pipeline does so corpus updates can later publish grown copies.
    """
    from semcse.core.data.duplicates import duplicates_of, read_aliases
    from semcse.core.data.io import read_corpus
    from semcse.core.runtime import connect
    from semcse.core.tracking import pinned

    cfg = connect(cfg)
    if not cfg.corpus.path:
        raise ConfigError("corpus.path is not set: there is no corpus to index")
    frame = read_corpus(cfg.corpus.path, cfg.corpus)
    model = pinned(model, cfg.tracking)
    embeddings = storage.join(cfg.run_dir, EMBEDDINGS_DIR)
    index = build_from_corpus(
        frame, model, cfg.evaluation, embeddings, aliases=read_aliases(duplicates_of(cfg.corpus.path))
    )
    version = None
    if versioned:
        version, _ = versions.publish(out, "build", index.save)
    else:
        index.save(out)
    return IndexReport(str(out), model, len(frame), index.aspects, index.dim, version)
