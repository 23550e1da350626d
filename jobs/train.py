"""`ray job submit` entry point for encoder training (also runs as plain `python jobs/train.py`).

    ray job submit --working-dir . -- python jobs/train.py --config jobs/configs/demo.yaml \
        --set training.pairs=crops --set training.base_model=/models/all-MiniLM-L6-v2

Inside a job, Ray is already reachable (RAY_ADDRESS is set by the job runtime), so `init_ray`
joins that cluster; run directly it starts a local one. Exit status 2 means a configuration or
data problem, reported before any training started.
"""

from __future__ import annotations

import argparse
import sys

from semcse.config import ConfigError, load_config
from semcse.training.trainer import train


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="YAML run config")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value")
    args = parser.parse_args(argv)
    try:
        result = train(load_config(args.config, args.overrides))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"encoder → {result.model_dir}; best {result.best}; registered version {result.model_version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
