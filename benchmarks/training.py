"""Throughput of our trainer vs. sentence-transformers' own trainer (MultipleNegativesRankingLoss).

Same base model (all-MiniLM-L6-v2), same crop pairs, batch size, sequence length and step count,
run back to back on this machine. Prints samples/s end to end (including Ray worker start-up,
DeepSpeed initialisation, the final evaluation and checkpoint) and in steady state (the training
steps alone), their ratios, and where our run's fixed cost goes. Not a test: never run in CI.

    .venv/bin/python benchmarks/training.py --steps 20 --batch 32 --seq 128
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import crops_config, minilm_dir, ohsumed_split
from semcse.data.io import write_parquet
from semcse.data.positives import PairSampler, build_pair_rows

PHASES = ("setup_s", "eval_s", "checkpoint_s")


def ours(work: Path, corpus: Path, args: argparse.Namespace) -> tuple[float, float, dict[str, float]]:
    """Samples/s end to end and in steady state, and the seconds each phase of the run took."""
    from mlflow.tracking import MlflowClient
    from semcse.training.trainer import prepare, train

    cfg = crops_config(work, corpus, args.steps, args.batch, args.seq, args.workers)
    prepared = prepare(cfg)
    start = time.perf_counter()
    result = train(cfg, prepared)
    wall = time.perf_counter() - start
    client = MlflowClient(tracking_uri=cfg.tracking.tracking_uri)
    history = {key: client.get_metric_history(result.run_id, key) for key in PHASES + ("samples_per_s",)}
    rates = [m.value for m in sorted(history["samples_per_s"], key=lambda m: m.step)]
    steady = statistics.median(rates[1:] or rates)
    phases = {key: sum(m.value for m in history[key]) for key in PHASES}
    phases["steps_s"] = args.batch * args.steps / statistics.harmonic_mean(rates)
    phases["ray_and_export_s"] = wall - sum(phases.values())
    return args.batch * args.steps / wall, steady, phases


def sentence_transformers(work: Path, corpus: Path, args: argparse.Namespace) -> tuple[float, float]:
    from datasets import Dataset
    from semcse.config import TrainingConfig
    from semcse.data.io import read_corpus
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    rows = build_pair_rows("crops", read_corpus(corpus), None, TrainingConfig(pairs="crops"))
    sampler, rng = PairSampler("crops"), np.random.default_rng(0)
    anchors, positives = [], []
    while len(anchors) < args.batch * args.steps:
        a, p = sampler.sample(rows.to_dict("list"), rng)
        anchors += a
        positives += p
    data = Dataset.from_dict({"anchor": anchors, "positive": positives})
    model = SentenceTransformer(str(minilm_dir()), device="cpu")
    model.max_seq_length = args.seq
    training_args = SentenceTransformerTrainingArguments(
        output_dir=str(work / "st"),
        per_device_train_batch_size=args.batch,
        max_steps=args.steps,
        learning_rate=2e-5,
        save_strategy="no",
        report_to="none",
        logging_steps=max(1, args.steps // 4),
        dataloader_drop_last=True,
        use_cpu=True,
    )
    loss = MultipleNegativesRankingLoss(model, scale=20.0)
    trainer = SentenceTransformerTrainer(model=model, args=training_args, train_dataset=data, loss=loss)
    start = time.perf_counter()
    output = trainer.train()
    wall = time.perf_counter() - start
    return args.batch * args.steps / wall, float(output.metrics["train_samples_per_second"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--abstracts", type=int, default=600, help="ohsumed train abstracts to draw crops from")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        corpus = write_parquet(ohsumed_split("train", args.abstracts)[["id", "title", "abstract"]], work / "c.parquet")
        st_total, st_steady = sentence_transformers(work, corpus, args)
        our_total, our_steady, phases = ours(work, corpus, args)
    print(f"\nall-MiniLM-L6-v2, crops, batch {args.batch}, seq {args.seq}, {args.steps} steps")
    print(f"{'':24}{'end to end':>14}{'steady state':>16}")
    print(f"{'sentence-transformers':24}{st_total:>10.1f} p/s{st_steady:>12.1f} p/s")
    print(f"{'semcse (Ray+DeepSpeed)':24}{our_total:>10.1f} p/s{our_steady:>12.1f} p/s")
    print(f"{'ratio (ours / ST)':24}{our_total / st_total:>13.2f}×{our_steady / st_steady:>15.2f}×")
    print("\nwhere our wall time went (s):", ", ".join(f"{k.removesuffix('_s')} {v:.1f}" for k, v in phases.items()))
    print("setup = model load + DeepSpeed init; eval = validation ranks (base model + each eval);")
    print("ray_and_export = worker-group start, dataset split, best-model export, MLflow logging and registration")


if __name__ == "__main__":
    main()
