"""`--help` reads as written: every paragraph of a command's docstring and every option's help text is
reflowed to the terminal, never broken where the source line happened to end, and no word is lost to markup.

Rendered on a very wide terminal, each paragraph (whitespace collapsed) must then stand on one line of
the output, word for word: a hard break kept from the docstring splits it over two lines, and markup
that swallows text (`<name>` as an HTML tag, `[#pooling]` as a style) leaves it incomplete.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from semcse.cli import app

WIDE = 2000


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(typer.main.get_command(app)))


def _flat(text: str) -> str:
    """Whitespace collapsed; inline-code backticks dropped (they render as a style, not as characters)."""
    return " ".join(text.replace("`", "").split())


def _paragraphs(command: Any) -> list[str]:
    help_text = inspect.cleandoc(command.help or "").partition("\f")[0]
    paragraphs = [p for p in help_text.split("\n\n") if p.strip()]
    for param in command.params:
        paragraphs += [p for p in (getattr(param, "help", None) or "").split("\n\n") if p.strip()]
    return [_flat(p) for p in paragraphs]


def _rendered_lines(path: tuple[str, ...]) -> list[str]:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(WIDE), "TERMINAL_WIDTH": str(WIDE)})
    assert result.exit_code == 0, result.output
    return [_flat(re.sub(r"[│╭╮╰╯─]", " ", line)) for line in result.output.splitlines()]


def _not_on_one_line(paragraphs: list[str], lines: list[str]) -> list[str]:
    return [p for p in paragraphs if not any(p in line for line in lines)]


@pytest.mark.parametrize("path,command", COMMANDS, ids=[" ".join(p) or "semcse" for p, _ in COMMANDS])
def test_help_paragraphs_reflow_whole(path, command):
    lines = _rendered_lines(path)
    broken = _not_on_one_line(_paragraphs(command), lines)
    assert not broken, (
        f"`semcse {' '.join(path)} --help` does not show these paragraphs on one line each (a hard line break "
        "kept from the source, or markup that ate a word):\n"
        + "\n".join(broken)
        + "\n--- rendered:\n"
        + "\n".join(lines)
    )


def test_the_check_catches_a_hard_break_and_a_lost_word():
    paragraph = _flat("A paragraph written over two lines that\n continue one sentence.")
    assert _not_on_one_line([paragraph], ["A paragraph written over two lines that continue one sentence."]) == []
    assert _not_on_one_line([paragraph], ["A paragraph written over two lines that", "continue one sentence."])
    assert _not_on_one_line(["aspect:<name>."], ["summary | aspect:."])
