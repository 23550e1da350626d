"""The step runner the pipeline and updates share: a rerun skips what finished and resumes at what did not.

Steps here write real files and the state lives in a real directory, so what is asserted is what a
process started after a kill would find there: the state file, the files, and the MLflow run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from semcse.core.tracking import Tracker
from semcse.orchestration.steps import Outputs, Step, StepRunner, StepState, changed_settings


class Crash(RuntimeError):
    """A step that fails (or a process that dies) part way through a run."""


class Steps:
    """Three steps that each append a line to a file of their own, counting how often each ran."""

    def __init__(self, directory: Path, fail_at: str | None = None) -> None:
        self.directory, self.fail_at = directory, fail_at

    def table(self) -> dict[str, Step]:
        return {name: self._step(name) for name in ("first", "second", "third")}

    def _step(self, name: str) -> Step:
        def run() -> Outputs:
            path = self.directory / f"{name}.txt"
            with path.open("a") as handle:
                handle.write("ran\n")
            if name == self.fail_at:
                raise Crash(name)
            return {"file": str(path)}

        return run

    def runs(self, name: str) -> int:
        path = self.directory / f"{name}.txt"
        return len(path.read_text().splitlines()) if path.exists() else 0


def _run(directory: Path, tracking, steps: Steps, **kwargs) -> StepState:
    runner = StepRunner("steps", steps.table(), StepState.load(str(directory)), **kwargs)
    return runner.run(tracking, lambda: Tracker.start(tracking, run_name="steps-test"))


def test_a_failed_step_is_resumed_at_and_finished_steps_are_skipped(tmp_path: Path, tracking):
    with pytest.raises(Crash):
        _run(tmp_path, tracking, Steps(tmp_path, fail_at="second"))
    state = StepState.load(str(tmp_path))
    assert list(state.steps) == ["first"] and state.outputs("first") == {"file": str(tmp_path / "first.txt")}
    client = Tracker(tracking).client
    assert client.get_run(state.parent_run_id).info.status == "FAILED"

    steps = Steps(tmp_path)
    resumed = _run(tmp_path, tracking, steps)
    assert list(resumed.steps) == ["first", "second", "third"]
    assert (steps.runs("first"), steps.runs("second"), steps.runs("third")) == (1, 2, 1)
    assert resumed.parent_run_id == state.parent_run_id, "the rerun logs into the run it started"
    run = client.get_run(resumed.parent_run_id)
    assert run.info.status == "FINISHED"
    assert set(run.data.metrics) == {"steps/first_seconds", "steps/second_seconds", "steps/third_seconds"}

    _run(tmp_path, tracking, steps)
    assert (steps.runs("first"), steps.runs("second"), steps.runs("third")) == (1, 2, 1), "nothing is redone"


def test_work_done_but_not_recorded_is_done_again(tmp_path: Path, tracking):
    """A kill between a step's work and its record: the state does not claim it, so the rerun redoes it."""

    def killed_after(name: str) -> None:
        if name == "second":
            raise Crash(name)

    steps = Steps(tmp_path)
    with pytest.raises(Crash):
        _run(tmp_path, tracking, steps, on_step=killed_after)
    assert list(StepState.load(str(tmp_path)).steps) == ["first"] and steps.runs("second") == 1
    _run(tmp_path, tracking, steps)
    assert (steps.runs("first"), steps.runs("second"), steps.runs("third")) == (1, 2, 1)


def test_a_slice_leaves_the_parent_run_open_until_every_step_is_recorded(tmp_path: Path, tracking):
    steps = Steps(tmp_path)
    runner = StepRunner("steps", steps.table(), StepState.load(str(tmp_path)))
    state = runner.run(tracking, lambda: Tracker.start(tracking, run_name="steps-test"), ["first"])
    client = Tracker(tracking).client
    assert client.get_run(state.parent_run_id).info.status == "RUNNING"
    runner.run(tracking, lambda: Tracker.start(tracking, run_name="unused"), ["second", "third"])
    assert client.get_run(state.parent_run_id).info.status == "FINISHED"
    forced = runner.run(tracking, lambda: Tracker.start(tracking, run_name="unused"), ["second"], force=True)
    assert steps.runs("second") == 2 and forced.steps["second"]["outputs"]["file"].endswith("second.txt")


def test_another_runners_step_redoes_a_built_step_and_records_it_where_the_build_reads_it(tmp_path: Path, tracking):
    """How an update retrains: its step remakes a step of the build, recorded in the build's state, logged in the
    update's run, with no second runner started inside it (the build's run is left as it was)."""
    built_dir, update_dir = tmp_path / "built", tmp_path / "update"
    built_dir.mkdir(), update_dir.mkdir()
    built = Steps(built_dir)
    build = StepRunner("steps", built.table(), StepState.load(str(built_dir)))
    build.run(tracking, lambda: Tracker.start(tracking, run_name="build"))
    client = Tracker(tracking).client
    built_run = client.get_run(build.state.parent_run_id)
    update = StepRunner(
        "update", {"retrain": lambda: build.redo("second", update.parent)}, StepState.load(str(update_dir))
    )
    state = update.run(tracking, lambda: Tracker.start(tracking, run_name="update"))
    assert built.runs("second") == 2 and (built.runs("first"), built.runs("third")) == (1, 1)
    assert state.outputs("retrain") == {"file": str(built_dir / "second.txt")}
    assert StepState.load(str(built_dir)).steps["second"]["outputs"] == state.outputs("retrain"), "the build reads it"
    assert set(client.get_run(state.parent_run_id).data.metrics) == {"steps/second_seconds", "update/retrain_seconds"}
    after = client.get_run(build.state.parent_run_id)
    assert after.info.status == "FINISHED" and after.data.metrics == built_run.data.metrics, (
        "the build's run untouched"
    )


def _runner(directory: Path, steps: Steps, settings: dict) -> StepRunner:
    """`second` reads `first`; `third` reads nothing; `settings` shapes each step."""
    reads = {"second": ("first",)}
    return StepRunner("steps", steps.table(), StepState.load(str(directory)), reads=reads, settings=settings)


def _lines(caplog) -> list[str]:
    """The runner's verdicts on recorded steps (not the headings of the steps it runs)."""
    return [
        r.getMessage() for r in caplog.records if r.name == "semcse.orchestration.steps" and r.getMessage()[0] in "✓↻!"
    ]


def test_a_step_whose_settings_changed_runs_again_with_the_steps_that_read_it(tmp_path: Path, tracking, caplog):
    """A changed recipe must not be answered with the earlier run's model, nor with outputs built on it."""
    steps = Steps(tmp_path)
    start = lambda: Tracker.start(tracking, run_name="steps-test")  # noqa: E731
    settings = {"first": {"lr": 1e-5, "mix": ("crops", "title")}, "third": {"k": 10}}
    _runner(tmp_path, steps, settings).run(tracking, start)
    _runner(tmp_path, steps, settings).run(tracking, start)
    assert (steps.runs("first"), steps.runs("second"), steps.runs("third")) == (1, 1, 1), "same settings: reused"

    caplog.clear()
    with caplog.at_level("INFO", logger="semcse.orchestration.steps"):
        _runner(tmp_path, steps, settings | {"first": {"lr": 3e-5, "mix": ["crops", "title"]}}).run(tracking, start)
    assert (steps.runs("first"), steps.runs("second"), steps.runs("third")) == (2, 2, 1)
    assert _lines(caplog) == [
        "↻ first: changed since the earlier run: lr 1e-05 → 3e-05; running it again",
        "↻ second: first was made again since it ran; running it again",
        "✓ third: done in an earlier run, skipped",
    ]
    assert StepState.load(str(tmp_path)).steps["first"]["settings"] == {"lr": 3e-5, "mix": ["crops", "title"]}

    caplog.clear()
    with caplog.at_level("INFO", logger="semcse.orchestration.steps"):
        _runner(tmp_path, steps, settings | {"third": {"k": 20}}).run(tracking, start, ["second", "third"])
    assert (steps.runs("first"), steps.runs("second"), steps.runs("third")) == (2, 2, 2)
    assert _lines(caplog) == [
        "! first: changed since the earlier run: lr 3e-05 → 1e-05, but this run does not include it, "
        "so its earlier outputs are used",
        "✓ second: done in an earlier run, skipped",
        "↻ third: changed since the earlier run: k 10 → 20; running it again",
    ]


def test_a_state_file_of_another_format_is_refused_with_what_to_do(tmp_path: Path, tracking):
    """A state file this version did not write (another format, or none recorded) is never read by guesswork."""
    import json

    from semcse.core.config import ConfigError

    _run(tmp_path, tracking, Steps(tmp_path))
    written = json.loads((tmp_path / "pipeline.json").read_text())
    assert written["format"] == 1 and all({"settings", "inputs"} <= set(r) for r in written["steps"].values())
    for unknown in ({**written, "format": 2}, {k: v for k, v in written.items() if k != "format"}):
        (tmp_path / "pipeline.json").write_text(json.dumps(unknown))
        with pytest.raises(
            ConfigError, match=r"pipeline.json is a state file of format (2|none).*run in another run_dir"
        ):
            StepState.load(str(tmp_path))


def test_a_setting_added_later_redoes_a_step_only_when_it_is_not_at_its_default(tmp_path: Path, tracking, caplog):
    """A version that adds a setting must not redo every finished run: the earlier run behaved as its default."""
    steps = Steps(tmp_path)
    start = lambda: Tracker.start(tracking, run_name="steps-test")  # noqa: E731
    reads = {"second": ("first",)}

    def runner(settings: dict) -> StepRunner:
        defaults = {"first": {"lr": 2e-5, "average": 0.0}, "third": {"k": 5}}
        state = StepState.load(str(tmp_path))
        return StepRunner("steps", steps.table(), state, reads=reads, settings=settings, defaults=defaults)

    runner({"first": {"lr": 1e-5}, "third": {"k": 10}}).run(tracking, start)  # the earlier version: no `average`
    with caplog.at_level("INFO", logger="semcse.orchestration.steps"):
        runner({"first": {"lr": 1e-5, "average": 0.0}, "third": {"k": 10}}).run(tracking, start)
    assert (steps.runs("first"), steps.runs("second"), steps.runs("third")) == (1, 1, 1)
    caplog.clear()
    with caplog.at_level("INFO", logger="semcse.orchestration.steps"):
        runner({"first": {"lr": 1e-5, "average": 0.5}, "third": {"k": 10}}).run(tracking, start)
    assert (steps.runs("first"), steps.runs("second"), steps.runs("third")) == (2, 2, 1)
    assert _lines(caplog)[0] == "↻ first: changed since the earlier run: average 0.0 → 0.5; running it again"
    # a setting that is gone, or a default the run overrides, still counts
    assert changed_settings({"lr": 1e-5, "old": 1}, {"lr": 1e-5}, {"lr": 2e-5}) == "old 1 → None"
    assert changed_settings({"lr": 1e-5}, {"lr": 2e-5}, {"lr": 2e-5}) == "lr 1e-05 → 2e-05"
