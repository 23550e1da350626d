"""The training loop on Ray Train (`training.launcher: ray`, the default): a thin adapter and the TorchTrainer fit.

`train_func` is what `TorchTrainer` runs on each worker: it takes the worker's context, the rows from the object
store and the checkpoint Ray Train restores, and hands them to the loop as a `RaySession`; the loop's reports
become `ray.train.report` calls with the worker's part of each checkpoint. `run_on_ray` fits it and reads how the
run ended. Ray Train restores a run whose name it finds under the storage path from that run's latest checkpoint,
so a job killed mid-training (the driver, or the whole cluster) continues where it stopped when submitted again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from semcse.core import logs, storage
from semcse.core.config import RunConfig, TrainingConfig
from semcse.stages.training.checkpoints import CANDIDATE_SCORE, Outcome, best_of
from semcse.stages.training.loop import LoopSpec, fit


class RaySession:
    """This worker as Ray Train's context describes it."""

    def __init__(self) -> None:
        import ray.train

        context = ray.train.get_context()
        self.rank, self.world = context.get_world_rank(), context.get_world_size()
        self.local_world = context.get_local_world_size()

    @contextlib.contextmanager
    def resumed(self) -> Iterator[Path | None]:
        import ray.train

        restored = ray.train.get_checkpoint()
        if restored is None:
            yield None
            return
        with restored.as_directory() as directory:
            yield Path(directory)

    def report(self, metrics: dict[str, Any], checkpoint: Path) -> None:
        import ray.train

        ray.train.report(metrics, checkpoint=ray.train.Checkpoint.from_directory(str(checkpoint)))


def train_func(config: dict[str, Any]) -> None:
    """`train_loop_per_worker`: the loop with this worker's session and the rows every worker shares."""
    import ray

    fit(config["spec"], ray.get(config["rows"]), RaySession())


def worker_bundle(tc: TrainingConfig) -> dict[str, float]:
    """What one training worker reserves: its CPUs, a GPU when it trains on one, and `resources_per_worker`."""
    return {"CPU": tc.cpus_per_worker, **({"GPU": 1.0} if tc.use_gpu else {}), **tc.resources_per_worker}


def run_on_ray(
    cfg: RunConfig, tc: TrainingConfig, spec: LoopSpec, rows: pd.DataFrame, name: str, callbacks: Sequence[Any] = ()
) -> Outcome:
    """Fit `spec` with a TorchTrainer named `name`, checkpoints under `<run_dir>/ray` (a storage URI every node
    reaches, or a local path); `callbacks` are Ray Train's (`ray.train.UserCallback`, e.g. Tune's report callback).

    The rows go into Ray's object store once; a failed worker restarts the group from the last checkpoint (up to
    `max_failures` times); only the best checkpoint is kept beside the latest (the base model's, step 0, when
    nothing beats it).
    """
    import ray
    from ray.train import CheckpointConfig, FailureConfig, LoggingConfig, ScalingConfig
    from ray.train import RunConfig as RayRunConfig
    from ray.train.torch import TorchTrainer

    filesystem, path = storage.filesystem(storage.join(cfg.run_dir, "ray"))
    trainer = TorchTrainer(
        train_func,
        train_loop_config={"spec": spec, "rows": ray.put(rows.reset_index(drop=True))},
        scaling_config=ScalingConfig(
            num_workers=tc.num_workers, use_gpu=tc.use_gpu, resources_per_worker=worker_bundle(tc)
        ),
        run_config=RayRunConfig(
            name=name,
            storage_path=path,
            storage_filesystem=filesystem,
            failure_config=FailureConfig(max_failures=tc.max_failures),
            checkpoint_config=CheckpointConfig(
                num_to_keep=1, checkpoint_score_attribute=CANDIDATE_SCORE, checkpoint_score_order="min"
            ),
            callbacks=list(callbacks),
            # Ray Train V2's RunConfig (the one in use) takes it; mypy reads the V1 class behind `ray.train`
            logging_config=LoggingConfig(log_level=logs.ray_level()),  # type: ignore[call-arg]
        ),
    )
    result = trainer.fit()
    best, metrics = best_of(result.best_checkpoints or [])

    @contextlib.contextmanager
    def best_checkpoint() -> Iterator[Path]:
        with best.as_directory() as directory:
            yield Path(directory)

    return Outcome(metrics, dict(result.metrics or {}), best_checkpoint)
