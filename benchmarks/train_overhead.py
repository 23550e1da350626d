"""A short training run's fixed cost: Ray Train polling its workers every 2 s (its default) against every 0.5 s (ours).

Ray Train's controller takes each worker's `ray.train.report` at its polls, every
RAY_TRAIN_HEALTH_CHECK_INTERVAL_S, and a worker whose previous report is still untaken waits for the
next one; the controller also sees the workers start and finish only at a poll. `semcse.core.runtime`
sets the interval to 0.5 s. This times two short runs end to end, as `train()` runs them (Ray
Train's controller and worker start, every validation and checkpoint, the export and MLflow), at
both intervals: `demo`, `make demo`'s training (the demo config: the bundled all-MiniLM-L6-v2,
`auto` pairs on the 360-paper demo corpus, 2 workers), and `tiny`, the same on the test suite's
2-layer, 32-wide encoder, whose validations take a fraction of a second, as in the suite's training
tests. The intervals alternate within each round, since this shared host drifts between runs
minutes apart. Prints each run's wall time, the medians and their ratio; raw figures go to
benchmarks/results/train-overhead-<commit>.json. Not a test: never run in CI.

    .venv/bin/python benchmarks/train_overhead.py [--models demo tiny] [--steps 20] [--eval-every 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import minilm_dir, save_results

from semcse.core.config import load_config
from semcse.core.runtime import TRAIN_ENV, init_ray
from semcse.stages.training.trainer import prepare, train

INTERVAL = "RAY_TRAIN_HEALTH_CHECK_INTERVAL_S"
RAY_DEFAULT = "2.0"
DEMO_CORPUS = Path(__file__).resolve().parents[1] / "examples" / "demo_corpus.jsonl"


def tiny_encoder(work: Path) -> Path:
    """The test suite's tiny encoder (`semcse.testing`), its vocabulary learnt from the demo corpus."""
    import json

    from semcse.testing import build_tiny_encoder

    rows = [json.loads(line) for line in DEMO_CORPUS.read_text().splitlines() if line.strip()]
    return build_tiny_encoder(work / "tiny-encoder", [f"{r['title']} {r['abstract']}" for r in rows])


def timed_run(work: Path, model: Path, interval: str, args: argparse.Namespace) -> dict[str, Any]:
    """One run with Ray Train polling every `interval` seconds: its wall time (data preparation apart) and steps."""
    overrides = {
        "run_dir": work / "run",
        "corpus.path": DEMO_CORPUS,
        "training.base_model": model,
        "training.max_steps": args.steps,
        "training.eval_every": args.eval_every,
        "training.log_every": args.eval_every,
        "tracking.tracking_uri": f"sqlite:///{work / 'mlflow.db'}",
        "tracking.artifact_location": work / "mlruns",
    }
    cfg = load_config("demo", [f"{key}={value}" for key, value in overrides.items()])
    prepared = prepare(cfg)
    os.environ[INTERVAL] = interval  # read when `fit` starts the controller, which hands it to the workers
    start = time.perf_counter()
    result = train(cfg, prepared)
    return {"interval_s": float(interval), "wall_s": time.perf_counter() - start, "steps": result.metrics["step"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", choices=("demo", "tiny"), default=["demo", "tiny"])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--eval-every", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ours = TRAIN_ENV[INTERVAL]
    runs: list[dict[str, Any]] = []
    init_ray()  # the local cluster's start, once, before any timed run
    with tempfile.TemporaryDirectory() as tmp:
        bases = {"demo": minilm_dir(), "tiny": tiny_encoder(Path(tmp))}
        for round_ in range(args.rounds):
            order = (RAY_DEFAULT, ours) if round_ % 2 == 0 else (ours, RAY_DEFAULT)
            for model, interval in ((m, i) for m in args.models for i in order):
                work = Path(tmp) / f"{round_}-{model}-{interval}"
                run = timed_run(work, bases[model], interval, args) | {"round": round_, "model": model}
                print(f"round {round_ + 1}, {model}: poll every {interval} s: {run['wall_s']:.1f} s", flush=True)
                runs.append(run)
    medians: dict[str, dict[str, float]] = {}
    for model in args.models:
        median = medians[model] = {
            interval: statistics.median(
                r["wall_s"] for r in runs if r["model"] == model and r["interval_s"] == float(interval)
            )
            for interval in (RAY_DEFAULT, ours)
        }
        print(
            f"{model}, {args.steps} steps, a validation every {args.eval_every}: "
            f"median wall {median[RAY_DEFAULT]:.1f} s polling every {RAY_DEFAULT} s (Ray's default), "
            f"{median[ours]:.1f} s every {ours} s: "
            f"{median[ours] / median[RAY_DEFAULT]:.2f}× ({median[RAY_DEFAULT] - median[ours]:.1f} s less)"
        )
    save_results("train-overhead", {"args": vars(args), "runs": runs, "median_wall_s": medians})


if __name__ == "__main__":
    main()
