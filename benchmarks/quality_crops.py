"""Does crop fine-tuning help? all-MiniLM-L6-v2 before and after `crops` training on ohsumed.

Fine-tunes on the ohsumed train split with our trainer (crops, InfoNCE, τ = 0.05), then reports
kNN accuracy (k = 10, cosine, majority vote over train-split neighbours) on the test split for the
base and the fine-tuned model. Skips with a message when ../shared/data/ohsumed.parquet is absent.

    .venv/bin/python benchmarks/quality_crops.py --steps 60
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from _common import crops_config, minilm_dir, ohsumed_split
from semcse.data.io import write_parquet
from semcse.evaluation.metrics import similarity_matrix
from semcse.models.encoder import TextEncoder


def knn_accuracy(reference: np.ndarray, labels: np.ndarray, queries: np.ndarray, truth: np.ndarray, k: int) -> float:
    scores = similarity_matrix(queries, reference, "cosine")
    neighbours = np.argsort(-scores, axis=1)[:, :k]
    predicted = [np.bincount(row).argmax() for row in labels[neighbours]]
    return float(np.mean(np.asarray(predicted) == truth))


def accuracy(model_dir: Path, train, test, k: int) -> float:
    encoder = TextEncoder.load(model_dir)
    codes = {label: i for i, label in enumerate(sorted(set(train["label"]) | set(test["label"])))}
    text = lambda frame: (frame["title"] + " " + frame["abstract"]).tolist()  # noqa: E731
    return knn_accuracy(
        encoder.encode(text(train), batch_size=64),
        train["label"].map(codes).to_numpy(),
        encoder.encode(text(test), batch_size=64),
        test["label"].map(codes).to_numpy(),
        k,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--test", type=int, default=1000, help="test abstracts to classify (0 = all)")
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    train_split = ohsumed_split("train")
    test_split = ohsumed_split("test", args.test or None)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        corpus = write_parquet(train_split[["id", "title", "abstract"]], work / "train.parquet")
        from semcse.training.trainer import train

        result = train(crops_config(work, corpus, args.steps, args.batch, args.seq, args.workers))
        base = accuracy(minilm_dir(), train_split, test_split, args.k)
        tuned = accuracy(result.model_dir, train_split, test_split, args.k)
    print(f"\nohsumed kNN accuracy (k={args.k}, cosine; {len(train_split)} train neighbours, {len(test_split)} test)")
    print(f"all-MiniLM-L6-v2 base:            {base:.4f}")
    print(f"+ crops fine-tuning ({args.steps} steps): {tuned:.4f}  ({tuned - base:+.4f})")


if __name__ == "__main__":
    main()
