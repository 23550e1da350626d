"""`ray job submit` entry point for SemCSE-Multi stage two: the unified model distilled from the aspect encoders.

    ray job submit --working-dir . -- python jobs/distill.py --config jobs/configs/demo.yaml \
        --set multi.aspect_encoders=runs/aspect-encoders --set corpus.path=corpus.parquet

`--set multi.direct=true` runs the direct ablation instead. Also runs as plain `python jobs/distill.py`.
Exit status 2: a configuration or data problem, reported before any training started.
"""

from __future__ import annotations

import argparse
import sys

from semcse.config import ConfigError, load_config
from semcse.training.distill import distill


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="YAML run config")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value")
    args = parser.parse_args(argv)
    try:
        result = distill(load_config(args.config, args.overrides))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"unified model {result.aspects} → {result.model_dir}; best {result.best}; version {result.model_version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
