"""Latency of the interactive map operations on CPU: placing a point and explaining a position.

    .venv/bin/python benchmarks/maps.py [--sizes 1000 10000] [--dim 150] [--repeats 5]

Synthetic clustered embeddings (the 150-d aspect size of SemCSE-Multi) stand in for a corpus; the
text encoder and the decoder are left out of the split on purpose (their cost depends on the chosen
models, not on the map) — a tiny decoder's decode time is printed separately for scale.
Target from the issue: about a second per operation for a 1k-point map.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np


def clustered(n: int, dim: int, clusters: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(clusters, dim))
    return (centres[rng.integers(clusters, size=n)] + 0.5 * rng.normal(size=(n, dim))).astype(np.float32)


def timed(fn, repeats: int) -> tuple[float, float]:
    """(median, max) seconds over `repeats` calls, after one warm-up call."""
    fn(0)
    times = []
    for i in range(1, repeats + 1):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), float(np.max(times))


def measure(n: int, dim: int, repeats: int) -> tuple[float, tuple[float, float], tuple[float, float]]:
    """Layout seconds, then (median, max) seconds of place and of explain on an n-point map."""
    from semcse.stages.maps import layout

    data = clustered(n + repeats + 1, dim, clusters=max(10, n // 100))
    corpus, queries = data[:n], data[n:]
    start = time.perf_counter()
    semantic_map = layout([f"p{i}" for i in range(n)], {"aspect": corpus})
    built = time.perf_counter() - start
    place = timed(lambda i: semantic_map.place({"aspect": queries[i]}), repeats)
    low, high = semantic_map.coords.min(0), semantic_map.coords.max(0)
    points = np.random.default_rng(1).uniform(low, high, size=(repeats + 1, 2))
    explain = timed(lambda i: semantic_map.explain(points[i]), repeats)
    return built, place, explain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--dim", type=int, default=150)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-decoder", action="store_true")
    args = parser.parse_args()

    print(f"{'points':>7} {'layout s':>9} {'place med/max s':>16} {'explain med/max s':>18}")
    for n in args.sizes:
        built, place, explain = measure(n, args.dim, args.repeats)
        print(f"{n:>7} {built:>9.1f} {place[0]:>8.3f}/{place[1]:<7.3f} {explain[0]:>9.3f}/{explain[1]:<8.3f}")

    if not args.skip_decoder:
        from semcse.models.decoder import EmbeddingDecoder
        from semcse.testing import build_tiny_causal_lm

        with tempfile.TemporaryDirectory() as tmp:
            decoder = EmbeddingDecoder.create(build_tiny_causal_lm(tmp), args.dim)
            vector = clustered(1, args.dim, clusters=1)
            decode = timed(lambda i: decoder.decode(vector, max_new_tokens=32, seed=i), args.repeats)
        print(f"tiny decoder, 32 new tokens: {decode[0]:.3f} s median (a real LLM dominates this step)")


if __name__ == "__main__":
    main()
