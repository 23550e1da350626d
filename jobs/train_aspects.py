"""`ray job submit` entry point for SemCSE-Multi stage one: an aspect encoder per aspect of a pack.

    ray job submit --working-dir . -- python jobs/train_aspects.py --config jobs/configs/demo.yaml \
        --set multi.aspect_pack=invasion_biology --set multi.texts=runs/aspects --set corpus.path=corpus.parquet

Also runs as plain `python jobs/train_aspects.py` (local Ray). Exit status 2: a configuration or data problem.
"""

from __future__ import annotations

import argparse
import sys

from semcse.config import ConfigError, load_config
from semcse.training.aspects import train_aspects


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="YAML run config")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value")
    args = parser.parse_args(argv)
    try:
        result = train_aspects(load_config(args.config, args.overrides))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"aspect encoders → {result.out}: {sorted(result.encoders)}; MLflow parent run {result.run_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
