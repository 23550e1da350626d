"""`ray job submit -- python jobs/generate.py --config jobs/configs/demo.yaml --set generation.limit=8`

The same as `semcse generate`, for Ray jobs: the job's driver runs on the cluster, joins it via
RAY_ADDRESS (set by `ray job submit`), and prints the run report as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys

from semcse.cli import build_config
from semcse.config import ConfigError
from semcse.data.io import CorpusError
from semcse.generation import run_generation
from semcse.runtime import RayUnavailable


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Generate LLM texts (summaries, aspects, queries, judgements).")
    parser.add_argument("--config", "-c", help="YAML run config")
    parser.add_argument("--set", "-s", dest="overrides", action="append", default=[], help="section.key=value")
    parser.add_argument("--corpus", help="corpus path")
    parser.add_argument("--out", help="output directory")
    parser.add_argument("--task", choices=["summaries", "aspects", "queries", "judgements"])
    parser.add_argument("--engine", choices=["transformers", "vllm", "http"])
    parser.add_argument("--model", help="local model directory, or the served model name (http)")
    parser.add_argument("--limit", type=int, help="only the first N abstracts")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    flags = {
        "corpus.path": args.corpus,
        "generation.out": args.out,
        "generation.task": args.task,
        "generation.engine": args.engine,
        "generation.model": args.model,
        "generation.limit": args.limit,
    }
    try:
        report = run_generation(build_config(args.config, args.overrides, **flags))
    except (ConfigError, CorpusError, RayUnavailable, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report.to_dict(), indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
