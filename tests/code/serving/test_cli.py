"""`semcse index build` and the config merge behind `semcse serve` (no Ray needed)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semcse.cli import app
from semcse.core.config import ConfigError, ServeConfig, TrackingConfig
from semcse.orchestration.serving import check_parts, deploy_config, fit_to_cluster
from tests.paths import REPO, mlflow_uri

APPS = REPO / "semcse" / "apps" / "config.yaml"


def test_index_build_writes_a_searchable_index(tmp_path: Path, sample_corpus_path: Path, tiny_encoder_dir) -> None:
    from semcse.stages.search import SearchIndex

    out = tmp_path / "index"
    args = ["index", "build", "--corpus", str(sample_corpus_path), "--model", str(tiny_encoder_dir), "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    index = SearchIndex.load(out)
    assert index.aspects == [""] and index.model == str(tiny_encoder_dir)
    row = 3
    hits = index.search(index.stored(row), k=2)
    assert hits[0].id == index.papers["id"].iat[row] and hits[0].distances[""] == pytest.approx(0, abs=1e-5)


def test_index_build_reports_a_missing_corpus(tmp_path: Path, tiny_encoder_dir) -> None:
    args = ["index", "build", "--corpus", str(tmp_path / "nope.jsonl"), "--model", str(tiny_encoder_dir)]
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "i")])
    assert result.exit_code == 2 and "nope.jsonl" in result.output


def test_deploy_config_merges_overrides_into_every_app(tmp_path: Path) -> None:
    settings = ServeConfig(encoder=str(tmp_path), port=8123)
    plan = deploy_config(APPS, settings, ["embed", "map"])
    assert [a["name"] for a in plan["applications"]] == ["embed", "map"]
    assert all(a["args"]["encoder"] == str(tmp_path.resolve()) for a in plan["applications"])
    assert plan["http_options"]["port"] == 8123
    embed = plan["applications"][0]["deployments"][0]
    assert embed["autoscaling_config"]["max_replicas"] >= embed["autoscaling_config"]["min_replicas"]
    untouched = deploy_config(APPS, ServeConfig())["applications"]
    assert untouched[0]["args"]["encoder"] == "models:/semcse-encoder@champion"


def test_deploy_config_refuses_unknown_apps_and_bad_args() -> None:
    with pytest.raises(ConfigError, match="no application named"):
        deploy_config(APPS, ServeConfig(), ["nope"])
    with pytest.raises(ConfigError, match="max_k"):
        deploy_config(APPS, ServeConfig.model_construct(max_k=0, _fields_set={"max_k"}))


def test_serve_command_rejects_a_bad_override() -> None:
    result = CliRunner().invoke(app, ["serve", "--apps", str(APPS), "--set", "serve.max_items=-1"])
    assert result.exit_code == 2 and "max_items" in result.output


def test_a_missing_required_part_fails_before_deploying_and_names_its_command(tmp_path: Path) -> None:
    tracking = TrackingConfig(tracking_uri=mlflow_uri(tmp_path))
    plan = deploy_config(APPS, ServeConfig(encoder=str(tmp_path), map=str(tmp_path / "no-map")), ["map"])
    with pytest.raises(ConfigError, match=r"map: .*no-map does not exist; create it with `semcse map layout`"):
        check_parts(plan, tracking)
    plan = deploy_config(APPS, ServeConfig(), ["embed"])
    with pytest.raises(ConfigError, match=r"semcse-encoder@champion is not in the model registry.*`semcse train`"):
        check_parts(plan, tracking)


def test_a_missing_decoder_switches_explain_off_instead_of_failing(tmp_path: Path) -> None:
    tracking = TrackingConfig(tracking_uri=mlflow_uri(tmp_path))
    (tmp_path / "map").mkdir()
    plan = deploy_config(APPS, ServeConfig(encoder=str(tmp_path), map=str(tmp_path / "map")), ["map"])
    checked, notes = check_parts(plan, tracking)
    assert checked["applications"][0]["args"]["decoders"] == {}
    assert len(notes) == 1 and "decoders disabled" in notes[0] and "semcse train-decoder" in notes[0]


def test_missing_generated_texts_switch_summaries_off_and_given_ones_are_made_absolute(tmp_path: Path, monkeypatch):
    tracking = TrackingConfig(tracking_uri=mlflow_uri(tmp_path))
    (tmp_path / "index").mkdir()
    settings = ServeConfig(index=str(tmp_path / "index"), texts=str(tmp_path / "no-texts"))
    checked, notes = check_parts(deploy_config(APPS, settings, ["search"]), tracking)
    assert checked["applications"][0]["args"]["texts"] is None
    assert len(notes) == 1 and "texts disabled" in notes[0] and "--texts" in notes[0]
    (tmp_path / "texts").mkdir()
    monkeypatch.chdir(tmp_path)
    plan = deploy_config(APPS, ServeConfig(index="index", texts="texts"), ["search", "map"])
    assert plan["applications"][0]["args"]["texts"] == str((tmp_path / "texts").resolve())  # replicas run elsewhere
    assert plan["applications"][1]["args"]["search_route"] == plan["applications"][0]["route_prefix"] == "/search"


def test_reservations_are_shared_out_when_a_local_machine_is_too_small(tmp_path: Path) -> None:
    plan = deploy_config(APPS, ServeConfig(encoder=str(tmp_path), index=str(tmp_path)), ["embed", "search"])
    fitted, notes = fit_to_cluster(copy.deepcopy(plan), cpus=2)
    cpus = [a["deployments"][0]["ray_actor_options"]["num_cpus"] for a in fitted["applications"]]
    wanted = [a["deployments"][0]["ray_actor_options"]["num_cpus"] for a in plan["applications"]]
    assert sum(wanted) > 2 and sum(cpus) == pytest.approx(2, abs=0.01)
    assert cpus[0] / cpus[1] == pytest.approx(wanted[0] / wanted[1], rel=0.01)  # proportions kept
    assert len(notes) == 1 and "2 CPUs" in notes[0]
    assert fit_to_cluster(copy.deepcopy(plan), cpus=64) == (plan, [])  # a big enough cluster keeps the file's numbers
