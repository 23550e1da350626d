"""FAISS vs NumPy brute force for top-10 neighbours of 384-d vectors (10k, 100k, 1M stored).

Why: evaluation and search must stay fast as corpora grow; this shows where an exact FAISS index
pays off against a chunked NumPy matmul, and what the IVF index (used above
`evaluation.ivf_threshold`) buys. Vectors are random unit vectors generated in chunks (1M × 384
float32 = 1.5 GB); queries are limited to 200 so brute force stays affordable. Query times are
the best of 3 calls, so a first call's thread start-up is not charged to either side.

    .venv/bin/python benchmarks/neighbours.py [--sizes 10000 100000 1000000] [--queries 200]
    .venv/bin/python benchmarks/neighbours.py --real "$SEMCSE_DATA/cs_papers.parquet" --max-length 64

`--real` replaces the random vectors by all-MiniLM-L6-v2 embeddings of a corpus (title + abstract,
cut to `--max-length` tokens to keep embedding affordable on a laptop; cached next to the corpus
name in the temp dir): real embeddings are clustered, which is where IVF's recall is meant to hold.
The queries are papers left out of the index.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np

from semcse.core.vector_index import VectorIndex

DIM, K = 384, 10


def random_unit(n: int, seed: int, chunk: int = 100_000) -> np.ndarray:
    """n unit vectors, built chunk by chunk so peak memory is the result plus one chunk."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, chunk):
        block = rng.standard_normal((min(chunk, n - start), DIM), dtype=np.float32)
        out[start : start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def numpy_topk(queries: np.ndarray, stored: np.ndarray, k: int, chunk: int = 200_000) -> np.ndarray:
    """Exact top-k by inner product, chunked over the stored vectors to bound the score matrix."""
    best_scores = np.full((len(queries), k), -np.inf, dtype=np.float32)
    best_rows = np.zeros((len(queries), k), dtype=np.int64)
    for start in range(0, len(stored), chunk):
        scores = queries @ stored[start : start + chunk].T
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        merged_scores = np.concatenate([best_scores, np.take_along_axis(scores, top, 1)], axis=1)
        merged_rows = np.concatenate([best_rows, top + start], axis=1)
        order = np.argsort(-merged_scores, axis=1)[:, :k]
        best_scores, best_rows = np.take_along_axis(merged_scores, order, 1), np.take_along_axis(merged_rows, order, 1)
    return best_rows


def real_embeddings(path: str, max_length: int, cache_dir: Path) -> np.ndarray:
    """Unit MiniLM embeddings of every paper in `path` (cached as .npy so reruns skip the encoding)."""
    import pandas as pd
    from _common import minilm_dir

    from semcse.core.data.schema import paper_text
    from semcse.models.encoder import TextEncoder

    cache = cache_dir / f"{Path(path).stem}-minilm-{max_length}.npy"
    if cache.is_file():
        return np.load(cache)
    texts = paper_text(pd.read_parquet(path)).tolist()
    vectors = TextEncoder.load(minilm_dir()).encode(texts, batch_size=128, show_progress=True, max_length=max_length)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    np.save(cache, vectors)
    return vectors


def timed(fn, repeats: int = 1):
    """The value and the best wall time of `repeats` calls (later calls are warm: threads started, caches hot)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return value, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--real", help="a corpus (parquet) whose MiniLM embeddings replace the random vectors")
    parser.add_argument("--max-length", type=int, default=64, help="tokens embedded per paper with --real")
    args = parser.parse_args()
    if args.real:
        embedded = real_embeddings(args.real, args.max_length, Path(tempfile.gettempdir()))
        order = np.random.default_rng(0).permutation(len(embedded))
        queries, pool = embedded[order[: args.queries]], embedded[order[args.queries :]]
        sizes = [len(pool)]
        print(f"{args.real}: {len(embedded):,} MiniLM embeddings ({args.max_length} tokens); queries left out")
    else:
        queries, pool, sizes = random_unit(args.queries, seed=1), None, args.sizes
    print(f"{'n':>9} {'method':<12} {'build s':>8} {'query s':>8} {'query ×numpy':>13} {'recall@10':>9}")
    for n in sizes:
        stored = pool if pool is not None else random_unit(n, seed=0)
        truth, numpy_s = timed(partial(numpy_topk, queries, stored, K), repeats=3)
        print(f"{n:>9} {'numpy':<12} {0:>8.2f} {numpy_s:>8.3f} {1:>13.2f} {1:>9.3f}")
        for name, threshold in (("faiss-flat", n + 1), ("faiss-ivf", 1)):
            index, build_s = timed(partial(VectorIndex.build, stored, "cosine", ivf_threshold=threshold))
            (_, rows), query_s = timed(partial(index.search, queries, K), repeats=3)
            recall = np.mean([len(set(a) & set(b)) / K for a, b in zip(rows, truth)])
            print(f"{n:>9} {name:<12} {build_s:>8.2f} {query_s:>8.3f} {numpy_s / query_s:>13.2f} {recall:>9.3f}")


if __name__ == "__main__":
    main()
