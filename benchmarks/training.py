"""Throughput of our trainer vs. sentence-transformers' own trainer (MultipleNegativesRankingLoss).

Same base model (all-MiniLM-L6-v2), same pairs (`--pairs`: crops, title or a mix) in the same batch order,
batch size, sequence length and step count, run back to back on this machine. Our run keeps the trainer's
defaults: validation on `--val-size` abstracts every `--eval-every` steps, with ohsumed's labels as the
corpus's label column (the label guard) unless `--no-labels`, its forwards under bf16 autocast where the CPU
has native bf16 (`training.cpu_bf16`), and title pairs training the upper half of the encoder
(`data.modes.UPPER_HALF`; `--set training.freeze_layers=0` trains every layer). sentence-transformers runs in
its default fp32 and, with `--st-bf16`, also under its Trainer's own bf16 autocast. This shared host drifts by
up to a third between runs minutes apart, so `--rounds N` repeats ST-then-ours N times and reports each round's
ratio and their median. Prints samples/s end to end (including Ray worker start-up, DeepSpeed initialisation,
every validation and checkpoint and the export) and in steady state (the training steps alone), their ratios,
and where our run's fixed cost goes; raw figures go to benchmarks/results/training-<pairs>-<commit>.json. Not a
test: never run in CI.

    .venv/bin/python benchmarks/training.py --pairs crops --steps 150 --abstracts 2800
    .venv/bin/python benchmarks/training.py --pairs title --steps 150 --abstracts 2800 --st-bf16
    .venv/bin/python benchmarks/training.py --pairs title --steps 150 --st-bf16 --no-st-fp32 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import add_set_option, crops_config, minilm_dir, ohsumed_split, save_results, st_fit

from semcse.core.config import RunConfig
from semcse.core.data.io import write_parquet
from semcse.stages.training.trainer import PreparedData, prepare

PHASES = ("setup_s", "eval_s", "checkpoint_s")


def ours(cfg: RunConfig, prepared: PreparedData, args: argparse.Namespace) -> tuple[float, float, dict[str, float]]:
    """Samples/s end to end and in steady state, and the seconds each phase of the run took."""
    from mlflow.tracking import MlflowClient

    from semcse.stages.training.trainer import train

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


def one_round(work: Path, corpus: Path, args: argparse.Namespace) -> dict[str, Any]:
    """sentence-transformers (fp32, then bf16 where asked) and then our trainer, back to back in `work`: one round's
    pairs/s (end to end, steady state) per trainer and where our wall time went."""
    extra = {
        "training.pairs": args.pairs,
        "training.val_size": args.val_size,
        "training.eval_every": args.eval_every,
    } | dict(args.overrides)
    if not args.no_labels:
        extra["corpus.label_col"] = "label"
    cfg = crops_config(work, corpus, args.steps, args.batch, args.seq, args.workers, **extra)
    prepared = prepare(cfg)
    pairs = args.batch * args.steps
    pairs_per_s: dict[str, list[float]] = {}
    for name, bf16, wanted in (("st", False, args.st_fp32), ("st_bf16", True, args.st_bf16)):
        if wanted:
            run = st_fit(minilm_dir(), prepared.train_rows, work / name, prepared.training, bf16=bf16)
            pairs_per_s[name] = [pairs / run.wall_s, run.samples_per_s]
    total, steady, phases = ours(cfg, prepared, args)
    pairs_per_s["ours"] = [total, steady]
    return {"pairs_per_s": pairs_per_s, "phases_s": phases}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--abstracts", type=int, default=2800, help="ohsumed train abstracts to draw pairs from")
    parser.add_argument("--pairs", default="crops", help="training.pairs for both trainers (crops, title, a mix)")
    parser.add_argument("--val-size", type=int, default=256, help="our validation abstracts (the trainer's default)")
    parser.add_argument("--eval-every", type=int, default=50, help="our validation interval (the trainer's default)")
    parser.add_argument("--no-labels", action="store_true", help="no label column: our run has no label guard")
    parser.add_argument(
        "--st-bf16",
        action="store_true",
        help="also time sentence-transformers with the Trainer's CPU bf16 autocast (bf16=True), the precision our "
        "trainer picks on a CPU with native bf16",
    )
    parser.add_argument(
        "--st-fp32",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time sentence-transformers in its default fp32 (--no-st-fp32 skips it, with --st-bf16)",
    )
    add_set_option(
        parser,
        "settings for our run only, as `semcse --set` reads them (e.g. training.freeze_layers=0): "
        "sentence-transformers is given the same pairs, learning rate and warm-up, and trains every layer",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="rounds of ST then ours, back to back: a shared host drifts by a third between runs, so each round's "
        "ratio compares runs minutes apart and the median ratio is reported",
    )
    args = parser.parse_args()
    if not (args.st_fp32 or args.st_bf16):
        parser.error("--no-st-fp32 leaves nothing to compare with: add --st-bf16")
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        columns = ["id", "title", "abstract"] + ([] if args.no_labels else ["label"])
        corpus = write_parquet(ohsumed_split("train", args.abstracts)[columns], Path(tmp) / "c.parquet")
        for number in range(args.rounds):
            rounds.append(one_round(Path(tmp) / f"round-{number}", corpus, args))
    print(f"\nall-MiniLM-L6-v2, {args.pairs}, batch {args.batch}, seq {args.seq}, {args.steps} steps, ", end="")
    print(f"{args.rounds} round(s), medians")
    names = {"st": "sentence-transformers", "st_bf16": "sentence-transformers bf16", "ours": "semcse (Ray+DeepSpeed)"}
    print(f"{'':28}{'end to end':>14}{'steady state':>16}")
    for name, label in names.items():
        if name in rounds[0]["pairs_per_s"]:
            total, steady = (statistics.median(r["pairs_per_s"][name][i] for r in rounds) for i in (0, 1))
            print(f"{label:28}{total:>10.1f} p/s{steady:>12.1f} p/s")
    for name in ("st", "st_bf16"):
        if name in rounds[0]["pairs_per_s"]:
            # wall time ours / ST's within each round: ST's pairs/s over ours
            walls = [r["pairs_per_s"][name][0] / r["pairs_per_s"]["ours"][0] for r in rounds]
            steadies = [r["pairs_per_s"][name][1] / r["pairs_per_s"]["ours"][1] for r in rounds]
            print(
                f"wall time ours / {names[name]}: {statistics.median(walls):.2f}× "
                f"(rounds {' '.join(f'{w:.2f}' for w in walls)}), steady steps {statistics.median(steadies):.2f}×"
            )
    phases = {key: statistics.median(r["phases_s"][key] for r in rounds) for key in rounds[0]["phases_s"]}
    print("\nwhere our wall time went (s):", ", ".join(f"{k.removesuffix('_s')} {v:.1f}" for k, v in phases.items()))
    print("setup = model load + DeepSpeed init; eval = validation ranks (base model + each eval);")
    print("ray_and_export = worker-group start, dataset split, best-model export, MLflow logging and registration")
    save_results(f"training-{args.pairs.replace(':', '').replace('+', '-')}", {"args": vars(args), "rounds": rounds})


if __name__ == "__main__":
    main()
