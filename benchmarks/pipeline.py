"""The whole pipeline on a real corpus, timed step by step, with the share of the machine's cores kept busy.

    .venv/bin/python benchmarks/pipeline.py --work DIR --config RUN.yaml [--set KEY=VALUE ...] [--against OLD.json]
    .venv/bin/python benchmarks/pipeline.py --work DIR --summarise

Runs `semcse pipeline --config RUN.yaml` in a child process, stamps each line it prints with the time it came
(`DIR/run.log`) and samples /proc/stat once a second for the busy share of all cores (`DIR/cpu.txt`), so a run
can be summarised again (`--summarise`) after it ends or is stopped. A step lasts from its banner (`── train ──`)
to the next banner or the last line. `--against` prints each step's wall time beside an earlier result file's.
What a step's embedding is worth against sentence-transformers' in-process `encode` is benchmarks/embedding.py.
Raw figures go to `benchmarks/results/pipeline-<name>-<commit>.json`. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from _common import add_set_option, save_results

BANNER = re.compile(r"^─+ (\S[^─]*?) ─+$")


def busy_counters() -> tuple[int, int]:
    """(all jiffies, idle jiffies) of every core since boot, from /proc/stat's first line."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields), fields[3] + fields[4]  # idle + iowait


def sample_cpu(out: Path, stop: threading.Event) -> None:
    """Append `epoch busy_share` to `out` once a second until `stop` is set."""
    before = busy_counters()
    with out.open("a") as sink:
        while not stop.wait(1.0):
            now = busy_counters()
            total, idle = now[0] - before[0], now[1] - before[1]
            sink.write(f"{time.time():.1f} {1 - idle / max(total, 1):.3f}\n")
            sink.flush()
            before = now


def run_pipeline(work: Path, config: Path, overrides: list[tuple[str, str]]) -> int:
    """`semcse pipeline` with its lines stamped into `work/run.log` and the cores sampled into `work/cpu.txt`."""
    command = [str(Path(sys.executable).with_name("semcse")), "pipeline", "--config", str(config)]
    command += [arg for key, value in overrides for arg in ("--set", f"{key}={value}")]
    (work / "command.json").write_text(json.dumps(command) + "\n")
    stop = threading.Event()
    sampler = threading.Thread(target=sample_cpu, args=(work / "cpu.txt", stop), daemon=True)
    sampler.start()
    with (
        (work / "run.log").open("w") as log,
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as child,
    ):
        assert child.stdout is not None
        for line in child.stdout:
            log.write(f"{time.time():.1f} {line}")
            log.flush()
            print(line, end="")
    stop.set()
    sampler.join()
    return child.returncode


def summarise(work: Path) -> dict[str, Any]:
    """Each step's wall time and mean busy share of the cores, from `work/run.log` and `work/cpu.txt`."""
    log = (work / "run.log").read_bytes().decode().split("\n")  # a progress bar's \r stays inside its line
    stamped = [line.split(" ", 1) for line in log if " " in line]
    lines = [(float(stamp), text) for stamp, text in stamped]
    samples = [tuple(map(float, line.split())) for line in (work / "cpu.txt").read_text().splitlines()]
    starts = [(stamp, match.group(1)) for stamp, text in lines if (match := BANNER.match(text.strip()))]
    ends = [stamp for stamp, _ in starts[1:]] + [lines[-1][0]]
    steps = []
    for (start, name), end in zip(starts, ends, strict=True):
        inside = [busy for stamp, busy in samples if start <= stamp < end]
        share = sum(inside) / len(inside) if inside else None
        steps.append({"step": name, "wall_s": end - start, "busy_share": share})
    return {"started": lines[0][0], "total_s": lines[-1][0] - lines[0][0], "steps": steps, "last_line": lines[-1][1]}


def print_table(summary: dict[str, Any], against: dict[str, Any] | None) -> None:
    before = {step["step"]: step["wall_s"] for step in (against or {}).get("steps", [])}
    print("| step | wall | cores busy | × before |")
    print("|---|---:|---:|---:|")
    for step in summary["steps"]:
        share = "" if step["busy_share"] is None else f"{step['busy_share']:.0%}"
        ratio = f"{step['wall_s'] / before[step['step']]:.2f}" if before.get(step["step"]) else ""
        print(f"| {step['step']} | {step['wall_s'] / 60:.1f} min | {share} | {ratio} |")
    print(f"| total | {summary['total_s'] / 60:.1f} min | | |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="where run.log and cpu.txt are written (or read)")
    parser.add_argument("--config", type=Path, help="the run's config (its run_dir holds the run itself)")
    add_set_option(parser, "config overrides passed to `semcse pipeline`")
    parser.add_argument("--summarise", action="store_true", help="summarise the run already in --work")
    parser.add_argument("--against", type=Path, help="an earlier pipeline result file to compare each step with")
    parser.add_argument("--name", default="run", help="the result file's name: pipeline-<name>-<commit>.json")
    args = parser.parse_args()
    if not args.summarise:
        if args.config is None:
            parser.error("--config is needed to run the pipeline (or --summarise a run already in --work)")
        args.work.mkdir(parents=True, exist_ok=True)
        code = run_pipeline(args.work, args.config, args.overrides)
        if code:
            print(f"semcse pipeline exited with {code}; summarising what it printed", file=sys.stderr)
    summary = summarise(args.work)
    against = json.loads(args.against.read_text()) if args.against else None
    print_table(summary, against)
    command = args.work / "command.json"
    summary["command"] = json.loads(command.read_text()) if command.is_file() else None
    save_results(f"pipeline-{args.name}", summary)


if __name__ == "__main__":
    main()
