"""Checkpoint layout and the loop state that survives a worker failure.

A checkpoint directory holds:

- `deepspeed/`: DeepSpeed's own checkpoint (model states from rank 0, one optimizer shard per
  rank under ZeRO); each worker writes its shards locally and Ray Train merges every worker's
  files into one persisted checkpoint;
- `model/`: the encoder at that step as a sentence-transformers directory (rank 0), so the best
  checkpoint *is* the deliverable and needs no conversion from ZeRO shards;
- `loop_state.json`: step, best score and patience counter, so early stopping resumes exactly.
"""

from __future__ import annotations

import json
import math
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

DEEPSPEED_DIR, MODEL_DIR, STATE_FILE, TAG = "deepspeed", "model", "loop_state.json", "state"


@dataclass
class LoopState:
    """Where the loop is: steps done, the best validation score so far and evaluations since it."""

    step: int = 0
    best_score: float = math.inf
    best_step: int = 0
    evals_without_improvement: int = 0

    def record(self, score: float) -> bool:
        """Count one evaluation; True when it improved on the best score."""
        if score < self.best_score:
            self.best_score, self.best_step, self.evals_without_improvement = score, self.step, 0
            return True
        self.evals_without_improvement += 1
        return False


def save(engine: Any, state: LoopState, directory: Path, rank: int, zero_stage: int) -> Path:
    """Write this worker's part of a checkpoint into `directory` (a collective: every rank calls it)."""
    import deepspeed

    engine.save_checkpoint(str(directory / DEEPSPEED_DIR), tag=TAG)
    params = list(engine.module.parameters())
    gathered = deepspeed.zero.GatheredParameters(params, modifier_rank=None) if zero_stage == 3 else nullcontext()
    with gathered:
        if rank == 0:
            engine.module.save(directory / MODEL_DIR)
            (directory / STATE_FILE).write_text(json.dumps(asdict(state)))
    return directory


def restore(engine: Any, directory: Path) -> LoopState:
    """Load DeepSpeed states (weights, optimizer shard, scheduler) and the loop state."""
    engine.load_checkpoint(str(directory / DEEPSPEED_DIR), tag=TAG)
    return LoopState(**json.loads((directory / STATE_FILE).read_text()))


def best_model(result: Any) -> tuple[Any, dict[str, Any]]:
    """The kept checkpoint with the lowest `val_score` (ties: the earliest step) and its metrics."""
    candidates = [(ckpt, metrics) for ckpt, metrics in (result.best_checkpoints or []) if "val_score" in metrics]
    if not candidates:
        raise RuntimeError("training finished without a validated checkpoint; is max_steps >= 1?")
    return min(candidates, key=lambda item: (item[1]["val_score"], item[1]["step"]))
