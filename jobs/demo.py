"""The demo: the main job on the embedded default (local Ray, CPU, sqlite MLflow, sample corpus).

Runs the stages that exist in order through the same `semcse` commands a user would type, so the
demo can never drift from the CLI. Works as `python jobs/demo.py` and under `ray job submit`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from semcse.cli import app
from semcse.config import load_config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="jobs/configs/demo.yaml", help="Run config (YAML).")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value override.")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    corpus = cfg.corpus.path
    if corpus is None or not Path(corpus).exists():
        print(f"demo: corpus.path {corpus!r} does not exist", file=sys.stderr)
        return 2
    common = ["--config", args.config, *(x for o in args.overrides for x in ("--set", o))]
    steps = [
        ["corpus", "stats", corpus, *common],
        ["corpus", "validate", corpus, "--out", str(Path(cfg.run_dir) / "corpus"), *common],
    ]
    for step in steps:
        print(f"\n$ semcse {' '.join(step)}", flush=True)
        try:
            app(step, standalone_mode=False)
        except SystemExit as stop:
            if stop.code:
                return int(stop.code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
