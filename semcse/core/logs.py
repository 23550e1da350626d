"""Readable output: our own lines once, third-party chatter filtered at its source; verbose brings it all back.

The library reports through `logging` only (loggers under `semcse`, never `print` or a console
object); this module decides how a record reads. A record is one line, `[semcse] …`, or
`[semcse <stage>] …` when it carries `extra=stage("train")`; `HEADING` marks a record that opens a
section (a pipeline step) and `BLOCK` one that is a table, printed as it is. `configure` installs the
plain rendering of that (`LineFormatter`, on whatever `sys.stderr` is when a record is written);
the CLI passes its own handler, which draws headings as rules. Ray workers use the plain one, and
Ray forwards their stderr to the driver's terminal, so a training worker's line appears there once.

A run's output comes from many processes (the driver, Ray Train's controller and workers, Ray Data
actors, Serve replicas), each with its own copies of Ray's, DeepSpeed's and transformers' loggers.
So the settings travel two ways: environment variables that libraries read when they start
(`worker_env`, passed in Ray's runtime environment) and a setup hook every Ray worker runs
(`runtime.worker_setup`, which calls `configure`). Quiet mode lowers named third-party loggers,
progress bars and known deprecation warnings; it never touches errors, and our own library
loggers stay at INFO. One native line of Ray's that no logging setting reaches (`NATIVE_NOISE`) is dropped where
workers forward it; the driver writes it once per actor pool, and it stays there.

Verbose: `semcse -v …`, or `SEMCSE_LOG_LEVEL=DEBUG` (or INFO) in the environment.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

LEVEL_ENV = "SEMCSE_LOG_LEVEL"
VERBOSE_LEVELS = {"DEBUG", "INFO"}

# Loggers that report routine progress at INFO (or spurious WARNINGs) which our own lines already say.
THIRD_PARTY_LEVELS: dict[str, int] = {
    # announces at every local start that Ray's default token authentication is on (the README says so)
    "ray._private.authentication.authentication_token_setup": logging.ERROR,
    "ray.train": logging.WARNING,
    "ray.tune": logging.WARNING,
    "ray.serve": logging.WARNING,
    "mlflow": logging.WARNING,
    "alembic": logging.WARNING,
    "sentence_transformers": logging.WARNING,
    "transformers": logging.ERROR,
    "huggingface_hub": logging.ERROR,
    "datasets": logging.WARNING,
    "httpx": logging.WARNING,
    "DeepSpeed": logging.ERROR,  # "get learning rate from scheduler before it has started" at every first step
    "torch.distributed": logging.WARNING,
}

# Deprecations raised inside dependencies (not by our calls); each is listed with its source.
KNOWN_WARNINGS: list[tuple[type[Warning], str]] = [
    (FutureWarning, r".*all_gather_into_tensor.* is deprecated"),  # DeepSpeed's ZeRO collectives
    (FutureWarning, r".*_all_gather_base.* is deprecated"),  # DeepSpeed's ZeRO collectives
    (UserWarning, r".*TypedStorage is deprecated"),  # DeepSpeed checkpoints
]

# Ray's native (C++) log line that nothing can be done about: its core worker logs at ERROR, for actors of its own
# libraries (Ray Data's map workers), that their restartable constructor arguments sit in the object store
# (ray-project/ray#53727). Ray drops it where workers forward it (QUIET_ENV); the driver's own copy stays.
NATIVE_NOISE = [r"Actor with class name: .* has constructor arguments in the object store"]

# Read by libraries when they start; Ray workers get them through the runtime environment.
QUIET_ENV = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",  # transformers' "Loading weights" / "Writing model shards" bars too
    # huggingface_hub sets its logger's level from this when it is imported, which in a training worker comes after
    # `configure`; it logs on child loggers, which a filter on its own (`_quiet`) does not reach
    "HF_HUB_VERBOSITY": "error",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "MLFLOW_LOGGING_LEVEL": "WARNING",
    # Read by the driver when it imports Ray: forwarded worker lines that match are not printed.
    "RAY_DEDUP_LOGS_SKIP_REGEX": "|".join(NATIVE_NOISE),
}
# Always: Ray Train would otherwise tee every `print` of a training worker into its logger as well,
# and both copies reach the driver.
ALWAYS_ENV = {"RAY_TRAIN_ENABLE_PRINT_PATCH": "0"}


def verbose() -> bool:
    return os.environ.get(LEVEL_ENV, "").upper() in VERBOSE_LEVELS


def set_verbose(enabled: bool) -> None:
    """The CLI's `--verbose`: recorded in the environment so that every later process inherits it."""
    if enabled:
        os.environ[LEVEL_ENV] = "DEBUG"


def ray_level() -> str:
    """The console level of Ray itself and of Ray Train (`LoggingConfig`) and Ray Serve (controller, proxy,
    replicas; request access lines are INFO); their system log files keep everything."""
    return "DEBUG" if verbose() else "WARNING"


def worker_env() -> dict[str, str]:
    """Environment variables for every Ray worker of this job (the driver's own settings come along)."""
    env = dict(ALWAYS_ENV)
    if verbose():
        env[LEVEL_ENV] = os.environ[LEVEL_ENV]
    else:
        env |= {key: os.environ.get(key, value) for key, value in QUIET_ENV.items()}
    return env


HEADING = {"heading": True}
BLOCK = {"block": True}


def counted(count: int, noun: str) -> str:
    """`1 worker`, `2 workers`: a count and its noun as a line reads them (nouns that take an `s`)."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def stage(name: str) -> dict[str, str]:
    """`extra` of a record that belongs to a stage: it reads `[semcse <name>] …`."""
    return {"stage": name}


class LineFormatter(logging.Formatter):
    """One line per record: `[semcse] message`, `[semcse <stage>] message`, `── heading ──`, or a block as it is."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info:
            message = f"{message}\n{self.formatException(record.exc_info)}"
        if getattr(record, "heading", False):
            return f"── {message} ──"
        if getattr(record, "block", False):
            return message
        name = getattr(record, "stage", None)
        return f"[semcse {name}] {message}" if name else f"[semcse] {message}"


class StderrHandler(logging.Handler):
    """Writes to the `sys.stderr` of the moment (a test's capture, a console's redirect), not the one at setup."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(LineFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


def configure(handler: logging.Handler | None = None) -> None:
    """Apply the output settings in this process (driver or Ray worker); safe to call more than once.

    `handler` (the CLI's) replaces how our records are shown; without one, the plain line handler is
    installed unless one already is.
    """
    for key, value in ALWAYS_ENV.items():
        os.environ.setdefault(key, value)
    ours = logging.getLogger("semcse")
    ours.setLevel(logging.DEBUG if verbose() else logging.INFO)
    if handler is not None:
        for old in list(ours.handlers):
            ours.removeHandler(old)
        ours.addHandler(handler)
    elif not ours.handlers:
        ours.addHandler(StderrHandler())
    ours.propagate = False
    if verbose():
        for name in THIRD_PARTY_LEVELS:
            _quiet(logging.getLogger(name), None)
        return
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    for name, level in THIRD_PARTY_LEVELS.items():
        _quiet(logging.getLogger(name), level)
    report_logger = _ray_train_report_logger()
    if report_logger is not None:
        logging.getLogger(report_logger).setLevel(logging.WARNING)
    for category, message in KNOWN_WARNINGS:
        warnings.filterwarnings("ignore", message=message, category=category)
    if "transformers" in sys.modules:  # imported before the environment was set: its own switches
        import transformers

        transformers.utils.logging.set_verbosity_error()
        transformers.utils.logging.disable_progress_bar()


class _AtLeast(logging.Filter):
    """Drops the records logged on one logger below `level`. A level alone does not hold: DeepSpeed sets its logger
    to WARNING whenever it is imported, which in a driver or a worker comes after `configure` (and its "Setting
    accelerator to CPU" warning passes); a logger's filters outlive that. A filter sees only records logged on its
    own logger, not on its children: libraries that log on children are quieted by their level (and QUIET_ENV)."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= self.level


def _quiet(logger: logging.Logger, level: int | None) -> None:
    """Lower a third-party logger to `level`, also past the library setting its own level later; `None` takes our
    filter off again (verbose after quiet, in one process)."""
    for old in [f for f in logger.filters if isinstance(f, _AtLeast)]:
        logger.removeFilter(old)
    if level is not None:
        logger.setLevel(level)
        logger.addFilter(_AtLeast(level))


def _ray_train_report_logger() -> str | None:
    """Ray Train logs every `ray.train.report` call ("Reporting training result N: …") at INFO on a logger
    named after its source file, outside `ray.train`, so neither its LoggingConfig nor a parent logger
    reaches it."""
    import importlib.util

    spec = importlib.util.find_spec("ray")
    if spec is None or spec.origin is None:
        return None
    return os.path.join(os.path.dirname(spec.origin), "train", "v2", "_internal", "execution", "context.py")


class _DropRayDataProgressNotice(logging.Filter):
    """Drops Ray Data's "Progress bars disabled. To enable, …" notice, which quiet mode itself causes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Progress bars disabled")


def quiet_ray_data() -> None:
    """The driver's Ray Data: no execution-plan INFO lines and no progress of its own (our stages draw one bar).

    Ray Data configures its `ray.data` logger with a console handler at INFO when it is imported;
    only that handler is raised, so its log file keeps everything.
    """
    if verbose():
        return
    import ray.data

    ray.data.DataContext.get_current().enable_progress_bars = False
    for handler in logging.getLogger("ray.data").handlers:
        if not isinstance(handler, logging.FileHandler):
            handler.setLevel(logging.WARNING)
            handler.addFilter(_DropRayDataProgressNotice())
