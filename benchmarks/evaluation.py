"""The aspects and semantic suites at the papers' scale: peak memory and time, before and after issue 29.

    .venv/bin/python benchmarks/evaluation.py [--sizes 4000 40000] [--suites aspects semantic]
                                              [--before REV] [--cap-gib 6] [--bootstrap 1000]

A synthetic corpus of each size (four topics; `tests/fixtures/evaluation.py`, the data of the memory
test) with judgements pairing every test-split abstract with 10 others of the test split (and a few
with training abstracts), and two aspect summaries per abstract. Each suite runs in a fresh process,
once with the code of `--before` (exported with `git archive`: the dense [n, n] aspects suite that
took the whole corpus as abstracts, and task-by-task bootstrap draws) and once with this checkout,
both on one local Ray cluster, with a tiny encoder built on the spot (the figures are about memory and
time, not quality). Peak memory is the process's peak resident set (imports, Ray driver and all);
`own` subtracts what the process held just before the suite started. A run above `--cap-gib` is
killed (the dense suite wants 12.8 GB per [40k, 40k] matrix) and reported as such. Raw figures go
to `benchmarks/results/evaluation-<commit>.json` with the commit they ran on.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks._common import git_commit, save_results  # noqa: E402

BEFORE = "32bd758"  # main before issue 29: the dense aspects suite, draws task by task
SUITE = """
import json, resource, sys, time
from semcse.core.config import load_config
from semcse.stages.embedding import ModelRef
from semcse.stages.evaluation import aspects, semantic

suite, corpus, judgements, texts, model, out, bootstrap = sys.argv[1:]
cfg = load_config(overrides=["tracking.enabled=false", "evaluation.plots=false", f"evaluation.bootstrap={bootstrap}",
                             f"evaluation.judgements={judgements}", f"evaluation.texts={texts}"])
from semcse.core.runtime import init_ray
init_ray()  # joins the benchmark's cluster (RAY_ADDRESS), so the Ray driver counts before the suite starts

def rss() -> int:
    return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmRSS"))

held = rss()
started = time.perf_counter()
result = {"aspects": aspects.run, "semantic": semantic.run}[suite]([ModelRef.parse(f"tiny={model}")], corpus, cfg, out)
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
table = {k: float(v) for k, v in result.table.loc["tiny"].items()}
print(json.dumps({"seconds": seconds, "peak": peak, "before_suite": held, "table": table, "notes": result.notes}))
"""


def export(rev: str, into: Path) -> Path:
    """The `semcse` package as it was at `rev` (its own directory on the PYTHONPATH of the runs that use it)."""
    archive = subprocess.run(["git", "archive", rev, "semcse"], cwd=REPO, capture_output=True, check=True).stdout
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def measure(code: Path, args: list[str], cap: float, address: str) -> dict[str, object]:
    """Run the suite in a fresh process on `code`; kill it when its resident set passes `cap` bytes."""
    env = {**os.environ, "PYTHONPATH": str(code), "RAY_ADDRESS": address, "HF_HUB_OFFLINE": "1"}
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        # from a directory without a `semcse` of its own: `python -c` puts the working directory first on sys.path
        process = subprocess.Popen(
            [sys.executable, "-c", SUITE, *args], env=env, stdout=stdout, stderr=stderr, cwd=code.parent
        )
        status = Path(f"/proc/{process.pid}/status")
        seen = 0
        while process.poll() is None:
            try:
                seen = max(seen, next(int(x.split()[1]) * 1024 for x in status.open() if x.startswith("VmRSS")))
            except (FileNotFoundError, StopIteration, ProcessLookupError):
                pass
            if seen > cap:
                process.kill()
                process.wait()
                return {"killed": True, "seconds": time.perf_counter() - started, "peak": seen}
            time.sleep(0.05)
        stdout.seek(0)
        stderr.seek(0)
        if process.returncode != 0:
            raise RuntimeError(f"the suite failed ({process.returncode}):\n{stderr.read()[-3000:]}")
        return {"killed": False, **json.loads(stdout.read().strip().splitlines()[-1])}


def gib(n: float) -> str:
    return f"{n / 1024**3:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4000, 40000], help="corpus rows")
    parser.add_argument("--suites", nargs="+", default=["aspects", "semantic"], choices=["aspects", "semantic"])
    parser.add_argument("--before", default=BEFORE, help="the commit whose code is 'before' (default: %(default)s)")
    parser.add_argument("--cap-gib", type=float, default=6.0, help="kill a run whose resident set passes this")
    parser.add_argument("--bootstrap", type=int, default=1000, help="evaluation.bootstrap (draws per figure)")
    parser.add_argument("--work", type=Path, help="scratch directory (default: a temporary one)")
    parser.add_argument("--out", type=Path, help="results JSON (default: benchmarks/results/evaluation-<commit>.json)")
    args = parser.parse_args()

    import ray

    from semcse.testing import build_tiny_encoder
    from tests.fixtures.evaluation import TOPICS, write_judged_corpus

    work = args.work or Path(tempfile.mkdtemp(prefix="semcse-bench-eval-"))
    before = export(args.before, work / "before")
    encoder = build_tiny_encoder(work / "encoder", list(TOPICS.values()))
    address = ray.init(num_cpus=os.cpu_count(), include_dashboard=False, logging_level="ERROR").address_info["address"]
    rows = []
    for size in args.sizes:
        data = write_judged_corpus(work / f"data-{size}", rows=size)
        for suite in args.suites:
            row: dict[str, object] = {"suite": suite, "rows": size, "test_abstracts": len(data.test_ids)}
            for side, code in (("before", before), ("after", REPO)):
                out = work / f"out-{size}-{suite}-{side}"
                suite_args = [suite, str(data.corpus), str(data.judgements), str(data.texts), str(encoder), str(out)]
                row[side] = measure(code, [*suite_args, str(args.bootstrap)], args.cap_gib * 1024**3, address)
                print(f"{suite} {size:,} rows {side}: {json.dumps(row[side])[:300]}", file=sys.stderr)
            rows.append(row)
    ray.shutdown()

    print(f"\n{'suite':9} {'rows':>7}  {'peak GiB before / after (ratio)':>34}  {'time s before / after (ratio)':>32}")
    for row in rows:
        b, a = row["before"], row["after"]
        assert isinstance(b, dict) and isinstance(a, dict)
        killed = f"> {gib(b['peak'])} (killed)" if b["killed"] else gib(b["peak"])
        peak = f"{killed} / {gib(a['peak'])} ({float(b['peak']) / float(a['peak']):.1f}x{'+' if b['killed'] else ''})"
        when = f"{float(b['seconds']):.1f} / {float(a['seconds']):.1f}"
        when = f"killed at {when}" if b["killed"] else f"{when} ({float(b['seconds']) / float(a['seconds']):.2f}x)"
        print(f"{row['suite']:9} {row['rows']:>7,}  {peak:>34}  {when:>32}")
    save_results(
        "evaluation",
        {"before": git_commit(args.before), "args": vars(args) | {"work": str(work)}, "results": rows},
        args.out,
    )
    for row in rows:
        if isinstance(row["before"], dict) and row["before"]["killed"] and row["suite"] == "aspects":
            print(
                f"killed: the {row['suite']} suite before took all {row['rows']:,} abstracts and built [n, n] float64 "
                f"matrices over them, {8 * int(row['rows']) ** 2 / 1e9:.1f} GB each (after: {row['test_abstracts']:,} "
                "judged test-split abstracts, per-pair entries)"
            )


if __name__ == "__main__":
    main()
