"""Code that travels: an installed wheel finds its packs, studies, configs and Serve config from any directory,
and `ray job submit --working-dir .` runs this checkout on a cluster whose Python does not have it installed.

Both use a fresh virtual environment that sees the test environment's dependencies (a path file naming
its site-packages) but not its editable install of semcse, which lives in a path file of its own that
only a site directory's processing would run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from semcse.core.config import load_config
from semcse.core.tracking import Tracker
from semcse.orchestration.steps import StepState
from tests.fixtures.cluster import stop_process
from tests.fixtures.loopback import free_port
from tests.paths import REPO

EXAMPLES = REPO / "examples"


def _fresh_venv(where: Path) -> Path:
    """A venv without semcse whose imports fall back to this environment's dependencies; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = subprocess.run([str(python), "-c", "import semcse"], capture_output=True, text=True, cwd=where)
    assert probe.returncode != 0, "the fresh venv must not see the checkout's semcse"
    return python


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built as a wheel from a copy of its sources (the checkout stays clean)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "semcse", source / "semcse", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(out), "."],
        cwd=source,
        check=True,
        timeout=300,
        capture_output=True,
    )
    (found,) = out.glob("semcse-*.whl")
    return found


@pytest.mark.slow
def test_an_installed_wheel_finds_its_resources_from_another_directory(wheel: Path, tmp_path: Path) -> None:
    python = _fresh_venv(tmp_path / "venv")
    site = next((tmp_path / "venv" / "lib").glob("python*/site-packages"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(site)
    for shipped in ("configs/demo.yaml", "packs/medicine.yaml", "studies/cropping.yaml", "apps/config.yaml"):
        assert f"semcse/{shipped}" in names, f"{shipped} is not in the wheel"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    check = (
        f"import semcse; assert semcse.__file__.startswith({str(site)!r}), semcse.__file__\n"
        "from semcse.orchestration.tuning.study import load_study; study, base = load_study('cropping')\n"
        "from semcse.stages.generation.prompts import load_aspect_pack; pack = load_aspect_pack('medicine')\n"
        "from semcse.orchestration.serving import deploy_config; from semcse.core.config import ServeConfig\n"
        "plan = deploy_config(None, ServeConfig())\n"
        "print(study.name, base.name, pack.name, sorted(a['name'] for a in plan['applications']))\n"
    )
    shown = subprocess.run([str(python), "-c", check], cwd=elsewhere, capture_output=True, text=True, timeout=300)
    assert shown.returncode == 0, shown.stderr[-3000:]
    assert shown.stdout.split()[:3] == ["cropping", "demo", "medicine"]
    out = tmp_path / "validated"
    stage = subprocess.run(
        [str(python), "-m", "semcse", "corpus", "validate", str(EXAMPLES / "demo_corpus.jsonl"), "--out", str(out)]
        + ["--config", "demo", "--set", "tracking.enabled=false"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert stage.returncode == 0, stage.stderr[-3000:]
    assert (out / "accepted.parquet").is_file()
    assert "in = accepted + merged + rejected: 360 = 360 + 0 + 0" in stage.stdout
    assert not (elsewhere / "runs").exists()


def _head_logs(temp_dir: Path) -> str:
    """The tails of the head's agent and job-server logs: why a job was refused is only written there."""
    logs = temp_dir / "session_latest" / "logs"
    names = ("dashboard_agent.log", "dashboard_JobHead.log", "raylet.out")
    tails = [f"\n--- {n}\n" + (logs / n).read_text(errors="replace")[-2500:] for n in names if (logs / n).is_file()]
    return "".join(tails)


def _start_head(python: Path, cwd: Path, env: dict[str, str], attempts: int = 3) -> tuple[subprocess.Popen, int, str]:
    """`ray start --head --block` on fresh loopback ports, once its dashboard answers: (process, dashboard port,
    temp dir). A head that exits while starting (once in CI, exit 1, its output then discarded; a port taken between
    `free_port` and Ray binding it would do that) is started again on new ports, and a failure shows what it printed.
    """
    failures = []
    for _ in range(attempts):
        dashboard = free_port()
        temp_dir = tempfile.mkdtemp(prefix="rayjob", dir="/tmp")
        log = Path(temp_dir, "head.out")
        with log.open("w") as out:
            head = subprocess.Popen(
                [
                    str(python),
                    "-m",
                    "ray.scripts.scripts",
                    "start",
                    "--head",
                    "--block",
                    f"--port={free_port()}",
                    "--node-ip-address=127.0.0.1",
                    f"--dashboard-port={dashboard}",
                    "--dashboard-host=127.0.0.1",
                    f"--dashboard-agent-listen-port={free_port()}",
                    f"--dashboard-agent-grpc-port={free_port()}",
                    f"--runtime-env-agent-port={free_port()}",
                    f"--metrics-export-port={free_port()}",
                    f"--ray-client-server-port={free_port()}",
                    "--num-cpus=2",
                    f"--temp-dir={temp_dir}",
                    "--disable-usage-stats",
                ],
                cwd=cwd,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.time() + 180
        while head.poll() is None:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{dashboard}/api/version", timeout=2)
                return head, dashboard, temp_dir
            except urllib.error.HTTPError:
                return head, dashboard, temp_dir  # any HTTP answer means the dashboard is up (it may want a token)
            except OSError:
                if time.time() > deadline:
                    _stop_head(head)
                    pytest.fail("the Ray dashboard did not come up in 180 s:\n" + log.read_text()[-3000:])
                time.sleep(2)
        failures.append(f"exit {head.returncode}:\n{log.read_text()[-2000:]}")
        _stop_head(head)  # what it had started before exiting
        shutil.rmtree(temp_dir, ignore_errors=True)
    pytest.fail(f"ray start --head exited {attempts} times:\n" + "\n".join(failures))


def _stop_head(head: subprocess.Popen) -> None:
    """Stop `ray start --block`, which stops its GCS, raylet and dashboard itself; then anything left in its group.

    SIGTERM goes to `ray start` alone: sent to the whole group it would kill the GCS first, and `ray start` would
    then wait 30 s for that GCS to answer its drain request."""
    stop_process(head, group=False)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(head.pid, signal.SIGKILL)


@pytest.mark.slow
def test_ray_job_submit_ships_this_checkout_to_nodes_that_do_not_have_it(pipeline_config, tmp_path: Path):
    """`ray start --head` with a Python that cannot import semcse, then `ray job submit --working-dir .` of the
    reduced demo: the job's driver and every worker import the checkout the job brought.

    The head runs with `--block` in its own process group so stopping it cannot touch the session's
    cluster; its temp dir is short because Ray's Unix sockets live under it (108-byte path limit).
    Ray 2.60 secures the dashboard with a token; RAY_AUTH_MODE=token makes the CLI send it, and the test makes its
    own (`ray start` refuses to make one, so a machine without ~/.ray/auth_token would fail here).
    """
    python = _fresh_venv(tmp_path / "bare")
    ray_bin = Path(sys.executable).parent / "ray"
    token = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"} | token
    head, dashboard, temp_dir = _start_head(python, tmp_path, env)
    try:
        config = pipeline_config(training={"launcher": "local"})  # trained by the job's driver; embedded on workers
        cfg = load_config(config)
        runtime_env = {
            "excludes": [".venv", ".git", "runs", "mlruns", "mlflow.db", "test-artifacts"],
            "env_vars": {"HF_HUB_OFFLINE": "1"},
        }
        submit = [
            str(ray_bin),
            "job",
            "submit",
            f"--address=http://127.0.0.1:{dashboard}",
            "--working-dir",
            str(REPO),
            "--runtime-env-json",
            json.dumps(runtime_env),
            "--",
            str(python),
            "jobs/pipeline.py",
            "--config",
            str(config),
            "--until",
            "register",
        ]
        for _ in range(20):  # the dashboard answers a little before its job agent is ready
            result = subprocess.run(submit, env=env, capture_output=True, text=True, timeout=900)
            if "No available agent to submit job" not in result.stdout + result.stderr:
                break
            time.sleep(3)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1500:] + _head_logs(Path(temp_dir))
        output = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)
        assert re.search(r"Job '\S+' succeeded", output), output[-3000:]
        state = StepState.load(cfg.run_dir)
        assert {"validate", "train", "evaluate", "register"} <= set(state.steps)
        train = state.steps["train"]["outputs"]
        assert (train["version"] is not None) == train["improved"]
        if train["version"] is not None:
            assert Tracker(cfg.tracking).client.get_model_version(cfg.training.register_name, train["version"])
    finally:
        _stop_head(head)
        shutil.rmtree(temp_dir, ignore_errors=True)
