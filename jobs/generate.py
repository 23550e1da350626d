"""`ray job submit -- python jobs/generate.py --config demo --set generation.limit=8`

The same as `semcse generate --json`, for Ray jobs: the job's driver runs on the cluster, joins it via
RAY_ADDRESS (set by `ray job submit`), and prints the run report as JSON. Exit status 2: a
configuration or data problem, reported before any work started.
"""

from __future__ import annotations

import sys

from semcse.cli import app


def main(argv: list[str] | None = None) -> int:
    """Run `semcse generate --json` with these arguments; returns its exit status."""
    try:
        app(["generate", "--json", *(sys.argv[1:] if argv is None else argv)])
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
