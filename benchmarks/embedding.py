"""Batch embedding against sentence-transformers' in-process `encode` with every core, on the same texts.

    .venv/bin/python benchmarks/embedding.py [--papers 3000] [--seq 256] [--batch 64] [--pools auto 1]

The texts are what the index step embeds (title and abstract, `paper_text`) of the first `--papers` abstracts of
the invasion-biology corpus, embedded by all-MiniLM-L6-v2 at `--seq` tokens. sentence-transformers runs in this
process with torch using every core (`encode`, its own length sort, `--batch`); ours is `embedding.embed_sets`,
the path of evaluation, the index, the map and updates, on a fresh local Ray cluster, once per `--pools` entry
(`auto`: `evaluation.actors` unset, an actor per CPU; a number: that many actors), each into a fresh folder.
Our time is the whole call (actor starts and model loads included); Ray's own start is reported beside it. Both
sides' vectors are compared (the lowest cosine between them). Raw figures go to
`benchmarks/results/embedding-<commit>.json`. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import minilm_dir, save_results
from _heldout import INVASION


def texts_of(papers: int) -> pd.DataFrame:
    from semcse.core.data.schema import paper_text

    frame = pd.read_parquet(INVASION).head(papers).reset_index(drop=True)
    return pd.DataFrame({"id": [f"p{i}" for i in range(len(frame))], "text": paper_text(frame).to_numpy()})


def sentence_transformers(texts: list[str], seq: int, batch: int) -> tuple[float, np.ndarray]:
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(os.cpu_count() or 1)
    model = SentenceTransformer(str(minilm_dir()), device="cpu")
    model.max_seq_length = seq
    model.encode(texts[:batch], batch_size=batch)  # warm-up: first-call allocations
    start = time.perf_counter()
    vectors = model.encode(texts, batch_size=batch, convert_to_numpy=True)
    return time.perf_counter() - start, vectors


def ours(texts: pd.DataFrame, seq: int, batch: int, actors: int | None, work: Path) -> tuple[float, np.ndarray]:
    from semcse.core.config import EvaluationConfig
    from semcse.stages.embedding import ModelRef, embed_sets

    cfg = EvaluationConfig(max_length=seq, batch_size=batch, actors=actors)
    start = time.perf_counter()
    [embedded] = embed_sets([ModelRef("minilm", str(minilm_dir()))], {"papers": texts}, work, cfg)
    seconds = time.perf_counter() - start
    return seconds, embedded.vectors("papers", texts["id"].tolist())[""]


def lowest_cosine(a: np.ndarray, b: np.ndarray) -> float:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return float((a * b).sum(axis=1).min())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=3000)
    parser.add_argument("--seq", type=int, default=256, help="tokens per text (evaluation.max_length's default)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--pools", nargs="+", default=["auto", "1"], help="`auto` or a number of actors, each run")
    args = parser.parse_args()
    if not INVASION.is_file():
        print(f"skipped: {INVASION} not found (set SEMCSE_DATA to the real corpora: docs/DATA.md)")
        return
    texts = texts_of(args.papers)
    st_seconds, st_vectors = sentence_transformers(texts["text"].tolist(), args.seq, args.batch)
    rows = [{"runner": "sentence-transformers encode", "seconds": st_seconds, "threads": os.cpu_count()}]

    import ray

    from semcse.core.runtime import init_ray

    start = time.perf_counter()
    init_ray()
    ray_start = time.perf_counter() - start
    resources = ray.cluster_resources()
    for pool in args.pools:
        actors = None if pool == "auto" else int(pool)
        with tempfile.TemporaryDirectory() as work:
            seconds, vectors = ours(texts, args.seq, args.batch, actors, Path(work))
        cosine = lowest_cosine(vectors, st_vectors)
        rows.append({"runner": f"embed_sets, actors {pool}", "seconds": seconds, "lowest_cosine": cosine})
    for row in rows:
        row["vec_per_s"] = len(texts) / row["seconds"]
        row["ratio_to_st"] = row["vec_per_s"] / rows[0]["vec_per_s"]
    print(f"{len(texts)} texts at {args.seq} tokens, batch {args.batch}; Ray started in {ray_start:.1f} s")
    print("| runner | seconds | vec/s | × sentence-transformers | lowest cosine to ST |")
    print("|---|---:|---:|---:|---:|")
    for row in rows:
        cosine = f"{row['lowest_cosine']:.5f}" if "lowest_cosine" in row else ""
        figures = f"{row['seconds']:.1f} | {row['vec_per_s']:.1f} | {row['ratio_to_st']:.2f}"
        print(f"| {row['runner']} | {figures} | {cosine} |")
    save_results("embedding", {"args": vars(args), "ray_start_s": ray_start, "cluster": resources, "results": rows})


if __name__ == "__main__":
    main()
