"""Checkpoint layout and the loop state that survives a worker failure.

A checkpoint directory holds:

- `deepspeed/`: DeepSpeed's own checkpoint (model states from rank 0, one optimizer shard per
  rank under ZeRO); each worker writes its shards locally and Ray Train merges every worker's
  files into one persisted checkpoint;
- `model/`: the encoder at that step as a sentence-transformers directory (rank 0), so the best
  checkpoint *is* the deliverable and needs no conversion from ZeRO shards; with
  `training.average_with_base` it holds the step's weights averaged with the base model's
  (`averaging`), while `deepspeed/` keeps the trained ones that a resumed run continues from;
- `loop_state.json`: step, best score and patience counter, so early stopping resumes exactly, and the base
  model's validation figures that later steps are compared with.
"""

from __future__ import annotations

import base64
import io
import json
import math
import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from semcse.stages.training.averaging import BaseAverage
from semcse.stages.training.validation import (
    GUARDED_CHECKS,
    base_drift,
    paired_change,
    significantly_better,
    significantly_worse,
)

DEEPSPEED_DIR, MODEL_DIR, STATE_FILE, TAG = "deepspeed", "model", "loop_state.json", "state"
STATE_FORMAT = 1  # the layout of loop_state.json: a checkpoint of another is refused, never read by guesswork
CANDIDATE_SCORE = "candidate_score"
# The candidate score of a checkpoint that did not improve: ranked last. Finite, because Ray Train's run
# snapshot (what a resubmitted job restores its checkpoints from) writes infinity as null.
NOT_A_CANDIDATE = sys.float_info.max
T = TypeVar("T")


@dataclass
class LoopState:
    """Where the loop is: steps done, the base model's and the best validation score, evaluations since the best.

    The base model's evaluation (step 0) is the first record, so the best so far starts as the
    base: a trained step counts as an improvement only when it scores strictly better than the
    best, and, with `significant`, when its per-abstract scores also beat the base model's on the
    same abstracts with a paired bootstrap interval that excludes zero. It never counts when it is
    significantly worse than the base model on a guarded check (`GUARDED_CHECKS`: crop↔crop and
    title→abstract ranks, where validation runs them) or, with labels, when its label agreement is
    not shown non-inferior to the base model's within `label_margin`; `refused` names the reason, and
    `scored_better` says whether the score alone would have made the step the best (so the log can tell a
    step the guards stopped from one that was never better).
    """

    step: int = 0
    base_score: float = math.inf
    best_score: float = math.inf
    best_step: int = 0
    evals_without_improvement: int = 0
    base_items: list[float] | None = None
    base_label_items: list[float] | None = None
    base_checks: dict[str, list[float]] | None = None
    refused: str = ""
    scored_better: bool = False
    cpu_bf16: bool | None = None  # the precision of the run's CPU forwards (`precision.run_precision`), kept on resume
    base_vectors: str | None = None  # the base model's embeddings of the validation abstracts (`packed`)

    def drift(self, vectors: np.ndarray | None) -> dict[str, float]:
        """`val_base_drift` of this evaluation's validation abstracts (the base model's own at step 0, kept for the
        later ones); nothing where validation has no abstracts to compare or a resumed run's validation set no longer
        matches them. It decides nothing, so it never stops a run."""
        if vectors is None:
            return {}
        if self.step == 0:
            self.base_vectors = packed(vectors)
        base = unpacked(self.base_vectors) if self.base_vectors is not None else None
        if base is None or base.shape != np.shape(vectors):  # another validation set since: nothing to compare
            return {}
        return {"val_base_drift": base_drift(vectors, base)}

    def record(
        self,
        score: float,
        items: np.ndarray | None = None,
        significant: bool = False,
        label_items: np.ndarray | None = None,
        checks: dict[str, np.ndarray] | None = None,
        label_margin: float = 0.02,
    ) -> bool:
        """Count one evaluation; True when it improved on the best score (the base model's, at step 0)."""
        if self.step == 0:
            self.base_score = score
            self.base_items = _floats(items)
            self.base_label_items = _floats(label_items)
            self.base_checks = {name: _floats(ranks) or [] for name, ranks in (checks or {}).items()}
        better = score < self.best_score
        if better and self.step > 0 and significant and items is not None and self.base_items is not None:
            better = significantly_better(items, np.asarray(self.base_items))
        self.refused = self._refusal(label_items, checks, label_margin) if self.step > 0 else ""
        self.scored_better = better and self.step > 0
        better = better and not self.refused
        if better:
            self.best_score, self.best_step, self.evals_without_improvement = score, self.step, 0
            return True
        self.evals_without_improvement += 1
        return False

    def _refusal(
        self, label_items: np.ndarray | None, checks: dict[str, np.ndarray] | None, label_margin: float
    ) -> str:
        """Why this step may not be delivered whatever its score ("" when nothing speaks against it)."""
        worse = [
            name
            for name in GUARDED_CHECKS
            if checks is not None
            and name in checks
            and self.base_checks
            and name in self.base_checks
            and significantly_worse(checks[name], np.asarray(self.base_checks[name]))
        ]
        if worse:
            return f"significantly worse than the base model on {' and '.join(f'{n} ranks' for n in worse)}"
        if label_items is not None and self.base_label_items is not None:
            change = paired_change(label_items, np.asarray(self.base_label_items))
            low, high = change.interval()
            if low <= -label_margin:
                # a point estimate inside the margin fails on the interval's width alone: more abstracts narrow it
                why = (
                    "; more validation abstracts narrow it (training.val_size, corpus.val_fraction)"
                    if change.value > -label_margin
                    else ""
                )
                return (
                    f"label agreement {change.value:+.3f} [{low:+.3f}, {high:+.3f}] against the base model's, "
                    f"not shown within {label_margin:g}{why}"
                )
        return ""


def packed(vectors: np.ndarray) -> str:
    """A float32 matrix as JSON-ready text (the `.npy` bytes in base64): a few hundred validation embeddings would be
    megabytes as a list of floats, in every checkpoint."""
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(vectors, dtype=np.float32), allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def unpacked(text: str) -> np.ndarray:
    """The matrix `packed` wrote."""
    return np.load(io.BytesIO(base64.b64decode(text)), allow_pickle=False)


def _floats(values: np.ndarray | None) -> list[float] | None:
    """Per-abstract scores as JSON-ready floats (the state is saved in every checkpoint)."""
    return None if values is None else [float(x) for x in values]


def save(
    engine: Any,
    state: LoopState,
    directory: Path,
    rank: int,
    model_factory: Callable[[], Any],
    average: BaseAverage,
) -> Path:
    """Write this worker's part of a checkpoint into `directory` (a collective: every rank calls it).

    The DeepSpeed state holds the trained weights; the exported model is the candidate `average` makes of them.
    """
    engine.save_checkpoint(str(directory / DEEPSPEED_DIR), tag=TAG)
    if engine.bfloat16_enabled():
        _save_fp32_model(engine, directory / MODEL_DIR, rank, model_factory, average)
    else:
        with average.candidate(engine.module):
            _save_model(engine, directory / MODEL_DIR, rank)
    if rank == 0:
        (directory / STATE_FILE).write_text(json.dumps({"format": STATE_FORMAT} | asdict(state)))
    return directory


def _save_model(engine: Any, out: Path, rank: int) -> None:
    """fp32 training: the module's weights are the master weights (gathered first under ZeRO-3)."""
    import deepspeed

    params = list(engine.module.parameters())
    gathered = (
        deepspeed.zero.GatheredParameters(params, modifier_rank=None)
        if engine.zero_optimization_stage() == 3
        else nullcontext()
    )
    with gathered:
        if rank == 0:
            engine.module.save(out)


def _save_fp32_model(
    engine: Any, out: Path, rank: int, model_factory: Callable[[], Any], average: BaseAverage
) -> None:
    """bf16 training: export the optimizer's fp32 master weights, not the rounded bf16 training copy.

    Every rank takes part in assembling each full fp32 parameter (a collective under ZeRO); rank 0
    writes them into a freshly built fp32 model (frozen parameters, which have no master copy, keep
    the base model's exact fp32 values there) and saves that, averaged with the base by `average`.
    """
    import torch
    from deepspeed.utils import safe_get_full_fp32_param

    masters = {name: safe_get_full_fp32_param(p) for name, p in engine.module.named_parameters()}
    missing = [name for name, p in engine.module.named_parameters() if p.requires_grad and masters[name] is None]
    if missing:  # exporting the base model's values for them would deliver an untrained model as trained
        raise RuntimeError(f"no fp32 master weights for {len(missing)} trained parameters (e.g. {missing[0]})")
    if rank != 0:
        return
    with torch.random.fork_rng(devices=[]):
        model = model_factory()
    target = dict(model.named_parameters())
    with torch.no_grad():
        for name, value in masters.items():
            if value is not None:
                trained = value.detach().reshape(target[name].shape).float().cpu()
                target[name].copy_(average.mixed(name, trained))
    model.save(out)


def persisted_models(run_dir: Path) -> dict[int, Path]:
    """The exported model of each checkpoint a run kept under a local run directory, by step (the best, the base
    model's step 0 in a run that delivered nothing, and the latest)."""
    found = {}
    for state in run_dir.rglob(STATE_FILE):
        if (state.parent / MODEL_DIR).is_dir():
            found[json.loads(state.read_text())["step"]] = state.parent / MODEL_DIR
    return dict(sorted(found.items()))


def restore(engine: Any, directory: Path) -> LoopState:
    """Load DeepSpeed states (weights, optimizer shard, scheduler) and the loop state."""
    engine.load_checkpoint(str(directory / DEEPSPEED_DIR), tag=TAG)
    stored = json.loads((directory / STATE_FILE).read_text())
    if stored.pop("format", None) != STATE_FORMAT:
        raise RuntimeError(
            f"{directory / STATE_FILE} is not a loop state this version of semcse reads (format {STATE_FORMAT}); "
            "the checkpoint was written by another version: train in another run_dir"
        )
    return LoopState(**stored)


def best_of(reported: Iterable[tuple[T, dict[str, Any]]]) -> tuple[T, dict[str, Any]]:
    """The reported checkpoint of the best step (the base model's when no step beat it) and its metrics.

    Checkpoints are ranked by `CANDIDATE_SCORE`, which is the validation score only for an evaluation that strictly
    improved on every earlier one (the base model's included), so the earliest of equal scores wins.
    """
    candidates = [(checkpoint, metrics) for checkpoint, metrics in reported if CANDIDATE_SCORE in metrics]
    if not candidates:
        raise RuntimeError("training finished without a validated checkpoint; is max_steps >= 1?")
    return min(candidates, key=lambda item: (item[1][CANDIDATE_SCORE], item[1]["step"]))


@dataclass(frozen=True)
class Outcome:
    """How a run ended, whatever launched it: the best step's and the last evaluation's metrics, and the best
    checkpoint's directory (opened for as long as the block that reads it runs)."""

    best: dict[str, Any]
    last: dict[str, Any]
    best_checkpoint: Callable[[], AbstractContextManager[Path]]


def beats_base(best: dict[str, Any]) -> bool:
    """Whether the best checkpoint is a trained step: step 0 is the base model, candidate zero."""
    return best["step"] > 0
