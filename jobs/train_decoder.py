"""`ray job submit` entry point for decoder training (also runs as plain `python jobs/train_decoder.py`).

    ray job submit --working-dir . -- python jobs/train_decoder.py --config jobs/configs/demo.yaml \
        --set decoder.texts=runs/demo/texts --set decoder.encoder=models:/semcse-encoder@champion \
        --set decoder.base_model=/models/Llama-3-8B --set decoder.aspect=aspect:species

Inside a job Ray is already reachable, so `init_ray` joins that cluster; run directly it starts a
local one. Exit status 2 means a configuration or data problem, reported before training started.
"""

from __future__ import annotations

import argparse
import sys

from semcse.config import ConfigError, load_config
from semcse.training.decoder import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="YAML run config")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value")
    args = parser.parse_args(argv)
    try:
        result = run(load_config(args.config, args.overrides))
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"decoder → {result.path}; {result.metrics}; registered version {result.version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
