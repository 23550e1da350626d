"""The per-worker training loop run by `ray.train.torch.TorchTrainer`.

Every worker runs exactly `max_steps` optimisation steps (or stops at the same early-stopping
evaluation): batches come from its Ray Data shard in an endless sequence of epochs, so workers
whose shards differ in length never fall out of step in the collectives. Evaluation runs on every
worker (ZeRO-3 forward passes are collective) and rank 0's verdict is broadcast, so all workers
stop together. Rank 0 prints progress and logs to MLflow.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from ray.data.collate_fn import NumpyBatchCollateFn

from semcse.config import TrackingConfig, TrainingConfig
from semcse.training import checkpoints
from semcse.training.objective import Batch, Objective
from semcse.training.validation import ValidationSet, evaluate


@dataclass(frozen=True)
class FailOnce:
    """Test hook: the last worker exits hard after `step` steps unless `marker` exists (then creates it)."""

    step: int
    marker: str

    @classmethod
    def from_env(cls, value: str | None) -> FailOnce | None:
        """Parse `SEMCSE_FAIL_ONCE=<step>:<marker path>`; unset means no failure injection."""
        if not value:
            return None
        step, marker = value.split(":", 1)
        return cls(int(step), marker)

    def maybe_fail(self, step: int, rank: int, world: int) -> None:
        if step == self.step and rank == world - 1 and not os.path.exists(self.marker):
            Path(self.marker).touch()
            print(f"[semcse] injected failure: worker {rank} exits after step {step}", flush=True)
            os._exit(1)


@dataclass(frozen=True)
class LoopSpec:
    """Everything a worker needs; pickled into `train_loop_config`."""

    cfg: TrainingConfig
    objective: Objective
    model_factory: Callable[[], Any]
    validation: ValidationSet | Any
    tracking: TrackingConfig | None = None
    run_id: str | None = None
    fail_once: FailOnce | None = None
    evaluate: Callable[[Any, Any], dict[str, float]] = evaluate  # (model, validation) -> metrics with val_score


class Meter:
    """Rank 0's loss, pairs and tokens since the last log line, for the loss curve and throughput.

    Throughput is scaled by the world size (workers run in lockstep with equal batch sizes), which
    avoids an extra collective per step; tokens/s is therefore an estimate from rank 0's batches.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.losses: list[float] = []
        self.pairs = 0
        self.tokens = 0
        self.started = time.perf_counter()

    def add(self, loss: float, pairs: int, tokens: int) -> None:
        self.losses.append(loss)
        self.pairs += pairs
        self.tokens += tokens

    def summary(self, world: int) -> dict[str, float]:
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        return {
            "loss": float(np.mean(self.losses)),
            "samples_per_s": self.pairs * world / elapsed,
            "tokens_per_s": self.tokens * world / elapsed,
        }


class NumpyCollate(NumpyBatchCollateFn):
    """An objective's collate function in the form Ray Data expects (plain functions are deprecated)."""

    def __init__(self, collate: Callable[[dict[str, np.ndarray]], Batch]) -> None:
        self.collate = collate

    def __call__(self, batch: dict[str, np.ndarray]) -> Batch:
        return self.collate(batch)


def endless_batches(
    shard: Any, collate: Callable[[dict[str, np.ndarray]], Batch], batch_size: int, seed: int
) -> Iterator[Batch]:
    """Epoch after epoch of full batches from this worker's shard.

    Each epoch shuffles locally with its own seed derived from `seed`, so a run's data order (and
    with it the run) is reproducible from the config's seed rather than drawn from the OS.
    """
    collate_fn, epoch = NumpyCollate(collate), 0
    while True:
        produced = False
        for batch in shard.iter_torch_batches(
            batch_size=batch_size,
            collate_fn=collate_fn,
            drop_last=True,
            local_shuffle_buffer_size=4 * batch_size,
            local_shuffle_seed=seed + epoch,
        ):
            produced = True
            yield batch
        if not produced:
            raise RuntimeError(f"this worker's data shard holds fewer than {batch_size} rows: no full batch")
        epoch += 1


def train_loop(config: dict[str, Any]) -> None:
    """`train_loop_per_worker`: DeepSpeed engine, resume, steps, periodic evaluation + checkpoint."""
    import ray.train
    import torch
    import torch.distributed as dist

    spec: LoopSpec = config["spec"]
    cfg = spec.cfg
    context = ray.train.get_context()
    rank, world = context.get_world_rank(), context.get_world_size()
    if not cfg.use_gpu:
        os.environ.setdefault("DS_ACCELERATOR", "cpu")
        torch.set_num_threads(max(1, int(cfg.cpus_per_worker)))
    import deepspeed

    from semcse.tracking import Tracker
    from semcse.training.engine import deepspeed_config

    started = time.perf_counter()
    model = spec.model_factory()
    engine, _, _, scheduler = deepspeed.initialize(
        model=model,
        model_parameters=[p for p in model.parameters() if p.requires_grad],
        config=deepspeed_config(cfg),
        dist_init_required=False,
    )
    state = checkpoints.LoopState()
    resumed_from = ray.train.get_checkpoint()
    if resumed_from is not None:
        with resumed_from.as_directory() as directory:
            state = checkpoints.restore(engine, Path(directory))
    tracker = Tracker(spec.tracking, spec.run_id) if rank == 0 and spec.tracking and spec.run_id else None
    log = _progress(rank, tracker)
    setup = {"setup_s": time.perf_counter() - started}
    if resumed_from is not None:
        log(f"resumed from the checkpoint at step {state.step}", setup | {"resumed_from_step": state.step}, state.step)
    else:
        started = time.perf_counter()
        baseline = _shared_evaluation(engine.module, spec, dist)
        log(f"eval step 0 (base model): {_ranks(baseline)}", setup | baseline | _seconds("eval", started), 0)
    start_step = state.step

    sampling, shuffling = np.random.SeedSequence([cfg.seed, rank, start_step]).spawn(2)
    batches = endless_batches(
        ray.train.get_dataset_shard("train"),
        spec.objective.collate_fn(engine.module, np.random.default_rng(sampling)),
        cfg.worker_batch_size,
        seed=int(shuffling.generate_state(1)[0]),
    )
    meter = Meter()
    engine.train()
    while state.step < cfg.max_steps:
        batch = {key: value.to(engine.device) for key, value in next(batches).items()}
        loss = spec.objective.loss(engine, batch)
        engine.backward(loss)
        engine.step()
        state.step += 1
        meter.add(loss.item(), cfg.worker_batch_size, int(batch["attention_mask"].sum()))
        if state.step % cfg.log_every == 0 or state.step == cfg.max_steps:
            stats = meter.summary(world) | {"lr": scheduler.get_last_lr()[0]}
            log(
                f"step {state.step}/{cfg.max_steps} loss {stats['loss']:.4f} "
                f"{stats['samples_per_s']:.1f} pairs/s {stats['tokens_per_s']:.0f} tokens/s",
                stats,
                state.step,
            )
            meter.reset()
        if state.step % cfg.eval_every == 0 or state.step == cfg.max_steps:
            stop = _evaluate_and_checkpoint(engine, spec, state, rank, log, start_step, dist)
            engine.train()
            meter.reset()
            if stop:
                break
        if spec.fail_once is not None:
            spec.fail_once.maybe_fail(state.step, rank, world)


def _evaluate_and_checkpoint(engine, spec: LoopSpec, state, rank: int, log, start_step: int, dist) -> bool:
    """Validate, update early stopping, report a checkpoint; True when patience is exhausted."""
    import ray.train
    from ray.train import Checkpoint

    started = time.perf_counter()
    metrics = _shared_evaluation(engine.module, spec, dist)
    improved = state.record(metrics["val_score"])
    stop = state.evals_without_improvement >= spec.cfg.patience
    timing = _seconds("eval", started)
    report = metrics | {
        "step": state.step,
        "best_val_score": state.best_score,
        "best_step": state.best_step,
        "start_step": start_step,
        "early_stopped": stop,
    }
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        checkpoints.save(engine, state, Path(tmp), rank, spec.cfg.zero_stage)
        ray.train.report(report, checkpoint=Checkpoint.from_directory(tmp))
    log(
        f"eval step {state.step}: {_ranks(metrics)}{' (best)' if improved else ''}{', early stop' if stop else ''}",
        metrics | {"best_val_score": state.best_score} | timing | _seconds("checkpoint", started),
        state.step,
    )
    return stop


def _seconds(phase: str, started: float) -> dict[str, float]:
    """`{phase}_s` since `started`: logged beside the metrics so a slow run shows where its time went."""
    return {f"{phase}_s": time.perf_counter() - started}


def _shared_evaluation(model: Any, spec: LoopSpec, dist: Any) -> dict[str, float]:
    """Every rank evaluates (ZeRO-3 forwards are collective); rank 0's numbers are the ones used."""
    shared = [spec.evaluate(model, spec.validation)]
    if dist.is_initialized():
        dist.broadcast_object_list(shared, src=0)
    return shared[0]


def _ranks(metrics: dict[str, float]) -> str:
    """Whatever validation metrics the objective reports, e.g. `rank pair 3.10, rank document 2.40, score 2.75`."""
    return ", ".join(
        f"{k.removeprefix('val_').replace('_', ' ')} {v:.2f}" for k, v in metrics.items() if k.startswith("val_")
    )


def _progress(rank: int, tracker: Any) -> Callable[[str, dict[str, float], int], None]:
    """Rank 0 prints a line and logs the metrics; other ranks stay quiet."""

    def log(line: str, metrics: dict[str, float], step: int) -> None:
        if rank != 0:
            return
        print(f"[semcse train] {line}", flush=True)
        if tracker is not None:
            tracker.log_metrics({k: v for k, v in metrics.items() if math.isfinite(v)}, step=step)

    return log
