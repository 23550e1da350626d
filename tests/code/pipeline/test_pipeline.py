"""The pipeline end to end: steps, settings, resume, registration."""

from __future__ import annotations

from pathlib import Path

import pytest

from semcse.core.config import ConfigError, load_config
from semcse.core.data.modes import AUTO
from semcse.core.tracking import Tracker, alias_version
from semcse.orchestration.pipeline import STEPS, Pipeline, step_settings
from semcse.orchestration.steps import step_range
from tests.fixtures.pipeline import BUILT


def test_step_range_and_errors():
    names = list(STEPS)
    assert step_range(names, "train", "register") == ["train", "evaluate", "register"]
    assert step_range(names, None, "validate") == ["validate"]
    with pytest.raises(ConfigError, match="unknown step 'fit'"):
        step_range(names, "fit", None)
    with pytest.raises(ConfigError, match="comes after"):
        step_range(names, "evaluate", "train")


def test_missing_generation_model_fails_before_any_work(pipeline_config):
    cfg = load_config(pipeline_config(training={"pairs": "summaries"}))
    with pytest.raises(ConfigError, match="generation.model is not set"):
        Pipeline(cfg).run()
    assert not (Path(cfg.run_dir) / "corpus").exists()


def test_a_steps_settings_are_what_shapes_its_outputs():
    """`auto` is recorded as the recipe it stands for, so a version that changes it retrains; more workers do not."""
    auto = step_settings(load_config(None, ["training.pairs=auto"]))
    assert {key: auto["train"][f"training.{key}"] for key in AUTO} == AUTO  # every setting the recipe fixes
    wider = step_settings(load_config(None, ["training.pairs=auto", "training.num_workers=8", "evaluation.actors=4"]))
    assert wider == auto
    other = step_settings(load_config(None, ["training.pairs=auto", "pipeline.guards=[knn:knn_accuracy]"]))
    assert [step for step in STEPS if other[step] != auto[step]] == ["register"]


def test_a_record_from_before_a_setting_existed_is_compared_with_its_default(tmp_path: Path):
    """Adding `training.average_with_base` (default 0) must not retrain a finished run that does not set it; a run
    that sets it must."""
    import json

    def record(name: str, *overrides: str) -> str | None:
        cfg = load_config(None, [f"run_dir={tmp_path / name}", "training.pairs=crops", *overrides])
        earlier = step_settings(cfg)["train"]
        del earlier["training.average_with_base"]  # as a version without the setting recorded it
        (tmp_path / name).mkdir()
        state = {"format": 1, "steps": {"train": {"outputs": {}, "seconds": 1, "settings": earlier, "inputs": {}}}}
        (tmp_path / name / "pipeline.json").write_text(json.dumps(state))
        return Pipeline(cfg).runner.outdated("train")

    assert record("plain") is None
    averaging = record("averaging", "training.average_with_base=0.5")
    assert averaging == "changed since the earlier run: training.average_with_base 0.0 → 0.5"


def test_a_record_from_before_the_recipe_was_recorded_is_not_retrained(tmp_path: Path):
    """Earlier versions recorded the recipe's settings as the user left them (None): the same choice, so upgrading
    redoes nothing; a value the run set then and leaves unset now is a change."""
    import json

    cfg = load_config(None, [f"run_dir={tmp_path}", "training.pairs=auto"])
    now = step_settings(cfg)["train"]
    assert now["training.loss"] == "infonce" and now["training.zero_stage"] == 0
    earlier = now | {"training.loss": None, "training.warmup_steps": None, "training.zero_stage": None}

    def outdated(settings: dict) -> str | None:
        state = {"format": 1, "steps": {"train": {"outputs": {}, "seconds": 1, "settings": settings, "inputs": {}}}}
        (tmp_path / "pipeline.json").write_text(json.dumps(state))
        return Pipeline(cfg).runner.outdated("train")

    assert outdated(earlier) is None
    assert (
        outdated(earlier | {"training.loss": "triplet"})
        == "changed since the earlier run: training.loss triplet → infonce"
    )


def test_a_title_run_that_trained_every_layer_is_retrained_and_says_why(tmp_path: Path):
    """Title pairs now train the upper half by default: a finished run recorded with every layer training is redone."""
    import json

    cfg = load_config(None, [f"run_dir={tmp_path}", "training.pairs=title"])
    earlier = step_settings(cfg)["train"] | {"training.freeze_embeddings": False, "training.freeze_layers": 0}
    state = {"format": 1, "steps": {"train": {"outputs": {}, "seconds": 1, "settings": earlier, "inputs": {}}}}
    (tmp_path / "pipeline.json").write_text(json.dumps(state))
    assert Pipeline(cfg).runner.outdated("train") == (
        "changed since the earlier run: training.freeze_embeddings False → True, training.freeze_layers 0 → half"
    )


def test_changed_corpus_settings_never_drop_papers_an_update_added(tmp_path: Path, sample_corpus_path):
    """Validation writes the corpus afresh, so over a grown corpus it is refused (before any work) unless forced."""
    import json

    from semcse.orchestration.pipeline import UPDATES_DIR

    cfg = load_config(None, [f"run_dir={tmp_path}", f"corpus.path={sample_corpus_path}"])
    recorded = step_settings(cfg)["validate"]
    state = {
        "format": 1,
        "steps": {"validate": {"outputs": {"corpus": "c"}, "seconds": 1, "settings": recorded, "inputs": {}}},
    }
    (tmp_path / "pipeline.json").write_text(json.dumps(state))
    (tmp_path / UPDATES_DIR / "0123").mkdir(parents=True)
    stricter = load_config(
        None, [f"run_dir={tmp_path}", f"corpus.path={sample_corpus_path}", "corpus.min_abstract_chars=500"]
    )
    with pytest.raises(
        ConfigError, match=r"corpus.min_abstract_chars 20 → 500, but 1 update\(s\) under .* would drop them"
    ):
        Pipeline(stricter).run(until="validate")
    Pipeline(cfg)._keep_added_papers()  # the same settings: nothing to refuse


@pytest.mark.parametrize("generated", [True, False])
def test_the_serve_step_serves_the_explorer_with_the_runs_texts(tmp_path: Path, monkeypatch, generated: bool):
    """Search (with the generated texts, when the run made some: the papers' summaries) and map, for the explorer."""
    from semcse.orchestration import serving

    cfg = load_config(None, [f"run_dir={tmp_path}", "pipeline.deploy=true"])
    pipeline = Pipeline(cfg)
    texts = str(tmp_path / "texts") if generated else None
    outputs = {"generate": {"texts": texts}, "train": {"model": "m"}, "index": {"index": "i"}, "map": {"map": "p"}}
    pipeline.state.steps = {step: {"outputs": values} for step, values in outputs.items()}
    deployed: dict = {}

    def deploy(cfg, apps_file, apps):
        deployed.update(settings=cfg.serve, apps=apps)
        return serving.ServeReport({}, {})

    monkeypatch.setattr(serving, "run_serve", deploy)
    pipeline.serve()
    assert deployed["apps"] == ["embed", "search", "map"]
    settings = deployed["settings"]
    assert (settings.encoder, settings.index, settings.map, settings.texts) == ("m", "i", "p", texts)
    assert ("texts" in settings.model_fields_set) == generated  # only set fields reach the apps' args


@pytest.mark.slow
def test_pipeline_runs_resumes_and_registers(built_run):
    """The shared run (`tests.fixtures.pipeline.built_run`): training cannot move the weights (learning rate 1e-12),
    so the outcome of register is known in advance; its corpus names its columns its own way, so validation writes
    canonical columns and no later step may read that file with the user's raw names."""
    cfg, state, again = built_run.cfg, built_run.first, built_run.second
    assert set(state.steps) == {"validate", "generate", "train", "evaluate"}
    assert state.steps["validate"]["outputs"]["accepted"] == BUILT
    assert Path(state.steps["generate"]["outputs"]["texts"]).is_dir()
    trained = Path(state.steps["train"]["outputs"]["model"])
    assert (trained / "modules.json").is_file()
    tables = state.steps["evaluate"]["outputs"]["suites"]
    # training delivered the base unchanged: the base is scored once, alone, with intervals and without the
    # figures that compare models (a second row under another name would be the same model embedded twice)
    assert set(tables) == {"semantic", "knn"} and set(tables["semantic"]["table"]) == {"base"}
    assert "improvement" not in tables["semantic"]["table"]["base"]
    assert set(tables["knn"]["intervals"]["base"]) >= {"knn_accuracy_ci_low", "knn_accuracy_ci_high"}
    assert state.steps["evaluate"]["outputs"]["incumbent"] == "base"

    assert again.steps["train"] == state.steps["train"], "a rerun must not retrain"
    assert set(again.steps) == {"validate", "generate", "train", "evaluate", "register", "index", "map", "serve"}
    register = again.steps["register"]["outputs"]
    # no step beat the base model on validation: the base is delivered, nothing is registered or promoted
    assert again.steps["train"]["outputs"]["version"] is None and not again.steps["train"]["outputs"]["improved"]
    assert not register["champion"] and register["verdict"].startswith("training delivered the base model unchanged")
    assert register["difference"]["difference"] == 0.0, "the delivered base evaluated as 'trained' must equal the base"
    assert alias_version(cfg.tracking, cfg.training.register_name, "champion") is None
    assert (Path(again.steps["index"]["outputs"]["index"])).is_dir()
    assert again.steps["index"]["outputs"]["papers"] == BUILT
    client = Tracker(cfg.tracking).client
    parent = client.get_run(again.parent_run_id)
    assert parent.info.status == "FINISHED"
    children = client.search_runs(
        [parent.info.experiment_id], filter_string=f"tags.mlflow.parentRunId = '{again.parent_run_id}'"
    )
    assert {r.info.run_name for r in children} >= {"train-crops"}

    # a changed promotion rule decides again on the same evaluation; nothing else is redone
    stricter = cfg.model_copy(update={"pipeline": cfg.pipeline.model_copy(update={"guards": ["knn:knn_accuracy"]})})
    decided = Pipeline(stricter).run()
    assert decided.steps["register"]["settings"]["pipeline.guards"] == ["knn:knn_accuracy"]
    assert {step: decided.steps[step] for step in STEPS if step != "register"} == {
        step: again.steps[step] for step in STEPS if step != "register"
    }

    # had a step beaten the base (recorded so here; the weights are the base's), the trained model is scored beside
    # the base, which is the incumbent with no champion, paired on every figure
    pipeline = Pipeline(cfg)
    pipeline.state.steps["train"]["outputs"]["improved"] = True
    tables = pipeline.evaluate()["suites"]
    assert set(tables["semantic"]["table"]) == {"base", "trained"}
    improvement = tables["semantic"]["versus_incumbent"]["improvement"]
    assert improvement["low"] <= improvement["difference"] <= improvement["high"]
    assert tables["semantic"]["table"]["base"]["improvement"] == 0.0, "the base is the reference"
    assert set(tables["knn"]["intervals"]["trained"]) >= {"knn_accuracy_ci_low", "knn_accuracy_ci_high"}
