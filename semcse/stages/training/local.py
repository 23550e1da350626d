"""The training loop in this process (`training.launcher: local`): one worker, no Ray, checkpoints in a directory.

For a machine without a Ray cluster (a GPU box whose image has torch and transformers only), and for tests of what
a step computes, which then cost seconds instead of a Ray Train start. The loop is the same (`loop.fit`); only its
`Session` differs: a gloo group of this process alone for DeepSpeed, and checkpoints kept in a directory, the best
and the latest, as Ray Train keeps them. A run started again with the same directory resumes from its latest
checkpoint. Runs in one process go one after another.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from semcse.stages.training.checkpoints import Outcome, best_of
from semcse.stages.training.loop import LoopSpec, fit

METRICS_FILE = "metrics.json"
# what DeepSpeed reads from a launcher before it joins a process group
_LAUNCHER_ENV = {"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1"}


class LocalSession:
    """Rank 0 of 1; every report is a checkpoint directory `checkpoint_<step>` beside its metrics, of which the best
    (by `checkpoints.CANDIDATE_SCORE`) and the latest are kept."""

    rank, world, local_world = 0, 1, 1

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    def kept(self) -> list[tuple[Path, dict[str, Any]]]:
        """The checkpoints kept so far with their metrics, in step order."""
        reported = [path for path in self.directory.glob("checkpoint_*") if (path / METRICS_FILE).is_file()]
        found = [(path, json.loads((path / METRICS_FILE).read_text())) for path in reported]
        return sorted(found, key=lambda item: item[1]["step"])

    @contextlib.contextmanager
    def resumed(self) -> Iterator[Path | None]:
        kept = self.kept()
        yield kept[-1][0] if kept else None

    def report(self, metrics: dict[str, Any], checkpoint: Path) -> None:
        target = self.directory / f"checkpoint_{int(metrics['step']):06d}"
        partial = target.with_name(f".{target.name}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(checkpoint, partial)
        (partial / METRICS_FILE).write_text(json.dumps(metrics))  # last: a directory without it was never reported
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
        kept = self.kept()
        best, _ = best_of(kept)
        for path, _ in kept[:-1]:
            if path != best:
                shutil.rmtree(path)

    def outcome(self) -> Outcome:
        kept = self.kept()
        best, metrics = best_of(kept)
        return Outcome(metrics, kept[-1][1], lambda: contextlib.nullcontext(best))


def run_local(spec: LoopSpec, rows: pd.DataFrame, directory: Path) -> Outcome:
    """`fit` in this process, checkpoints under `directory`; torch's threads restored after."""
    import torch

    session = LocalSession(directory)
    threads = torch.get_num_threads()
    _join_process_group_of_one()
    try:
        fit(spec, rows, session)
    finally:
        torch.set_num_threads(threads)
    return session.outcome()


def _join_process_group_of_one() -> None:
    """A gloo process group of this process alone, as a launcher would give DeepSpeed one; made once and kept for
    the process's later runs, because DeepSpeed keeps the groups it derives from it."""
    import torch.distributed as dist

    if dist.is_initialized():
        if dist.get_world_size() != 1:
            raise RuntimeError("a local training run needs a process of its own: it is in a process group of several")
        return
    os.environ.update(_LAUNCHER_ENV)
    store = dist.HashStore()  # type: ignore[attr-defined]  # torch exports it untyped, from its C extension
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
