"""The README is the front door: its commands are read from it and checked, so it cannot rot.

Every `semcse ...` line must name a real command and only options that command has; every
`make` target it mentions must exist; the commands that need nothing but the shipped sample run
for real.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from semcse.cli import app
from tests.paths import REPO

README = (REPO / "README.md").read_text()


def _shell_blocks() -> list[str]:
    """The README's shell code blocks (fences with no language, bash, sh or console)."""
    blocks, current, language = [], None, ""
    for line in README.splitlines():
        if line.startswith("```"):
            if current is None:
                current, language = [], line[3:].strip()
            else:
                if language in {"", "bash", "sh", "console"}:
                    blocks.append("\n".join(current))
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def _code_lines() -> list[str]:
    """Command lines from the shell blocks, with continuations joined and comments cut."""
    lines: list[str] = []
    for block in _shell_blocks():
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.split("  #")[0].strip()
            line = re.sub(r"^\$ ", "", line)
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def _semcse_commands() -> list[list[str]]:
    commands = []
    for line in _code_lines():
        for part in re.split(r"\s*(?:&&|;|\|)\s*", line):
            words = shlex.split(part)
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words = words[1:]
            if words and words[0] == "semcse":
                commands.append(words[1:])
    return commands


def _resolve(argv: list[str]) -> tuple[Any, list[str]]:
    """Walk `semcse a b ...` down the command tree (typer vendors click, so go by `.commands`)."""
    command = typer.main.get_command(app)
    rest = list(argv)
    while getattr(command, "commands", None) and rest and not rest[0].startswith("-"):
        name = rest.pop(0)
        assert name in command.commands, f"README uses unknown command: semcse {' '.join(argv)}"
        command = command.commands[name]
    return command, rest


COMMANDS = _semcse_commands()


def test_readme_has_commands():
    assert len(COMMANDS) >= 5
    assert "make demo" in README and "make test" in README


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(c)[:60] for c in COMMANDS])
def test_readme_command_names_real_options(argv):
    command, rest = _resolve(argv)
    known = {
        opt for param in command.params for opt in getattr(param, "opts", []) + getattr(param, "secondary_opts", [])
    }
    known |= {"--help"}
    for word in rest:
        if word.startswith("--"):
            flag = word.split("=", 1)[0]
            assert flag in known, f"README: `semcse {' '.join(argv)}` uses {flag}, which the command does not have"


def test_make_targets_exist():
    makefile = (REPO / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, flags=re.M))
    for target in set(re.findall(r"`make ([a-z-]+)`", README)) | set(re.findall(r"^make ([a-z-]+)", README, re.M)):
        assert target in targets, f"README mentions `make {target}` but the Makefile has no such target"


RUNNABLE = [c for c in COMMANDS if c[:1] == ["corpus"] and c[2:3] and c[2].startswith("examples/")]


@pytest.mark.parametrize("argv", RUNNABLE, ids=[" ".join(c)[:60] for c in RUNNABLE])
def test_readme_sample_commands_run(argv, tmp_path, monkeypatch, mlflow_store):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(REPO / "examples")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{mlflow_store / 'mlflow.db'}")
    result = CliRunner().invoke(app, argv)
    expected_error = any(w.startswith("training.batch_sise") for w in argv)
    assert (result.exit_code == 2) if expected_error else (result.exit_code == 0), result.output
