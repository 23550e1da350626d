"""Run a study with Ray Tune: checks first, trials as Tune functions, resume, then the ablation table.

Each trial is a Tune function that fits its own TorchTrainer (the Ray Train V2 + Tune pattern). The
trial actor itself only waits: it holds `TRIAL_ACTOR`, one byte of memory, because Tune refuses an
empty request and any share of a CPU would keep the trial's own workers from fitting a machine whose
CPUs they need all of (two workers on a 2-core laptop); the Train workers it launches do the work,
and Tune cannot see them. How many trials run at once
is the study's `max_concurrent_trials`; unset, on the embedded local cluster it is what fits the
machine (`num_workers × cpus_per_worker`, and GPUs, against its resources), and on a cluster every
trial starts and queues for its workers, with the autoscaler asked for them up front: what happens
to be up when the study is submitted (nothing, on a cluster scaled to zero) never decides. The
experiment lives under `<run_dir>/tune`, a storage URI on a cluster. Running a study whose
experiment directory already exists restores it with `Tuner.restore`: finished trials keep their
results and only unfinished or errored trials run again. Tune saves its experiment state every
`STATE_SAVE_PERIOD_S` (its default waits 10 s or more), so a crash right after a trial finishes does
not lose that trial.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semcse.core import logs, storage
from semcse.core.config import RunConfig
from semcse.core.tracking import Tracker
from semcse.orchestration.tuning.study import Study, StudyError
from semcse.orchestration.tuning.table import AblationTable, TrialRow, build_table, write_table
from semcse.orchestration.tuning.tracking import TrialRuns
from semcse.orchestration.tuning.trial import LOWER_IS_BETTER_KEY, TrialSpec, check_base, run_trial

log = logging.getLogger(__name__)
TUNE = logs.stage("tune")
TRIAL_ACTOR: dict[str, float] = {"memory": 1}
STATE_SAVE_PERIOD_S = 1


@dataclass
class StudyResult:
    """A finished study: its table, the files written, where Tune keeps it, and its MLflow parent run."""

    study: str
    table: AblationTable
    paths: dict[str, str]
    experiment_dir: str
    parent_run_id: str | None
    restored: bool
    errors: dict[str, str]
    winner: dict[str, Any] | None = None


def trial_resources(cfg: RunConfig, trainer: str) -> dict[str, float]:
    """What one trial's TorchTrainer reserves while it trains."""
    if trainer == "multi":
        from semcse.stages.training.aspect_encoders import stage_training

        tc = stage_training(cfg, cfg.multi.distill, "multi.distill")
    else:
        tc = cfg.training
    ask = {"CPU": tc.num_workers * tc.cpus_per_worker}
    if tc.use_gpu:
        ask["GPU"] = float(tc.num_workers)
    return ask


def max_concurrent_trials(ask: dict[str, float], cluster: dict[str, float], cap: int | None = None) -> int:
    """How many trials fit side by side on the local `cluster`; at most `cap` when the study sets one."""
    fits = min(math.floor(cluster.get(name, 0.0) / amount + 1e-9) for name, amount in ask.items() if amount > 0)
    if fits < 1:
        have = {name: cluster.get(name, 0.0) for name in ask}
        raise StudyError(f"one trial asks for {ask} but the cluster has {have}; lower training.num_workers")
    return min(fits, cap) if cap else fits


def run_study(study: Study, base: RunConfig, restore: bool = True) -> StudyResult:
    """Check, run (or restore and finish) the study, write and log the ablation table."""
    from ray import tune

    from semcse.core.runtime import connect, requested

    os.environ.setdefault("TUNE_GLOBAL_CHECKPOINT_S", str(STATE_SAVE_PERIOD_S))
    base = connect(base)
    check_base(base, study.trainer)
    root = storage.join(base.run_dir, "tune")
    filesystem, tune_path = storage.filesystem(root)
    experiment = storage.join(tune_path, study.name)
    state_file = storage.join(root, f"{study.name}-study.json")
    restored = restore and tune.Tuner.can_restore(experiment, storage_filesystem=filesystem)
    parent = _parent_run(study, base, state_file if restored else None)
    storage.write_json(state_file, {"parent_run_id": parent.run_id})
    spec = TrialSpec(
        study.name, study.trainer, base.model_dump(), tuple(study.suites), storage.join(root, f"{study.name}-trials")
    )
    trainable = tune.with_resources(tune.with_parameters(run_trial, spec=spec), TRIAL_ACTOR)
    ask = trial_resources(base, study.trainer)
    concurrent = _concurrency(base, study, ask)
    at_once = f"up to {concurrent}" if concurrent else "all"
    log.info("%s: each trial asks for %s; %s trials at once", study.name, ask, at_once, extra=TUNE)
    waiting = [ask] * (concurrent or study.trials)
    with parent, requested(waiting, base.ray):
        if restored:
            log.info("restoring %s: finished trials are kept", storage.join(root, study.name), extra=TUNE)
            tuner = tune.Tuner.restore(
                experiment, trainable=trainable, resume_errored=True, storage_filesystem=filesystem
            )
        else:
            tuner = tune.Tuner(
                trainable,
                param_space=study.param_space(),
                tune_config=tune.TuneConfig(
                    metric=study.metric,
                    mode=study.mode,
                    num_samples=study.samples,
                    max_concurrent_trials=concurrent or None,
                    scheduler=_scheduler(study, base),
                ),
                run_config=tune.RunConfig(
                    name=study.name,
                    storage_path=tune_path,
                    storage_filesystem=filesystem,
                    callbacks=[TrialRuns(base.tracking, parent.run_id, study.name)],
                ),
            )
        grid = tuner.fit()
        results = [grid[i] for i in range(len(grid))]
        rows = [_row(result, study) for result in results]
        errors = {row.trial_id: _last_line(result.error) for row, result in zip(rows, results) if result.error}
        ablation = build_table(rows, study.metric, study.mode)
        results_dir = storage.join(root, f"{study.name}-results")
        paths = write_table(ablation, results_dir, study.metric, study.name)
        for path in paths.values():
            parent.log_artifact(path, "ablation")
        unfinished = len(grid) - grid.num_terminated - grid.num_errors
        if unfinished:  # interrupted (Ctrl-C, a stopped job): a winner among some trials is not the study's
            log.info(
                "%s: %d of %d trials unfinished; rerun the same command to resume them (finished trials are "
                "kept), and the winner is tested on the test split once every trial has finished",
                study.name,
                unfinished,
                len(grid),
                extra=TUNE,
            )
            winner = None
        else:
            winner = _choose_the_winner(study, base, ablation, spec, storage.join(results_dir, "test")) or None
        if winner and "report" in winner:
            parent.log_artifact(winner["report"], "test")
    return StudyResult(
        study.name, ablation, paths, storage.join(root, study.name), parent.run_id, restored, errors, winner
    )


def _choose_the_winner(
    study: Study, base: RunConfig, ablation: AblationTable, spec: TrialSpec, out: str
) -> dict[str, Any]:
    """The trial chosen on validation (`study.metric`, and `study.prefer`: `AblationTable.winner`) and why, evaluated
    once on the test split against the base model when the study names `test_suites`.

    Nothing about the choice looks at the test split; this is the figure to report for the chosen recipe,
    with intervals. Returns the winner's trial, parameters, the reason it was chosen and where the test report went
    (no `report` without test suites).
    """
    picked = ablation.winner(study.metric, study.prefer, study.replicates)
    if picked is None:
        if study.test_suites:
            raise StudyError(f"no trial reported {study.metric!r}: there is no winner to test")
        log.info("%s: no trial reported %s, so no winner", study.name, study.metric, extra=TUNE)
        return {}
    chosen, why = picked
    params = ablation.params_of(chosen)
    winner = {"trial": chosen, "params": params, "why": why}
    if not study.test_suites:
        log.info("%s: winner %s %s (%s); no test_suites to test it on", study.name, chosen, params, why, extra=TUNE)
        return winner
    from semcse.stages.evaluation.inputs import scoring_config
    from semcse.stages.evaluation.runner import evaluate

    model = storage.join(spec.trials_dir, chosen, "encoder")
    pooling = base.training.pooling
    models = [f"base={base.training.base_model}" + (f"#{pooling}" if pooling else ""), f"winner={model}"]
    cfg = scoring_config(base, "test")
    data = base.evaluation.data or base.corpus.path
    if not data:
        raise StudyError("nothing to test the winner on: set evaluation.data or corpus.path")
    results = evaluate(list(study.test_suites), models, data, out, cfg)
    lines = [f"# {study.name}: the winner on the test split", "", f"trial {chosen}: {params}", f"chosen: {why}", ""]
    for name, result in results.items():
        lines.append(f"## {name}")
        for metric, difference in result.differences("winner", "base").items():
            lines.append(
                f"- {metric}: winner − base {difference.difference:+.4f} "
                f"(95% CI [{difference.low:+.4f}, {difference.high:+.4f}], {difference.verdict})"
            )
        lines.append("")
    report = storage.write_text(storage.join(out, "winner.md"), "\n".join(lines))
    log.info("%s: winner %s %s (%s); test split report %s", study.name, chosen, params, why, report, extra=TUNE)
    return winner | {"report": report}


def _concurrency(base: RunConfig, study: Study, ask: dict[str, float]) -> int:
    """Trials at once (0: all of them, queued on the cluster); see the module docstring."""
    from semcse.core.runtime import target_address

    if study.max_concurrent_trials:
        return study.max_concurrent_trials
    if target_address(base.ray) is not None:
        return 0
    import ray

    return max_concurrent_trials(ask, ray.cluster_resources())


def _parent_run(study: Study, base: RunConfig, state_file: str | None) -> Tracker:
    """The study's MLflow parent run: reopened when restoring, else a new one with the study's settings."""
    if state_file is not None and storage.is_file(state_file):
        run_id = storage.read_json(state_file).get("parent_run_id")
        if run_id:
            return Tracker.resume(base.tracking, run_id)
    parent = Tracker.start(base.tracking, run_name=f"tune-{study.name}", tags={"stage": "tune", "study": study.name})
    parent.log_params(study.model_dump(mode="json"), prefix="study.")
    parent.log_params(base, prefix="base.")
    return parent


def _scheduler(study: Study, base: RunConfig) -> Any:
    """ASHA over validation reports (one per `eval_every` steps, plus the final report), else FIFO."""
    if study.scheduler != "asha":
        return None
    from ray.tune.schedulers import ASHAScheduler

    reports = math.ceil(base.training.max_steps / base.training.eval_every) + 1
    return ASHAScheduler(
        time_attr="training_iteration",
        max_t=max(reports, study.asha.grace_period),
        grace_period=study.asha.grace_period,
        reduction_factor=study.asha.reduction_factor,
    )


def _row(result: Any, study: Study) -> TrialRow:
    metrics = dict(result.metrics or {})
    status = "error" if result.error else "done" if LOWER_IS_BETTER_KEY in metrics else "stopped"
    params = {key: value for key, value in (result.config or {}).items() if key in study.search}
    return TrialRow(str(metrics.get("trial_id", Path(result.path).name)), params, metrics, status)


def _last_line(error: BaseException) -> str:
    """The innermost reason of a trial's error (Ray wraps it in a multi-line traceback)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__
