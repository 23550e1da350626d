"""cluster.yaml is validated against the autoscaler schema shipped in the installed ray package."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
import ray
import yaml

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
    assert cluster["head_node_type"] in types and types[cluster["head_node_type"]]["resources"].get("GPU", 0) == 0
    workers = {k: v for k, v in types.items() if k != cluster["head_node_type"]}
    assert {v["resources"]["GPU"] for v in workers.values()} >= {1, 4}
    assert all(v["min_workers"] == 0 and v["max_workers"] > 0 for v in workers.values())
    assert any("--dashboard-port=8265" in c for c in cluster["head_start_ray_commands"])
    assert any("[gpu]" in c for c in cluster["setup_commands"])


def test_image_matches_installed_ray(cluster):
    image = cluster["docker"]["image"]
    assert image.startswith("rayproject/ray:") and "ray-ml" not in image
    assert image.split(":")[1].startswith(f"{ray.__version__}-") and image.endswith("-gpu")


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
