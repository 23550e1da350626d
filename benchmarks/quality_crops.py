"""Does crop fine-tuning help? all-MiniLM-L6-v2 before and after `crops` training on ohsumed.

Fine-tunes on the ohsumed train split with our trainer (crops, InfoNCE, τ = 0.05), then reports
kNN accuracy (k = 10, cosine, majority vote over train-split neighbours) on the test split for the
base and the fine-tuned model, through the platform's own `knn` suite (so the figure is the one
`semcse evaluate --suite knn` reports). Skips with a message when ../shared/data/ohsumed.parquet is absent.

    .venv/bin/python benchmarks/quality_crops.py --steps 60
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import pandas as pd
from _common import crops_config, minilm_dir, ohsumed_split
from semcse.data.io import write_parquet
from semcse.evaluation import knn
from semcse.evaluation.embed import ModelRef


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--test", type=int, default=1000, help="test abstracts to classify (0 = all)")
    args = parser.parse_args()
    train_split = ohsumed_split("train")
    labelled = pd.concat([train_split, ohsumed_split("test", args.test or None)], ignore_index=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        corpus = write_parquet(train_split[["id", "title", "abstract"]], work / "train.parquet")
        cfg = crops_config(work, corpus, args.steps, args.batch, args.seq, args.workers)
        from semcse.training.trainer import train

        result = train(cfg)
        models = [ModelRef("all-MiniLM-L6-v2", str(minilm_dir())), ModelRef("+ crops", str(result.model_dir))]
        suite = knn.run(models, write_parquet(labelled, work / "labelled.parquet"), cfg, work / "eval")
    accuracy = suite.table["knn_accuracy"]
    print(f"\nohsumed kNN accuracy (k={cfg.evaluation.accuracy_k}, cosine)", *suite.notes, sep="\n")
    print(suite.table.round(4).to_string())
    print(f"crops fine-tuning ({args.steps} steps): {accuracy.iloc[1] - accuracy.iloc[0]:+.4f} kNN accuracy")


if __name__ == "__main__":
    main()
