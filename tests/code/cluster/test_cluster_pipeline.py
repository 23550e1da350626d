"""The pipeline on a cluster that shares no paths: three raylets, S3 on loopback, an MLflow server.

The head offers no CPUs (as cluster.yaml's does), so every task, actor and replica runs on one of the two worker
nodes; the nodes run in a directory of their own and the driver in another, and every input and output is a storage
URI. The run is killed mid-training and resumed from the bucket. After it, nothing may sit in a local `runs/`
directory and every artifact must be in the bucket; the served apps answer from replicas on worker nodes, with the
API key checked there although only the driver's environment holds it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from semcse.core import storage
from tests.fixtures.budget import RAY_TRAIN_RUNS, ray_train_runs
from tests.fixtures.cluster import S3, MlflowServer, Multinode
from tests.fixtures.loopback import free_port
from tests.paths import REPO, SAMPLE_CORPUS

API_KEY = "cluster-key-42"
SEMCSE = [sys.executable, "-m", "semcse"]
ADDED = [
    {
        "id": "new-1",
        "title": "Goats and island plants",
        "abstract": "Feral goats were removed from an island. Native shrubs recovered within five years, "
        "and seedling density doubled where grazing stopped.",
        "topic": "ecology",
    },
    {
        "id": "new-2",
        "title": "A trial of a heart failure drug",
        "abstract": "Patients with chronic heart failure received a new drug or placebo. Hospital admissions "
        "fell by a fifth in the treated group over two years.",
        "topic": "medicine",
    },
]


@pytest.fixture(scope="module")
def bucket(s3: S3) -> str:
    return s3.bucket("semcse-cluster")


@pytest.fixture(scope="module")
def inputs(s3: S3, bucket: str, tiny_encoder_dir: Path, prompt_lm_dir: Path, tmp_path_factory) -> dict[str, str]:
    """The corpus, the base encoder and the LM live in the bucket, as they would for a cluster.

    The LM ends its answers with a period at the latest, so its summaries are kept (a random LM's are
    all cut off by their budget and rejected, leaving nothing to train on)."""
    env = {**os.environ, **s3.env}
    base = f"s3://{bucket}/inputs"
    code = (
        "import sys; from semcse.core import storage\n"
        "for local, uri in zip(sys.argv[1::2], sys.argv[2::2]): storage.upload(local, uri)\n"
    )
    added = tmp_path_factory.mktemp("added") / "added.jsonl"
    added.write_text("".join(json.dumps(row) + "\n" for row in ADDED))
    uris = {
        "corpus": f"{base}/corpus.jsonl",
        "encoder": f"{base}/tiny-encoder",
        "lm": f"{base}/tiny-lm",
        "added": f"{base}/added.jsonl",
    }
    pairs = [SAMPLE_CORPUS, uris["corpus"], tiny_encoder_dir, uris["encoder"], prompt_lm_dir, uris["lm"]]
    pairs += [added, uris["added"]]
    subprocess.run([sys.executable, "-c", code, *map(str, pairs)], env=env, check=True, timeout=120)
    return uris


def _driver_env(s3: S3, mlflow_server: MlflowServer, multinode: Multinode) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MLFLOW_", "RAY_ADDRESS"))}
    return env | s3.env | {"RAY_ADDRESS": multinode.address, "MLFLOW_TRACKING_URI": mlflow_server.uri}


def _run(command: list[str], cwd: Path, env: dict[str, str], timeout: int = 900) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-6000:]
    return result


def _serve_config(path: Path) -> Path:
    """The shipped Serve config, each replica reserving a little CPU and one proxy on the head (every raylet
    of this machine would otherwise bind the same port)."""
    config = yaml.safe_load((REPO / "semcse" / "apps" / "config.yaml").read_text())
    config["proxy_location"] = "HeadOnly"
    for app in config["applications"]:
        for deployment in app["deployments"]:
            deployment["ray_actor_options"] = {"num_cpus": 0.25}
            deployment["autoscaling_config"] = {"min_replicas": 1, "max_replicas": 1}
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.slow
def test_pipeline_resumed_from_the_bucket_writes_only_there_and_serves_from_worker_nodes(
    s3: S3,
    bucket: str,
    inputs: dict[str, str],
    mlflow_server: MlflowServer,
    multinode: Multinode,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The whole job dies while it trains (the driver is killed, its workers with it); resubmitted, the pipeline skips
    the steps it finished and training resumes from the checkpoint in the bucket instead of starting over. The suite's
    one Ray Train run across nodes."""
    driver = tmp_path / "driver"
    driver.mkdir()
    port = free_port()
    run_dir = f"s3://{bucket}/runs/e2e"
    config = {
        "name": "cluster",
        "run_dir": run_dir,
        "corpus": {"path": inputs["corpus"], "label_col": "topic", "val_fraction": 0.25, "test_fraction": 0.25},
        "tracking": {"experiment": "cluster-e2e"},
        "generation": {
            "model": inputs["lm"],
            "prompts": ["In summary, our research is concerned with"],
            "samples_per_prompt": 3,
            "max_new_tokens": 12,
        },
        "training": {
            "pairs": "summaries",
            "base_model": inputs["encoder"],
            "loss": "infonce",
            "batch_size": 4,
            "max_length": 64,
            "eval_every": 3,
            "patience": 1000,
            "num_workers": 2,
        },
        "evaluation": {"suites": ["semantic", "knn"], "label_col": "topic", "batch_size": 16, "max_length": 64},
        "map": {"iterations": 250},
        "serve": {"port": port},
        "pipeline": {
            "build_index": True,
            "build_map": True,
            "deploy": True,
            "serve_config": str(_serve_config(tmp_path / "apps.yaml")),
        },
    }
    (driver / "run.yaml").write_text(yaml.safe_dump(config))
    env = _driver_env(s3, mlflow_server, multinode) | {"SEMCSE_API_KEY": API_KEY}
    for name, value in s3.env.items():  # this process reads the bucket's checkpoints too
        monkeypatch.setenv(name, value)
    started = time.time()
    command = [*SEMCSE, "pipeline", "--config", "run.yaml"]
    first = subprocess.Popen(
        [*command, "--set", "training.max_steps=5000"],
        cwd=driver,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 600
        while (_committed_step(f"{run_dir}/ray") or 0) < 3:
            assert first.poll() is None, "the first run ended before its first trained checkpoint"
            assert time.monotonic() < deadline, "no trained checkpoint was committed to the bucket"
            time.sleep(0.5)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    stored = _committed_step(f"{run_dir}/ray")
    assert stored is not None, storage.files(f"{run_dir}/ray")

    second = _run([*command, "--set", f"training.max_steps={stored + 3}"], driver, env)
    assert "✓ generate: done in an earlier run, skipped" in second.stderr, second.stderr[-4000:]
    resumed = [line for line in second.stderr.splitlines() if "resumed from the checkpoint at step" in line]
    assert resumed and int(resumed[0].rsplit(" ", 1)[-1]) == stored, second.stderr[-4000:]
    assert "base model: the candidate to beat" not in second.stderr

    keys = s3.keys(bucket, "runs/e2e/")
    for expected in (
        "runs/e2e/pipeline.json",
        "runs/e2e/corpus/accepted.parquet",
        "runs/e2e/model/modules.json",
        "runs/e2e/evaluation/semantic/semantic.csv",
        "runs/e2e/index/current.json",
        "runs/e2e/map/current.json",
    ):
        assert expected in keys, f"{expected} is not in the bucket"
    assert any(k.startswith("runs/e2e/texts/_manifest/") for k in keys), "generated texts' manifest"
    assert any(k.startswith("runs/e2e/ray/") and k.endswith("loop_state.json") for k in keys), "checkpoints"
    assert any(k.startswith("runs/e2e/embeddings/") for k in keys), "the papers' vectors"
    assert s3.keys("mlflow", "artifacts/"), "MLflow's artifacts went to the bucket through its server"
    for directory in (driver, multinode.cwd, REPO):
        written = _written_since(started, directory / "runs", directory / "mlruns", directory / "mlflow.db")
        assert not written, f"written locally: {written[:5]}"

    base = f"http://127.0.0.1:{port}"
    key = {"Authorization": f"Bearer {API_KEY}"}
    with httpx.Client(timeout=60) as http:
        assert http.post(f"{base}/search/", json={"query": "grazing", "k": 3}).status_code == 401
        found = http.post(f"{base}/search/", json={"query": "goats grazing island plants", "k": 3}, headers=key)
        assert found.status_code == 200, found.text
        assert len(found.json()["results"]) == 3
        vectors = http.post(f"{base}/v1/embeddings", json={"input": ["rats on islands"]}, headers=key)
        assert vectors.status_code == 200, vectors.text
        assert len(vectors.json()["data"][0]["embedding"]) == 32
        for app in ("/health", "/search/health", "/map/health"):
            node = http.get(f"{base}{app}").json()["node"]
            assert node in multinode.workers, f"{app} answered from node {node}, not a worker node"
        papers = http.get(f"{base}/search/health").json()["papers"]

        # a living corpus on the same bucket: only the new papers are validated, generated for, embedded, indexed
        added = _run([*SEMCSE, "pipeline", "--config", "run.yaml", "--add", inputs["added"]], driver, env)
        assert "new = added + merged + skipped + rejected: 2 = 2 + 0 + 0 + 0" in added.stdout
        deadline = time.monotonic() + 60
        while http.get(f"{base}/search/health").json()["papers"] != papers + 2:
            assert time.monotonic() < deadline, "the search app did not move to the grown index"
            time.sleep(1)
        by_id = http.post(f"{base}/search/", json={"id": "new-1", "k": 2}, headers=key)
        assert by_id.status_code == 200, by_id.text
    assert any(k.startswith("runs/e2e/updates/") and k.endswith("report.json") for k in s3.keys(bucket, "runs/e2e/"))
    request.config.stash[RAY_TRAIN_RUNS] |= ray_train_runs(s3.keys(bucket, "runs/"))
    assert not _written_since(started, driver / "runs", multinode.cwd / "runs", REPO / "runs")


def _written_since(started: float, *places: Path) -> list[Path]:
    """Files under `places` (directories or files) modified after `started`."""
    found = []
    for place in places:
        candidates = [place] if place.is_file() else place.rglob("*") if place.is_dir() else []
        found += [p for p in candidates if p.is_file() and p.stat().st_mtime >= started]
    return found


def _committed_step(root: str) -> int | None:
    """The step of the latest checkpoint Ray Train has committed under `root` (what a resumed run restores):
    its run snapshot names the checkpoint directory, whose `loop_state.json` says the step."""
    for entry in storage.files(root):
        if entry.path.endswith("checkpoint_manager_snapshot.json"):
            run = storage.join(root, storage.parent(entry.path))
            latest = json.loads(storage.read_text(storage.join(root, entry.path))).get("latest_checkpoint_result")
            if latest:
                state = storage.read_json(storage.join(run, latest["checkpoint_dir_name"], "loop_state.json"))
                return int(state["step"])
    return None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("settings", "tracking", "message"),
    [
        ({"run_dir": "ABSOLUTE"}, True, "is on this machine's disk, and the run's work goes to other nodes"),
        ({"run_dir": "s3://semcse-cluster/runs/refused"}, False, "is a file on this machine, and the run's work"),
    ],
)
def test_a_cluster_refuses_the_drivers_disk_before_any_work(
    s3: S3,
    bucket: str,
    inputs,
    mlflow_server: MlflowServer,
    multinode: Multinode,
    tmp_path: Path,
    settings,
    tracking,
    message,
) -> None:
    """On a cluster whose work runs on other nodes, a run directory or an MLflow store on the driver's disk is one
    message with the fix, and nothing is written anywhere."""
    run_dir = str(tmp_path / "runs" / "x") if settings["run_dir"] == "ABSOLUTE" else settings["run_dir"]
    env = _driver_env(s3, mlflow_server, multinode)
    if not tracking:
        env.pop("MLFLOW_TRACKING_URI")
    command = [*SEMCSE, "pipeline", "--set", f"run_dir={run_dir}", "--set", f"corpus.path={inputs['corpus']}"]
    command += ["--set", f"training.base_model={inputs['encoder']}", "--set", "training.pairs=crops"]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr[-3000:]
    error = " ".join(result.stderr.split())
    assert message in error, error[-2000:]
    assert ("s3://BUCKET" in error) if tracking else ("mlflow server" in error and "MLFLOW_TRACKING_URI" in error)
    assert not (tmp_path / "runs").exists() and not (tmp_path / "mlflow.db").exists()
    assert not s3.keys(bucket, "runs/refused/")
