"""One training loop for every model this platform trains: steps, evaluations, checkpoints, early stopping.

`fit` is one worker's share of a run, and knows nothing of what launched it: the `Session` it is given says which
worker it is, hands it the checkpoint to resume from and takes its reports (`local.LocalSession` in this process,
`ray_train.RaySession` on Ray Train's workers). What a step computes is the `Objective`'s; what a candidate is
worth, the `validate` function's.

Every worker runs the same steps: each takes its slice of the same seeded global batches (`global_batches`), so
workers never fall out of step in the collectives and a step's global batch does not depend on how many workers
share it. The base model is evaluated and checkpointed first, as candidate zero: a trained step must beat it to be
delivered. With `training.average_with_base`, what each evaluation scores and checkpoints is the step's weights
averaged with the base model's (`averaging`), while training continues from the trained weights. Rank 0 evaluates
(every worker under ZeRO-3, whose forwards are collective) and broadcasts its verdict, so all workers stop
together; rank 0 reports progress through `logging` and to MLflow.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from semcse.core import logs
from semcse.core.config import TrackingConfig, TrainingConfig
from semcse.stages.training import attention, checkpoints, precision
from semcse.stages.training.averaging import BaseAverage
from semcse.stages.training.checkpoints import CANDIDATE_SCORE, NOT_A_CANDIDATE
from semcse.stages.training.objective import BASE, TEXTS, Objective
from semcse.stages.training.positives import DRAW
from semcse.stages.training.reference import BaseReference
from semcse.stages.training.validation import Validated, ValidationSet, validate

if TYPE_CHECKING:
    import torch

logger = logging.getLogger(__name__)


class Session(Protocol):
    """Where a worker runs: who it is, what it resumes from, where its reports go."""

    rank: int
    world: int
    local_world: int  # this run's workers on this worker's node, whose CPUs rank 0 borrows to evaluate

    def resumed(self) -> AbstractContextManager[Path | None]:
        """The directory of the checkpoint to resume from, or None for a fresh run."""
        ...

    def report(self, metrics: dict[str, Any], checkpoint: Path) -> None:
        """One evaluation: its metrics and this worker's part of its checkpoint (every worker calls it)."""
        ...


class StepCallback(Protocol):
    """Observes the loop after every optimisation step (e.g. a test that makes one worker fail once)."""

    def after_step(self, step: int, rank: int, world: int) -> None: ...


@dataclass(frozen=True)
class LoopSpec:
    """Everything a worker needs; pickled to each worker."""

    cfg: TrainingConfig
    objective: Objective
    model_factory: Callable[[], Any]
    validation: ValidationSet | Any
    tracking: TrackingConfig | None = None
    run_id: str | None = None
    validate: Callable[[Any, Any], Validated] = validate  # (model, validation) -> metrics with val_score
    callbacks: tuple[StepCallback, ...] = ()


class Meter:
    """Rank 0's loss (and the objective's named `terms`), pairs and tokens since the last log line, for the loss
    curve and throughput.

    Throughput is scaled by the world size (workers run in lockstep with equal batch sizes), which
    avoids an extra collective per step; tokens/s is therefore an estimate from rank 0's batches.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.losses: list[float] = []
        self.terms: dict[str, list[float]] = {}
        self.pairs = 0
        self.tokens = 0
        self.started = time.perf_counter()

    def add(self, loss: float, pairs: int, tokens: int, terms: dict[str, torch.Tensor]) -> None:
        self.losses.append(loss)
        for name, value in terms.items():
            self.terms.setdefault(name, []).append(value.item())
        self.pairs += pairs
        self.tokens += tokens

    def summary(self, world: int) -> dict[str, float]:
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        return (
            {"loss": float(np.mean(self.losses))}
            | {name: float(np.mean(values)) for name, values in self.terms.items()}
            | {"samples_per_s": self.pairs * world / elapsed, "tokens_per_s": self.tokens * world / elapsed}
        )


def global_batches(
    rows: pd.DataFrame, batch_size: int, rank: int, world: int, seed: int, start_step: int = 0
) -> Iterator[dict[str, np.ndarray]]:
    """This worker's share of every global batch, epoch after epoch, from `start_step` on.

    Each epoch is a fresh permutation of all rows drawn from `(seed, epoch)`: a global shuffle, so
    batches mix the corpus however it is sorted (a label-sorted corpus would otherwise give
    same-topic in-batch negatives), and a new order every epoch. Global batch k holds the same rows
    whatever the number of workers (worker r takes its slice of it), and a run resumed at step s
    continues the sequence exactly. Each row carries its place in that order, `(epoch, position)`
    under `DRAW`, which seeds what the objective draws from it (a crop, a summary, a title pair). Each
    epoch drops its last incomplete global batch.
    """
    per_epoch = len(rows) // batch_size
    if per_epoch == 0:
        raise RuntimeError(f"the training data holds {len(rows)} rows, fewer than one batch of {batch_size}")
    share = batch_size // world
    columns = list(rows.columns)
    step, epoch, order = start_step, -1, np.empty(0, dtype=np.int64)
    while True:
        if step // per_epoch != epoch:
            epoch = step // per_epoch
            order = np.random.default_rng([seed, epoch]).permutation(len(rows))
        first = (step % per_epoch) * batch_size + rank * share
        part = rows.iloc[order[first : first + share]]
        places = np.stack([np.full(share, epoch), np.arange(first, first + share)], axis=1)
        yield {column: part[column].to_numpy() for column in columns} | {DRAW: places}
        step += 1


def dropout_seed(seed: int, step: int, rank: int) -> int:
    """The torch seed of one worker's forward pass at one step: dropout masks differ between workers (they hold
    different rows) and between steps, and a resumed run draws the masks the uninterrupted one would have."""
    return int(np.random.SeedSequence([seed, step, rank]).generate_state(1)[0])


def fit(spec: LoopSpec, rows: pd.DataFrame, session: Session) -> None:
    """One worker's run: the DeepSpeed engine, resume or candidate zero, then steps with periodic evaluations."""
    import torch
    import torch.distributed as dist

    cfg = spec.cfg
    rank, world = session.rank, session.world
    if not cfg.use_gpu:
        os.environ.setdefault("DS_ACCELERATOR", "cpu")
        torch.set_num_threads(max(1, int(cfg.cpus_per_worker)))
    import deepspeed

    from semcse.core.tracking import Tracker
    from semcse.stages.training.engine import deepspeed_config, parameter_groups, skip_shared_memory_op

    started = time.perf_counter()
    model = spec.model_factory()
    average = BaseAverage(model, cfg.average_with_base)  # before DeepSpeed moves or wraps the base weights
    reference = BaseReference.for_run(model, cfg)
    attention.for_training(model, cfg)  # after the reference's copy, which only ever encodes
    if not cfg.use_gpu:
        skip_shared_memory_op()
    engine, _, _, scheduler = deepspeed.initialize(
        model=model,
        model_parameters=parameter_groups(model, cfg.weight_decay),
        config=deepspeed_config(cfg),
        dist_init_required=False,
    )
    state = checkpoints.LoopState()
    with session.resumed() as directory:
        resumed = directory is not None
        if directory is not None:
            state = checkpoints.restore(engine, directory)
    tracker = Tracker(spec.tracking, spec.run_id) if rank == 0 and spec.tracking and spec.run_id else None
    log = _progress(rank, tracker)
    setup = {"setup_s": time.perf_counter() - started}
    state.cpu_bf16 = bf16 = _one_precision(cfg, state.cpu_bf16, rank, dist, log, state.step)
    start_step = state.step
    evaluate = _Evaluator(engine, spec, state, session, log, start_step, average)
    if resumed:
        log(f"resumed from the checkpoint at step {state.step}", setup | {"resumed_from_step": state.step}, state.step)
    else:
        evaluate(setup)

    collate = spec.objective.collate_fn(engine.module, cfg.seed)
    batches = global_batches(rows, cfg.batch_size, rank, world, cfg.seed, start_step)
    meter = Meter()
    clock = EvaluationClock(cfg, engine.device, dist)
    forward = precision.training_forward(engine, bf16)
    if reference is not None:
        reference.ready(engine.device, cfg, bf16)
    engine.train()
    while state.step < cfg.max_steps:
        batch = {key: value.to(engine.device) for key, value in collate(next(batches)).items()}
        if reference is not None:
            batch[BASE] = reference.embed(batch[TEXTS])
        torch.manual_seed(dropout_seed(cfg.seed, state.step, rank))
        loss = spec.objective.loss(forward, batch)
        engine.backward(loss)
        engine.step()
        state.step += 1
        meter.add(loss.item(), cfg.worker_batch_size, _tokens(batch), spec.objective.terms)
        if state.step % cfg.log_every == 0 or state.step == cfg.max_steps:
            stats = meter.summary(world) | {"lr": scheduler.get_last_lr()[0]}
            terms = "".join(f" {name} {stats[name]:.4g}" for name in spec.objective.terms)  # base_kl can be tiny
            log(
                f"step {state.step}/{cfg.max_steps} loss {stats['loss']:.4f}{terms} "
                f"{stats['samples_per_s']:.1f} pairs/s {stats['tokens_per_s']:.0f} tokens/s",
                stats,
                state.step,
            )
            meter.reset()
        for callback in spec.callbacks:
            callback.after_step(state.step, rank, world)
        if clock.due(state.step, rank):
            stop = evaluate()
            engine.train()
            meter.reset()
            clock.restart()
            if stop:
                break


def _tokens(batch: dict[str, Any]) -> int:
    """The tokens a worker's batch encodes, for the throughput line: its texts' (`TEXTS`), else its answer's mask."""
    if TEXTS in batch:
        return int(batch[TEXTS].tokens)
    mask = batch.get("attention_mask")
    return int(mask.sum()) if mask is not None else 0


class EvaluationClock:
    """When to evaluate: every `eval_every` steps, or every `eval_every_minutes` of wall time, and at the end.

    A time-based schedule is rank 0's clock broadcast to every worker (one tiny collective per step),
    because evaluation and checkpointing are collectives that all workers must enter together.
    `clock` (seconds, monotonic) is `time.perf_counter` unless a test passes its own.
    """

    def __init__(
        self, cfg: TrainingConfig, device: Any, dist: Any, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.cfg, self.device, self.dist, self.clock = cfg, device, dist, clock
        self.restart()

    def restart(self) -> None:
        self.since = self.clock()

    def due(self, step: int, rank: int) -> bool:
        if step == self.cfg.max_steps:
            return True
        if self.cfg.eval_every_minutes is None:
            return step % self.cfg.eval_every == 0
        import torch

        elapsed = self.clock() - self.since
        flag = torch.tensor([int(elapsed >= 60 * self.cfg.eval_every_minutes)], device=self.device)
        if self.dist.is_initialized():
            self.dist.broadcast(flag, src=0)
        return bool(flag.item())


class _Evaluator:
    """Validate, update early stopping, report a checkpoint; calling it returns True when patience is exhausted.

    At step 0 this scores and checkpoints the base model, which becomes the best candidate so far: later steps
    must beat it, and when none does the base is what the run delivers. The candidate is the step's weights as
    `average` makes them (the trained weights themselves unless averaging is on).
    """

    def __init__(
        self,
        engine: Any,
        spec: LoopSpec,
        state: checkpoints.LoopState,
        session: Session,
        log: Callable[[str, dict[str, float], int], None],
        start_step: int,
        average: BaseAverage,
    ) -> None:
        self.engine, self.spec, self.state, self.session = engine, spec, state, session
        self.log, self.start_step, self.average = log, start_step, average

    def __call__(self, extra: dict[str, float] | None = None) -> bool:
        engine, spec, state, session = self.engine, self.spec, self.state, self.session
        started = time.perf_counter()
        with self.average.candidate(engine.module):
            validated = _shared_evaluation(engine.module, spec, session, bool(state.cpu_bf16))
        metrics = validated.metrics | state.drift(validated.drift_vectors)
        improved = state.record(
            metrics["val_score"],
            validated.items,
            spec.cfg.improvement == "significant",
            validated.label_items,
            validated.checks,
            spec.cfg.label_margin,
        )
        stop = state.evals_without_improvement >= spec.cfg.patience
        timing = _seconds("eval", started)
        report = metrics | {
            # what checkpoints are kept by: only a new best competes, so a later step that merely ties the best (or
            # the base model) can never displace it
            CANDIDATE_SCORE: metrics["val_score"] if improved else NOT_A_CANDIDATE,
            "step": state.step,
            "base_val_score": state.base_score,
            "best_val_score": state.best_score,
            "best_step": state.best_step,
            "start_step": self.start_step,
            "early_stopped": stop,
        }
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            checkpoints.save(engine, state, Path(tmp), session.rank, spec.model_factory, self.average)
            session.report(report, Path(tmp))
        self.log(
            f"eval step {state.step}: {_ranks(metrics)}{_verdict(state, metrics, improved, stop)}",
            (extra or {}) | metrics | {"best_val_score": state.best_score} | timing | _seconds("checkpoint", started),
            state.step,
        )
        return stop


def _verdict(state: checkpoints.LoopState, metrics: dict[str, float], improved: bool, stop: bool) -> str:
    """What an evaluation's line says of the candidate, e.g. ` (best)` or why the base model is still the best."""
    if state.step == 0:
        verdict = " (base model: the candidate to beat)"
    elif improved:
        verdict = " (best)"
    else:
        verdict = f" (best is still step {state.best_step}{' = the base model' if state.best_step == 0 else ''}"
        if state.refused:
            verdict += f", {'a better score, but ' if state.scored_better else ''}{state.refused}"
        elif metrics["val_score"] < state.best_score:
            verdict += ", lower but not significantly better than the base"
        verdict += ")"
    if stop:
        verdict += f", early stop after {state.evals_without_improvement} evaluations without improvement"
    return verdict


def _seconds(phase: str, started: float) -> dict[str, float]:
    """`{phase}_s` since `started`: logged beside the metrics so a slow run shows where its time went."""
    return {f"{phase}_s": time.perf_counter() - started}


def _one_precision(
    cfg: TrainingConfig,
    recorded: bool | None,
    rank: int,
    dist: Any,
    log: Callable[[str, dict[str, float], int], None],
    step: int,
) -> bool:
    """Whether the run's CPU forwards use bf16, decided on rank 0 (`precision.run_precision`) and followed by every
    worker; the loop state records it (the run's record, not its config), so a resumed run keeps it."""
    decided: list[Any] = [precision.run_precision(cfg, recorded) if rank == 0 else None]
    if dist.is_initialized() and dist.get_world_size() > 1:
        dist.broadcast_object_list(decided, src=0)
    bf16, why = decided[0]
    if bf16:
        log(f"forwards run under bf16 autocast, weights and loss in fp32 ({why})", {"cpu_bf16": 1.0}, step)
    return bool(bf16)


def _shared_evaluation(model: Any, spec: LoopSpec, session: Session, bf16: bool) -> Validated:
    """Rank 0 evaluates and broadcasts its numbers; under ZeRO-3 every rank joins its collective forwards.

    Below ZeRO-3 the other workers would only repeat rank 0's work, and on a shared CPU node they would take its
    cores while doing so; instead rank 0 borrows the CPUs its node reserved for all of this run's workers, which
    sit idle at the broadcast while it evaluates.
    """
    import torch.distributed as dist

    alone = spec.cfg.recipe.zero_stage != 3
    evaluates = session.rank == 0 or not alone
    node_cpus = int(spec.cfg.cpus_per_worker * session.local_world)
    threads = node_cpus if alone and not spec.cfg.use_gpu else None
    with _torch_threads(threads), precision.autocast(bf16), attention.encoding(model):
        shared = [spec.validate(model, spec.validation) if evaluates else None]
    if dist.is_initialized() and dist.get_world_size() > 1:
        dist.broadcast_object_list(shared, src=0)
    if shared[0] is None:
        raise RuntimeError(f"worker {session.rank} received no validation result from rank 0")
    return shared[0]


@contextlib.contextmanager
def _torch_threads(count: int | None) -> Iterator[None]:
    """torch's intra-op threads set to `count` inside the block (unchanged for None), restored after."""
    import torch

    before = torch.get_num_threads()
    if count:
        torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _ranks(metrics: dict[str, float]) -> str:
    """Whatever validation metrics the objective reports, e.g. `rank pair 3.10, rank document 2.40, score 2.75`."""
    return ", ".join(
        f"{k.removeprefix('val_').replace('_', ' ')} {v:.{4 if k == 'val_base_drift' else 2}f}"
        for k, v in metrics.items()
        if k.startswith("val_")
    )


def _progress(rank: int, tracker: Any) -> Callable[[str, dict[str, float], int], None]:
    """Rank 0 reports a line and logs the metrics to MLflow; other ranks stay quiet."""

    def log(line: str, metrics: dict[str, float], step: int) -> None:
        if rank != 0:
            return
        logger.info(line, extra=logs.stage("train"))
        if tracker is not None:
            tracker.log_metrics({k: v for k, v in metrics.items() if math.isfinite(v)}, step=step)

    return log
