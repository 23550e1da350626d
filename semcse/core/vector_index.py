"""FAISS nearest-neighbour indexes that follow the model's own metric.

A cosine model is searched by exact inner product over L2-normalised vectors, a Euclidean model
by L2 distance, so neighbours are the ones the model was trained to bring close. Above
`ivf_threshold` vectors an IVF index (approximate, `nprobe` lists probed per query) keeps build
and query time sub-linear; below it the exact flat index is both fast enough and exact.

Scores returned by `search` are always "higher = closer": cosine or dot similarity, or the
negative Euclidean distance, the same convention as `evaluation.metrics.similarity_matrix`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

Metric = Literal["cosine", "euclidean", "dot"]
METRICS: tuple[str, ...] = ("cosine", "euclidean", "dot")
INDEX_FILE, META_FILE = "index.faiss", "index.json"


# faiss-cpu's default `distance_compute_blas_threshold` (128000) sends every batch of fewer queries down a
# per-query scan, several times slower than BLAS for a few hundred queries; from 20 queries on BLAS is the faster
# path, below it the scan (benchmarks/neighbours.py, docs/BENCHMARKS.md).
BLAS_FROM_QUERIES = 20


def _faiss() -> Any:
    """The `faiss` module, from whichever build is installed: the `cpu` extra's faiss-cpu or the `gpu` extra's
    faiss-gpu (both install `faiss`, so a machine has one; the base dependencies have neither)."""
    try:
        import faiss
    except ImportError:
        raise VectorIndexError(
            "FAISS is not installed: install the package with its cpu extra (pip install -e '.[cpu]', what "
            "`make setup` does) or, on a CUDA machine, its gpu extra ('.[gpu]')"
        ) from None
    faiss.cvar.distance_compute_blas_threshold = BLAS_FROM_QUERIES
    return faiss


class VectorIndexError(ValueError):
    """An index that cannot be built, loaded or searched as asked (the message says why)."""


class DimensionMismatch(VectorIndexError):
    """Query vectors whose dimension differs from the vectors stored in the index."""


@dataclass
class VectorIndex:
    """A FAISS index plus what is needed to search it correctly: metric, dimension and row ids."""

    index: Any
    metric: Metric
    dim: int
    ids: list[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return int(self.index.ntotal)

    @classmethod
    def build(
        cls,
        vectors: np.ndarray,
        metric: Metric = "cosine",
        ids: list[str] | None = None,
        ivf_threshold: int = 200_000,
        nlist: int | None = None,
        nprobe: int | None = None,
        seed: int = 0,
    ) -> VectorIndex:
        """Index `vectors` ([n, dim]); from `ivf_threshold` vectors on, IVF (nlist ≈ √n, nprobe ≈ nlist/8 ≥ 8)."""
        faiss = _faiss()

        if metric not in METRICS:
            raise VectorIndexError(f"unknown metric {metric!r}; expected one of {METRICS}")
        x = _prepare(vectors, metric, None)
        n, dim = x.shape
        if ids is not None and len(ids) != n:
            raise VectorIndexError(f"{len(ids)} ids for {n} vectors")
        faiss_metric = faiss.METRIC_L2 if metric == "euclidean" else faiss.METRIC_INNER_PRODUCT
        flat = faiss.IndexFlatL2(dim) if metric == "euclidean" else faiss.IndexFlatIP(dim)
        meta: dict[str, Any] = {"kind": "flat"}
        if n >= ivf_threshold:
            nlist = nlist or max(1, min(int(math.sqrt(n)), n // 40))
            index = faiss.IndexIVFFlat(flat, dim, nlist, faiss_metric)
            train = x[np.random.default_rng(seed).choice(n, min(n, 40 * nlist), replace=False)]
            index.train(train)
            index.nprobe = nprobe or max(1, min(nlist, max(8, nlist // 8)))
            index.make_direct_map()  # `reconstruct` (stored vectors by row) works on a fresh index too
            meta = {"kind": "ivf", "nlist": nlist, "nprobe": index.nprobe}
        else:
            index = flat
        index.add(x)
        return cls(index=index, metric=metric, dim=dim, ids=list(ids) if ids is not None else None, meta=meta)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The k nearest stored vectors of each query: (scores [q, k], row indices [q, k]), nearest first."""
        x = _prepare(queries, self.metric, self.dim)
        k = min(k, self.size)
        if k < 1:
            raise VectorIndexError("the index is empty")
        distances, indices = self.index.search(x, k)
        if self.metric == "euclidean":
            distances = -np.sqrt(np.clip(distances, 0, None))
        return distances, indices

    def add(self, vectors: np.ndarray, ids: list[str] | None = None) -> None:
        """Append vectors ([m, dim]) as the next rows, normalised like the stored ones (IVF: its trained lists)."""
        x = _prepare(vectors, self.metric, self.dim)
        if (ids is None) != (self.ids is None):
            raise VectorIndexError(
                "this index stores ids: give one per vector" if self.ids else "this index has no ids"
            )
        if ids is not None and len(ids) != len(x):
            raise VectorIndexError(f"{len(ids)} ids for {len(x)} vectors")
        self.index.add(x)
        if ids is not None and self.ids is not None:
            self.ids.extend(ids)

    def remove(self, rows: list[int]) -> None:
        """Drop rows; the others keep their order (a flat index compacts in place, an IVF one is refilled)."""
        faiss = _faiss()

        rows = sorted(set(int(r) for r in rows))
        if not rows:
            return
        if rows[0] < 0 or rows[-1] >= self.size:
            raise VectorIndexError(f"rows {rows} are not all in an index of {self.size}")
        if self.meta.get("kind") == "ivf":
            keep = np.delete(self.vectors(), rows, axis=0)
            fresh = faiss.clone_index(self.index)
            fresh.reset()  # keeps the trained coarse quantizer and the direct map's type
            fresh.add(np.ascontiguousarray(keep))
            self.index = fresh
        else:
            self.index.remove_ids(np.asarray(rows, dtype=np.int64))
        if self.ids is not None:
            dropped = set(rows)
            self.ids = [i for row, i in enumerate(self.ids) if row not in dropped]

    def vectors(self) -> np.ndarray:
        """Every stored vector in row order ([size, dim]; unit length for cosine indexes)."""
        return self.index.reconstruct_n(0, self.size)

    def save(self, directory: str | Path) -> Path:
        """Write `index.faiss` and `index.json` (metric, dim, kind, ids) into a directory."""
        faiss = _faiss()
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self.index, str(directory / INDEX_FILE))
        meta = {"metric": self.metric, "dim": self.dim, "size": self.size, "ids": self.ids, **self.meta}
        (directory / META_FILE).write_text(json.dumps(meta))
        return directory

    @classmethod
    def load(cls, directory: str | Path) -> VectorIndex:
        faiss = _faiss()

        directory = Path(directory)
        if not (directory / INDEX_FILE).is_file() or not (directory / META_FILE).is_file():
            raise FileNotFoundError(f"no index in {directory}: expected {INDEX_FILE} and {META_FILE}")
        meta = json.loads((directory / META_FILE).read_text())
        index = faiss.read_index(str(directory / INDEX_FILE))
        if meta.get("kind") == "ivf":
            faiss.extract_index_ivf(index).make_direct_map()
        metric, dim, ids = meta.pop("metric"), meta.pop("dim"), meta.pop("ids")
        meta.pop("size", None)
        return cls(index=index, metric=metric, dim=dim, ids=ids, meta=meta)


def _prepare(vectors: np.ndarray, metric: str, dim: int | None) -> np.ndarray:
    """Contiguous float32 (what FAISS wants), checked for shape and NaN, normalised for cosine."""
    x = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
    if x.ndim != 2:
        raise VectorIndexError(f"expected a 2-D array of vectors, got shape {x.shape}")
    if dim is not None and x.shape[1] != dim:
        raise DimensionMismatch(
            f"query vectors have dimension {x.shape[1]} but the index stores dimension {dim}: "
            "the model that embedded the queries is not the one that built the index"
        )
    if not np.isfinite(x).all():
        bad = int((~np.isfinite(x)).any(1).sum())
        raise VectorIndexError(f"{bad} vector(s) contain NaN or infinite values")
    if metric == "cosine":
        x = x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)
    return np.ascontiguousarray(x, dtype=np.float32)


def nearest(
    queries: np.ndarray, candidates: np.ndarray, k: int, metric: Metric = "cosine", ivf_threshold: int = 200_000
) -> np.ndarray:
    """Row indices [q, k] of each query's k nearest candidates (a one-shot index)."""
    return VectorIndex.build(candidates, metric, ivf_threshold=ivf_threshold).search(queries, k)[1]
