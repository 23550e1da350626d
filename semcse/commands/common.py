"""What every `semcse` command shares: the consoles, the `--config`/`--set` options, the run config they
build, and the one way a user error ends a command (one red line, exit status 2)."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from semcse.core import storage
from semcse.core.config import ConfigError, RunConfig, load_config
from semcse.core.logs import LineFormatter

console = Console()
err_console = Console(stderr=True)

ConfigOpt = Annotated[
    str | None,
    typer.Option("--config", "-c", help="Run config: a YAML file, or a shipped one by name (demo, semcse-paper, …)."),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", help="Override a config value, e.g. --set training.batch_size=16 (repeatable)."),
]
P = ParamSpec("P")
R = TypeVar("R")


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn expected user errors into one red line and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        from semcse.core.data.embeddings import EmbeddingError
        from semcse.core.data.generated import GeneratedDataError
        from semcse.core.data.io import CorpusError
        from semcse.core.runtime import RayUnavailable
        from semcse.core.vector_index import VectorIndexError
        from semcse.models.aspects import MissingAspectError
        from semcse.stages.evaluation.inputs import EvaluationDataError
        from semcse.stages.generation import GenerationIncomplete

        try:
            return func(*args, **kwargs)
        except (
            ConfigError,
            CorpusError,
            EmbeddingError,
            EvaluationDataError,
            GeneratedDataError,
            GenerationIncomplete,
            MissingAspectError,
            RayUnavailable,
            VectorIndexError,
            FileNotFoundError,
            storage.StorageError,
        ) as exc:
            fail(exc)

    return wrapper


def fail(problem: Exception) -> NoReturn:
    """One red `error:` line (never wrapped, so a log search finds it whole) and exit status 2."""
    err_console.print(f"[bold red]error:[/] {escape(str(problem))}", highlight=False, soft_wrap=True)
    raise typer.Exit(2) from None


def build_config(config: str | Path | None, overrides: list[str] | None, **flags: Any) -> RunConfig:
    """Config file < --set overrides < explicit flags (flags given as `section.key` → value)."""
    extra = [f"{key}={json.dumps(value)}" for key, value in flags.items() if value is not None]
    return load_config(config, [*(overrides or []), *extra])


class ConsoleLog(logging.Handler):
    """How the library's log records look in a terminal: a rule per heading (a pipeline step), a line per event.

    Lines read as `semcse.core.logs.LineFormatter` writes them in Ray workers, so the driver's and the
    workers' lines look alike; records go to stderr, leaving stdout to each command's results.
    """

    def __init__(self, target: Console) -> None:
        super().__init__()
        self.target = target
        self.setFormatter(LineFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if getattr(record, "heading", False):
                self.target.rule(f"[bold]{escape(record.getMessage())}")
            else:
                self.target.print(self.format(record), markup=False, highlight=False, soft_wrap=True)
        except Exception:
            self.handleError(record)


def named_refs(values: list[str] | None, what: str) -> dict[str, str]:
    """`[aspect=]ref` options → {aspect: ref}; a bare ref belongs to the single-vector aspect ""."""
    refs = {}
    for value in values or []:
        aspect, _, ref = value.rpartition("=") if "=" in value else ("", "", value)
        refs[aspect] = ref
    if not refs:
        raise ConfigError(f"give at least one {what}")
    return refs


def value_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Bad map/decoder inputs (ValueError) are user errors too: one red line, exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc

    return wrapper
