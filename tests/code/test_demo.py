"""`make demo`'s job, run as a newcomer runs it: a short report, our own lines once, no dependency noise.

The demo runs in its own process (its own local Ray cluster, as `make demo` does) with the run
directory and MLflow store in a temp dir, and 10 training steps validated at 0 and 10 instead of 40 validated
every 10: every step and every kind of line is still printed, in a third of the time. What it prints must read like
a report: under 80 lines, no line twice, no warnings, tracebacks or native error lines from dependencies but the one
Ray's driver writes for each actor pool, about its actors' restarts, which nothing can act on (`logs.NATIVE_NOISE`,
ray-project/ray#53727), tables whose figures carry intervals, and next steps that name the trained model's directory.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from semcse.core.logs import NATIVE_NOISE
from tests.paths import REPO, mlflow_tracking

TABLE_RULE = re.compile(r"^[|\-: ]+$")  # markdown separator rows repeat by nature
# Ray's C++ core prints errors in glog's format, `[2026-11-28 12:28:19,434 E 19266 19266] file.cc:N: …`, which
# no word pattern catches
NATIVE_ERROR = re.compile(r"\[\d{4}-\d\d-\d\d [\d:,.]+ [EF] \d+ \d+\]")


@pytest.mark.slow
def test_demo_prints_a_short_report_without_noise(tmp_path: Path) -> None:
    run = tmp_path / "demo"
    overrides = {
        "run_dir": run,
        **{f"tracking.{key}": value for key, value in mlflow_tracking(tmp_path).items()},
        "training.max_steps": 10,
        "training.eval_every": 10,
    }
    command = [sys.executable, "jobs/demo.py", *(x for k, v in overrides.items() for x in ("--set", f"{k}={v}"))]
    # as `make demo` runs: not on the suite's cluster, not verbose, and with Ray's log deduplication on (the suite
    # turns it off), which drops the actor-restart line when Ray's own actors forward it
    unset = {"RAY_ADDRESS", "SEMCSE_LOG_LEVEL", "RAY_DEDUP_LOGS"}
    env = {key: value for key, value in os.environ.items() if key not in unset}
    # bytes, decoded without newline translation: text mode would turn a progress bar's \r redraws into lines
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, timeout=1500)
    output = (done.stdout + done.stderr).decode()
    assert done.returncode == 0, output[-4000:]

    lines = [line.rstrip() for line in output.replace("\r", "\n").splitlines() if line.strip()]
    lines = [line for line in lines if not any(re.search(pattern, line) for pattern in NATIVE_NOISE)]
    report = [line for line in lines if not TABLE_RULE.match(line) and not re.search(r":\s+\d+%\|", line)]
    repeated = sorted({line for line in report if report.count(line) > 1})
    assert not repeated, f"printed more than once: {repeated}"
    noise = [line for line in lines if re.search(r"Warning|Traceback|\bWARNING\b|\bERROR\b", line)]
    noise += [line for line in lines if NATIVE_ERROR.search(line)]
    assert not noise, f"dependency noise: {noise}"
    shown = output.split("\n")  # a terminal line; a progress bar redraws its own line with \r
    assert len(shown) < 80, output

    tables = [line for line in lines if line.startswith("| ") and "[" in line]
    assert tables, "the evaluation tables carry no intervals"
    assert "semcse-encoder" in output and f"--encoder {run}/model" in output  # next steps, runnable as printed
    assert f"--map {run}/map" in output and "http://127.0.0.1:8000/map/" in output  # they open the explorer
    assert (run / "model" / "modules.json").is_file() and (run / "index").is_dir() and (run / "map").is_dir()

    # the README's trace of which papers training moves reads the vectors the demo's evaluation stored
    def shards() -> list[Path]:
        return sorted(path.relative_to(run) for path in (run / "embeddings").rglob("*.parquet"))

    stored = shards()
    trace = subprocess.run(
        [sys.executable, "examples/trace_demo_labels.py", "--run", str(run)], cwd=REPO, capture_output=True, text=True
    )
    assert trace.returncode == 0, trace.stderr[-3000:]
    group = r"^  (single-field|interdisciplinary) +(\d+) papers +\d\.\d{3} → \d\.\d{3}"
    groups = dict(re.findall(group, trace.stdout, re.M))
    assert sum(map(int, groups.values())) == 360 and set(groups) == {"single-field", "interdisciplinary"}, trace.stdout
    assert re.search(r"borrowed field \d\.\d{3} → \d\.\d{3}", trace.stdout), trace.stdout
    if json.loads((run / "pipeline.json").read_text())["steps"]["train"]["outputs"]["improved"]:
        assert shards() == stored, "the trace embedded again what the evaluation had stored"


def test_the_shipped_demo_corpus_is_what_its_generator_writes() -> None:
    """The demo corpus is synthetic and reproducible: regenerating it gives the committed file, byte for byte."""
    spec = importlib.util.spec_from_file_location("make_demo_corpus", REPO / "examples" / "make_demo_corpus.py")
    generator = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generator  # its dataclasses look their module up while being defined
    spec.loader.exec_module(generator)
    shipped = (REPO / "examples" / "demo_corpus.jsonl").read_text()
    assert shipped == "".join(json.dumps(row) + "\n" for row in generator.build(360, 13))
    rows = [json.loads(line) for line in shipped.splitlines()]
    assert len({r["id"] for r in rows}) == len(rows) == 360 and len({r["topic"] for r in rows}) == 6


@pytest.fixture(scope="module")
def demo_job() -> Any:
    spec = importlib.util.spec_from_file_location("demo_job", REPO / "jobs" / "demo.py")
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    return job


def test_a_mistyped_setting_is_one_error_line_and_status_2(demo_job: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert demo_job.main(["--set", "tracking.uri=sqlite:///x.db"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: invalid configuration") and "tracking.uri: unknown key" in err, err


@pytest.mark.parametrize("args,status,shown", [(["--help"], 0, "Usage"), (["--bogus"], 2, "No such option")])
def test_help_and_a_mistyped_option_read_as_semcse_pipeline_prints_them(
    demo_job: Any, capsys: pytest.CaptureFixture[str], args: list[str], status: int, shown: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        demo_job.main(args)
    assert exited.value.code == status
    printed = capsys.readouterr()
    assert shown in printed.out + printed.err and "Traceback" not in printed.err
