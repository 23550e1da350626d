"""Quiet by default, everything with --verbose: the settings that reach the driver and every Ray worker."""

from __future__ import annotations

import logging
import os
import warnings

import pytest

from semcse.core import logs


@pytest.fixture
def restore_logging(monkeypatch: pytest.MonkeyPatch):
    saved = {
        name: (logging.getLogger(name).level, list(logging.getLogger(name).filters))
        for name in logs.THIRD_PARTY_LEVELS
    }
    monkeypatch.delenv(logs.LEVEL_ENV, raising=False)
    with warnings.catch_warnings():
        yield monkeypatch
    for name, (level, filters) in saved.items():
        logging.getLogger(name).setLevel(level)
        logging.getLogger(name).filters = filters
    os.environ.pop(logs.LEVEL_ENV, None)


def test_quiet_mode_turns_down_third_parties_but_not_errors_or_our_own_lines(restore_logging) -> None:
    logs.configure()
    assert logging.getLogger("transformers").getEffectiveLevel() == logging.ERROR
    assert logging.getLogger("ray.train").getEffectiveLevel() == logging.WARNING
    assert logging.getLogger("semcse.stages.training").isEnabledFor(logging.INFO)
    assert logging.getLogger("ray.train").isEnabledFor(logging.ERROR)
    with warnings.catch_warnings(record=True) as caught:
        warnings.warn("`torch.distributed.all_gather_into_tensor` is deprecated", FutureWarning, stacklevel=1)
        warnings.warn("something else is deprecated", FutureWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["something else is deprecated"]
    env = logs.worker_env()
    assert env["RAY_TRAIN_ENABLE_PRINT_PATCH"] == "0" and env["HF_HUB_DISABLE_PROGRESS_BARS"] == "1"
    assert logs.ray_level() == "WARNING"


def test_verbose_reaches_workers_and_keeps_third_party_output(restore_logging) -> None:
    logs.set_verbose(True)
    assert logs.verbose() and logs.ray_level() == "DEBUG"
    env = logs.worker_env()
    assert env[logs.LEVEL_ENV] == "DEBUG" and "HF_HUB_DISABLE_PROGRESS_BARS" not in env
    assert env["RAY_TRAIN_ENABLE_PRINT_PATCH"] == "0"  # our lines once, verbose or not


def test_records_read_one_line_per_event_with_their_stage() -> None:
    formatter = logs.LineFormatter()

    def line(message: str, **extra: object) -> str:
        return formatter.format(logging.makeLogRecord({"msg": message, "levelno": logging.INFO, **extra}))

    assert line("connected") == "[semcse] connected"
    assert line("step 10/40 loss 1.9", **logs.stage("train")) == "[semcse train] step 10/40 loss 1.9"
    assert line("train", **logs.HEADING) == "── train ──"
    assert line("| a | b |\n|---|---|", **logs.BLOCK) == "| a | b |\n|---|---|"


def test_the_plain_handler_writes_to_the_stderr_of_the_moment(capsys: pytest.CaptureFixture[str]) -> None:
    """A handler holding the stream it was built with would write past a test's (or a console's) capture."""
    ours = logging.getLogger("semcse")
    before = list(ours.handlers)
    try:
        logs.configure(logs.StderrHandler())
        logging.getLogger("semcse.stages.training.loop").info("eval step 0", extra=logs.stage("train"))
        logging.getLogger("semcse.orchestration.pipeline").info("validate", extra=logs.HEADING)
        captured = capsys.readouterr()
        assert captured.err == "[semcse train] eval step 0\n── validate ──\n" and captured.out == ""
    finally:
        ours.handlers[:] = before


def test_the_cli_draws_headings_as_rules_and_events_as_plain_lines() -> None:
    import io

    from rich.console import Console

    from semcse.commands.common import ConsoleLog

    screen = io.StringIO()
    handler = ConsoleLog(Console(file=screen, width=30, color_system=None))
    for message, extra in (("train", logs.HEADING), ("best step [20]: 2.9", logs.stage("train"))):
        handler.handle(logging.makeLogRecord({"msg": message, "levelno": logging.INFO, **extra}))
    rule, event = screen.getvalue().splitlines()
    assert rule.strip("─ ") == "train" and len(rule) == 30
    assert event == "[semcse train] best step [20]: 2.9"  # no markup, no wrapping


def test_the_library_reports_through_logging_only() -> None:
    """No print and no console in `semcse` (the CLI, `cli.py` and its `commands/`, is the one entry point there
    and decides the look)."""
    import ast
    from pathlib import Path

    import semcse

    offenders = []
    for path in Path(semcse.__file__).parent.rglob("*.py"):
        if path.name == "cli.py" or path.parent.name == "commands":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                offenders.append(f"{path.name}:{node.lineno} print")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rich"):
                offenders.append(f"{path.name}:{node.lineno} imports {node.module}")
    assert not offenders, offenders


def test_rays_restartable_actor_error_lines_never_reach_the_driver_but_other_errors_do() -> None:
    """The driver's log deduplicator reads its skip pattern when Ray is imported: after `configure`, in a fresh
    process as the CLI runs, it drops Ray's own actor-restart line and keeps any other worker error."""
    import subprocess
    import sys

    script = (
        "from semcse.core import logs; logs.configure(); "
        "from ray._private.ray_logging import stderr_deduplicator as d; "
        'line = "[2026-11-25 21:36:23,834 E 15013 15041] core_worker.cc:2465: Actor with class name: '
        "'PreemptionWatcher' and ID: '13854f' has constructor arguments in the object store and max_restarts > 0.\"; "
        "print(bool(d.skip_re and d.skip_re.search(line)), bool(d.skip_re and d.skip_re.search('ValueError: bad')))"
    )
    env = {k: v for k, v in os.environ.items() if k not in {logs.LEVEL_ENV, "RAY_DEDUP_LOGS_SKIP_REGEX"}}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "False"]


@pytest.mark.parametrize("level", ["", "DEBUG"], ids=["quiet", "verbose"])
def test_libraries_imported_after_configure_stay_quiet_unless_verbose(level: str) -> None:
    """A training worker imports DeepSpeed and transformers after `configure` (its setup hook), and each library
    sets its own logger's level then: without a GPU, DeepSpeed warns that it is "Setting accelerator to CPU";
    huggingface_hub's loggers (children of its own) would pass its warnings."""
    import subprocess
    import sys

    script = (
        "import logging; from semcse.core import logs; logs.configure(); "
        "from deepspeed.accelerator import get_accelerator; print(get_accelerator().device_name()); "
        "import transformers; logging.getLogger('huggingface_hub.file_download').warning('a hub warning')"
    )
    started = {logs.LEVEL_ENV, "DS_ACCELERATOR", *logs.QUIET_ENV}  # as a fresh command starts: nothing set yet
    env = {k: v for k, v in os.environ.items() if k not in started}
    env |= {logs.LEVEL_ENV: level, "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    output = done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "cpu"
    assert ("Setting accelerator to CPU" in output) == (level == "DEBUG"), output[-2000:]
    assert ("a hub warning" in output) == (level == "DEBUG"), output[-2000:]


def test_verbose_after_quiet_in_one_process_lets_third_parties_speak_again(restore_logging) -> None:
    logs.configure()
    record = logging.makeLogRecord({"name": "DeepSpeed", "levelno": logging.WARNING, "msg": "from DeepSpeed"})
    assert not logging.getLogger("DeepSpeed").filter(record)
    logs.set_verbose(True)
    logs.configure()
    assert logging.getLogger("DeepSpeed").filter(record)


@pytest.mark.parametrize(("count", "line"), [(1, "1 worker"), (2, "2 workers"), (0, "0 workers")])
def test_counts_read_as_a_person_writes_them(count: int, line: str) -> None:
    assert logs.counted(count, "worker") == line
