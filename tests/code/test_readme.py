"""The README and every page in docs/ are read and checked, so they cannot rot.

In each page, every `semcse ...` line of a shell block must name a real command and only options that
command has; every `make` target it mentions must exist; every relative link must reach a file of the
repository (and, with a `#fragment`, a heading of that file); the `semcse corpus` commands that need
nothing but the shipped examples run for real. No page names the data directory's default location:
pages say `$SEMCSE_DATA`, the one setting (`semcse.core.resources.data_dir`).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from semcse.cli import app
from semcse.core.resources import DEFAULT_DATA
from tests.paths import REPO, mlflow_uri

README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").rglob("*.md"))]
NAMES = [str(page.relative_to(REPO)) for page in PAGES]


def _shell_blocks(text: str) -> list[str]:
    """A page's shell code blocks (fences with no language, bash, sh or console), indented ones included."""
    blocks, current, language = [], None, ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            if current is None:
                current, language = [], stripped[3:].strip()
            else:
                if language in {"", "bash", "sh", "console"}:
                    blocks.append("\n".join(current))
                current = None
        elif current is not None:
            current.append(stripped)
    return blocks


def _code_lines(text: str) -> list[str]:
    """Command lines from the shell blocks, with continuations joined and comments cut."""
    lines: list[str] = []
    for block in _shell_blocks(text):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.split("  #")[0].strip()
            line = re.sub(r"^\$ ", "", line)
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def _semcse_commands(text: str) -> list[list[str]]:
    commands = []
    for line in _code_lines(text):
        for part in re.split(r"\s*(?:&&|;|\|)\s*", line):
            if not re.match(r"(?:[A-Z_]+=\S*\s+)*semcse\s", part + " "):
                continue  # other tools' lines (and diagrams in plain fences) are not shell-parsed
            words = shlex.split(part)
            while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                words = words[1:]
            if words and words[0] == "semcse":
                commands.append(words[1:])
    return commands


def _resolve(page: str, argv: list[str]) -> tuple[Any, list[str]]:
    """Walk `semcse a b ...` down the command tree (typer vendors click, so go by `.commands`)."""
    command = typer.main.get_command(app)
    rest = list(argv)
    while getattr(command, "commands", None) and rest and not rest[0].startswith("-"):
        name = rest.pop(0)
        assert name in command.commands, f"{page} uses unknown command: semcse {' '.join(argv)}"
        command = command.commands[name]
    return command, rest


def _unknown_options(page: str, argv: list[str]) -> list[str]:
    command, rest = _resolve(page, argv)
    known = {
        opt for param in command.params for opt in getattr(param, "opts", []) + getattr(param, "secondary_opts", [])
    }
    known |= {"--help"}
    return [word.split("=", 1)[0] for word in rest if word.startswith("--") and word.split("=", 1)[0] not in known]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    body = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", body, flags=re.M)}


def _broken_links(page: Path) -> list[str]:
    text = page.read_text()
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # an absolute URL
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if path and not (linked.exists() and linked.is_relative_to(REPO)):
            broken.append(f"{target} (no such file)")
        elif fragment and linked.suffix == ".md" and fragment not in _anchors(linked.read_text()):
            broken.append(f"{target} (no such heading)")
    return broken


COMMANDS = [(name, argv) for page, name in zip(PAGES, NAMES) for argv in _semcse_commands(page.read_text())]


def _link_targets(page: Path) -> set[Path]:
    return {
        (page.parent / target.partition("#")[0]).resolve()
        for target in re.findall(r"\]\(([^)\s#][^)\s]*)\)", page.read_text())
        if not re.match(r"[a-z]+:", target)
    }


def test_the_readme_is_the_front_door():
    text = README.read_text()
    assert "make demo" in text and "make test" in text
    assert "## Results" in text and "| base |" in text, "the README lost its results table"
    linked = set().union(*(_link_targets(page) for page in PAGES))
    unlinked = [name for page, name in zip(PAGES[1:], NAMES[1:]) if page.resolve() not in linked]
    assert not unlinked, f"pages no other page links to: {unlinked}"
    assert len(COMMANDS) >= 30, "the guides lost their examples"


@pytest.mark.parametrize("page,argv", COMMANDS, ids=[f"{n}: {' '.join(a)[:50]}" for n, a in COMMANDS])
def test_commands_name_real_options(page, argv):
    unknown = _unknown_options(page, argv)
    assert not unknown, f"{page}: `semcse {' '.join(argv)}` uses {unknown}, which the command does not have"


@pytest.mark.parametrize("page", PAGES, ids=NAMES)
def test_make_targets_exist(page):
    text = page.read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", (REPO / "Makefile").read_text(), flags=re.M))
    mentioned = set(re.findall(r"`make ([a-z-]+)", text)) | set(re.findall(r"^\s*make ([a-z-]+)", text, re.M))
    assert mentioned <= targets, f"{page.name} mentions make {sorted(mentioned - targets)}: no such target"


@pytest.mark.parametrize("page", PAGES, ids=NAMES)
def test_links_reach_files_and_headings(page):
    assert not _broken_links(page), f"{page.name}: broken links {_broken_links(page)}"


@pytest.mark.parametrize("page", PAGES, ids=NAMES)
def test_pages_name_the_data_setting_not_its_default(page):
    assert DEFAULT_DATA not in page.read_text(), f"{page.name} names {DEFAULT_DATA}: write $SEMCSE_DATA/…"


SETTING = REPO / "semcse" / "core" / "resources.py"
OUTSIDE = str(Path(DEFAULT_DATA).parent)  # the directory beside the checkout that a clone does not have


def test_no_file_names_the_directory_beside_the_checkout_but_the_data_setting():
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, text=True
    )
    if listed.returncode != 0:
        pytest.skip(f"not a git checkout: {listed.stderr.strip()}")
    files = [REPO / name for name in listed.stdout.splitlines()]
    texts = [f for f in files if f.is_file() and f != SETTING and f.suffix not in {".png", ".parquet", ".whl"}]
    naming = [str(f.relative_to(REPO)) for f in texts if OUTSIDE in f.read_text(errors="replace")]
    assert not naming, f"{naming} name {OUTSIDE}: read semcse.core.resources.data_dir() (SEMCSE_DATA) instead"


def test_the_checks_can_fail(tmp_path):
    """Each check above reports a page that breaks its rule."""
    assert _semcse_commands("```bash\nsemcse corpus validate x --no-such-flag  # a comment\n```") == [
        ["corpus", "validate", "x", "--no-such-flag"]
    ]
    assert _unknown_options("probe", ["corpus", "validate", "x", "--no-such-flag"]) == ["--no-such-flag"]
    with pytest.raises(AssertionError, match="unknown command"):
        _resolve("probe", ["no-such-stage"])
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n[ok](#a-page) [gone](missing.md) [bad](#nowhere) [web](https://example.org)\n")
    assert _broken_links(page) == ["missing.md (no such file)", "#nowhere (no such heading)"]
    assert _slug("Living corpora (`semcse pipeline --add`)") == "living-corpora-semcse-pipeline---add"


RUNNABLE = [(n, c) for n, c in COMMANDS if c[:1] == ["corpus"] and c[2:3] and c[2].startswith("examples/")]


@pytest.mark.parametrize("page,argv", RUNNABLE, ids=[f"{n}: {' '.join(a)[:50]}" for n, a in RUNNABLE])
def test_sample_commands_run(page, argv, tmp_path, monkeypatch, mlflow_store):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(REPO / "examples")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", mlflow_uri(mlflow_store))
    result = CliRunner().invoke(app, argv)
    expected_error = any(w.startswith("training.batch_sise") for w in argv)
    assert (result.exit_code == 2) if expected_error else (result.exit_code == 0), result.output


def test_the_readme_results_are_the_cited_raw_results():
    """The README's LLM-free tables (recipes, and from scratch) are not hand-copied: each is what
    `benchmarks/quality.py --summarise` prints from the raw JSON the README cites, line for line."""
    text = README.read_text()
    cited = re.findall(r"benchmarks/results/quality-(?:recipes|scratch)-[0-9a-f]+\.json", text)
    assert {name.split("-")[1] for name in cited} == {"recipes", "scratch"}, cited
    paths = list(dict.fromkeys(cited))
    done = subprocess.run(  # one process for every table: each start imports torch and Ray
        [sys.executable, "benchmarks/quality.py", "--summarise", *paths],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert sum(line.startswith("|---") for line in lines) == len(paths), done.stdout  # a table for each file
    assert all(line in text.splitlines() for line in lines), "\n".join(lines)
