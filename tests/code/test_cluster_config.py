"""cluster.yaml is valid for the installed Ray's autoscaler, and fit to run the platform on storage URIs."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import jsonschema
import pytest
import ray
import yaml

from semcse.core.config import load_config
from tests.paths import REPO


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads((Path(ray.__file__).parent / "autoscaler" / "ray-schema.json").read_text())


@pytest.fixture(scope="module")
def cluster() -> dict:
    return yaml.safe_load((REPO / "cluster.yaml").read_text())


def test_cluster_yaml_is_valid(schema, cluster):
    jsonschema.validate(cluster, schema)


def test_cluster_shape(cluster):
    types = cluster["available_node_types"]
    head = types[cluster["head_node_type"]]
    assert head["resources"] == {"CPU": 0}, "the head schedules; work runs on worker nodes"
    workers = {k: v for k, v in types.items() if k != cluster["head_node_type"]}
    assert {v["resources"].get("GPU", 0) for v in workers.values()} >= {0, 1, 4}, "CPU, 1-GPU and 4-GPU types"
    assert all(v["min_workers"] == 0 and v["max_workers"] > 0 for v in workers.values()), "scales from zero"
    assert all("IamInstanceProfile" in v["node_config"] for v in types.values()), "every node reaches the bucket"
    assert any("--dashboard-port=8265" in c for c in cluster["head_start_ray_commands"])


def test_tracking_is_a_server_every_node_reaches(cluster):
    head = " ".join(cluster["head_start_ray_commands"])
    assert "mlflow server" in head and "--artifacts-destination s3://" in head and "--host 0.0.0.0" in head
    assert "MLFLOW_TRACKING_URI=http://" in head
    assert "MLFLOW_TRACKING_URI=http://$RAY_HEAD_IP:5000" in " ".join(cluster["worker_start_ray_commands"])


def test_training_is_pinned_to_the_multi_gpu_type_by_a_resource_its_nodes_carry(cluster):
    pin = load_config("semcse-paper").training.resources_per_worker
    assert pin, "the paper config pins its training workers"
    carriers = {name for name, t in cluster["available_node_types"].items() if set(pin) <= set(t["resources"])}
    assert carriers == {"train_4x"}


def test_nodes_install_nothing_the_image_has_the_dependencies(cluster):
    assert not cluster["setup_commands"], "no pip install on every scale-up"
    assert "file_mounts" not in cluster, "code travels with each job (--working-dir), not with `ray up`"
    dockerfile = (REPO / "docker" / "Dockerfile").read_text()
    base = re.search(r"^FROM (\S+)", dockerfile, re.M).group(1)
    assert base.startswith(f"rayproject/ray:{ray.__version__}-") and base.endswith("-gpu"), base
    assert '[gpu]"' in dockerfile
    assert cluster["docker"]["image"].endswith(":0.1.0") and "semcse" in cluster["docker"]["image"]


@pytest.mark.parametrize(
    "breakage",
    [
        lambda c: c["available_node_types"]["gpu_1x"].pop("resources"),
        lambda c: c["available_node_types"]["train_4x"].update(max_workers="two"),
        lambda c: c.pop("provider"),
        lambda c: c.update(unknown_top_level_key=1),
    ],
)
def test_broken_copies_fail(schema, cluster, breakage):
    broken = copy.deepcopy(cluster)
    breakage(broken)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_faiss_comes_from_exactly_one_extra():
    """faiss-cpu and faiss-gpu-cu12 both install `faiss`: the GPU extra must replace the CPU build, not add to it."""
    tomllib = pytest.importorskip("tomllib", reason="the standard library reads TOML from Python 3.11")

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]

    def faiss(requirements: list[str]) -> set[str]:
        return {re.split(r"[<>=\[; ]", r, maxsplit=1)[0] for r in requirements if r.startswith("faiss")}

    assert faiss(project["dependencies"]) == set(), "a base dependency would be installed beside the gpu build"
    assert faiss(extras["cpu"]) == {"faiss-cpu"} and faiss(extras["gpu"]) == {"faiss-gpu-cu12"}
    assert all(not faiss(extras[name]) for name in extras if name not in {"cpu", "gpu"})
    makefile = (REPO / "Makefile").read_text()
    assert '-e ".[cpu,dev]"' in makefile, "make setup (and so CI) installs the CPU build the tests use"
    assert "make test" in (REPO / ".ci" / "run").read_text()
    dockerfile = (REPO / "docker" / "Dockerfile").read_text()
    assert "[gpu]" in dockerfile and "[cpu" not in dockerfile and "cpu," not in dockerfile
