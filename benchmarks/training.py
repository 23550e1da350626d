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

from _common import crops_config, minilm_dir, ohsumed_split, st_fit

from semcse.config import RunConfig
from semcse.data.io import write_parquet
from semcse.training.trainer import PreparedData, prepare

PHASES = ("setup_s", "eval_s", "checkpoint_s")


def ours(cfg: RunConfig, prepared: PreparedData, args: argparse.Namespace) -> tuple[float, float, dict[str, float]]:
    """Samples/s end to end and in steady state, and the seconds each phase of the run took."""
    from mlflow.tracking import MlflowClient

    from semcse.training.trainer import train

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
        cfg = crops_config(work, corpus, args.steps, args.batch, args.seq, args.workers)
        prepared = prepare(cfg)
        st = st_fit(minilm_dir(), prepared.train_rows, work / "st", prepared.training)
        st_total, st_steady = args.batch * args.steps / st.wall_s, st.samples_per_s
        our_total, our_steady, phases = ours(cfg, prepared, args)
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
