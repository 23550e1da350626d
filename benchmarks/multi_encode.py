"""Encoding N abstracts for every aspect: the unified model (one backbone pass) vs. one aspect encoder per aspect.

Both sides are built locally from all-MiniLM-L6-v2 with 150-d heads (weights are random: speed does not
depend on them). The aspect encoders are what a deployment would run without distillation, one full
forward pass per aspect; the unified model runs the backbone once and applies a linear head per aspect.

    python benchmarks/multi_encode.py --n 512 --aspects 4
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from _common import minilm_dir, ohsumed_split

from semcse.models.encoder import TextEncoder
from semcse.models.unified import UnifiedEncoder


def timed(fn, repeats: int) -> float:
    """Best wall time of `repeats` runs (the least disturbed by other load)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=256, help="abstracts")
    parser.add_argument("--aspects", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    frame = ohsumed_split("test", args.n)
    texts = (frame["title"].fillna("") + " " + frame["abstract"].fillna("")).tolist()
    names = [f"aspect{i}" for i in range(args.aspects)]
    unified = UnifiedEncoder.create(minilm_dir(), names, dim=150, max_length=args.max_length)
    separate = [TextEncoder.load(minilm_dir(), projection_dim=150, max_length=args.max_length) for _ in names]
    with torch.inference_mode():
        unified_s = timed(lambda: unified.encode(texts, batch_size=args.batch_size), args.repeats)
        separate_s = timed(lambda: [e.encode(texts, batch_size=args.batch_size) for e in separate], args.repeats)
    vectors = unified.encode(texts[:4])
    assert all(v.shape == (4, 150) and np.isfinite(v).all() for v in vectors.values())
    print(
        f"{len(texts)} abstracts × {args.aspects} aspects, MiniLM-L6 backbone, batch {args.batch_size}, "
        f"{torch.get_num_threads()} torch threads, best of {args.repeats}"
    )
    print(f"  unified model (1 backbone pass):      {unified_s:7.2f} s  {len(texts) / unified_s:8.1f} abstracts/s")
    rate = len(texts) / separate_s
    print(f"  {args.aspects} aspect encoders (1 pass each): {separate_s:7.2f} s  {rate:8.1f} abstracts/s")
    print(f"  speed-up: {separate_s / unified_s:.2f}x")


if __name__ == "__main__":
    main()
