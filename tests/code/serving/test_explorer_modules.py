"""The explorer's modules (semcse/apps/static/*.js) under Node's own test runner: tests/js/*.test.mjs.

They test what needs no browser: the view's encoding in the URL's fragment, the latest-request-wins
helper, the viewport's transforms, the spatial grid, the colours and what the panels say. The browser
tests (test_explorer.py) keep what only a browser shows.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.paths import REPO

NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is absent: install Node.js (20 or later) to run tests/js/")
def test_the_explorer_modules_pass_their_node_tests() -> None:
    files = sorted(str(path.relative_to(REPO)) for path in (REPO / "tests" / "js").glob("*.test.mjs"))
    assert files, "no tests in tests/js/"
    run = subprocess.run(
        [str(NODE), "--test", *files], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, f"node --test failed:\n{run.stdout}\n{run.stderr}"
