"""`ray job submit` entry point for ablation studies (also runs as plain `python tune/run.py`).

    ray job submit --working-dir . -- python tune/run.py --study semcse-objective \
        --set training.texts=runs/demo/texts --set training.base_model=/models/all-MiniLM-L6-v2

Inside a job Ray is already reachable, so the study joins that cluster; run directly it starts a
local one. Rerunning an interrupted study restores it and finishes only the missing trials.
Exit status 2 means a study, configuration or data problem, reported before any trial started.
"""

from __future__ import annotations

import argparse
import sys

from semcse.config import ConfigError
from semcse.tuning.runner import run_study
from semcse.tuning.study import load_study


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", required=True, help="study name under tune/studies/, or a study YAML path")
    parser.add_argument("--config", help="run config replacing the study's base file")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value")
    parser.add_argument("--fresh", action="store_true", help="start over instead of restoring")
    args = parser.parse_args(argv)
    try:
        study, base = load_study(args.study, args.overrides, args.config)
        result = run_study(study, base, restore=not args.fresh)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(result.table.markdown())
    print("\n".join(f"{kind} → {path}" for kind, path in result.paths.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
