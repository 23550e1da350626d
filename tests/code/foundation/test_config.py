"""Config loading: YAML + overrides, rejected with the key path and the reason."""

from __future__ import annotations

import pytest

from semcse.core.config import COSINE_RANK_SOFTNESS, ConfigError, RunConfig, flatten, load_config, with_overrides


def test_defaults_validate():
    cfg = load_config()
    assert isinstance(cfg, RunConfig)
    assert cfg.training.loss is None and cfg.training.recipe.loss == "triplet"
    assert cfg.generation.prompts is None and cfg.generation.samples_per_prompt == 3


@pytest.mark.parametrize(
    ("pairs", "loss", "temperature", "warmup"),
    [
        ("semcse", "triplet", 0.07, 0),  # SemCSE: triplet, margin 1, L2 1/250, full rate from the start
        ("summaries", "triplet", 0.07, 0),
        ("crops", "infonce", 0.05, 100),  # cropping paper: InfoNCE τ 0.05, linear warm-up then linear decay
        ("dropout", "infonce", 0.05, 100),
        ("aspect:methods", "infonce", 0.07, 0),  # SemCSE-Multi aspect encoders
    ],
)
def test_unset_objective_settings_follow_the_pairs_mode(pairs, loss, temperature, warmup):
    training = load_config(None, [f"training.pairs={pairs}", "training.max_steps=1000"]).training
    recipe = training.recipe
    assert (recipe.loss, recipe.temperature, recipe.warmup_steps) == (loss, temperature, warmup)
    assert training.loss is None and training.temperature is None  # what the user wrote stays unset
    explicit = load_config(None, [f"training.pairs={pairs}", "training.loss=triplet", "training.warmup_steps=7"])
    assert explicit.training.recipe.loss == "triplet" and explicit.training.recipe.warmup_steps == 7


def test_validation_ranks_one_scale_whatever_the_temperature():
    # a study varying τ scores its trials' val_score on one scale; the triplet loss keeps hard ranks
    softness = {
        tau: load_config(None, ["training.pairs=title", f"training.temperature={tau}"]).training.recipe.rank_softness
        for tau in (0.02, 0.05, 0.2)
    }
    assert set(softness.values()) == {COSINE_RANK_SOFTNESS}
    assert load_config(None, ["training.pairs=summaries"]).training.recipe.rank_softness == 0.0


@pytest.mark.parametrize(("gpu", "stage"), [(False, 0), (True, 2)])
def test_unset_zero_stage_follows_the_device(gpu, stage):
    training = load_config(None, [f"training.use_gpu={str(gpu).lower()}"]).training
    assert training.recipe.zero_stage == stage
    explicit = load_config(None, [f"training.use_gpu={str(gpu).lower()}", "training.zero_stage=3"]).training
    assert explicit.recipe.zero_stage == 3


def test_yaml_and_typed_overrides(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("name: x\ntraining:\n  batch_size: 8\n  pairs: crops\n")
    cfg = load_config(path, ["training.batch_size=16", "evaluation.suites=[semantic, knn]", "corpus.label_col=topic"])
    assert cfg.name == "x"
    assert cfg.training.batch_size == 16 and cfg.training.pairs == "crops"
    assert cfg.evaluation.suites == ["semantic", "knn"]
    assert cfg.training.recipe.temperature == 0.05


def test_unknown_key_names_its_path(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("training:\n  batch_sise: 8\n")
    with pytest.raises(ConfigError, match=r"training\.batch_sise: unknown key"):
        load_config(path)


def test_bad_value_names_path_and_value():
    with pytest.raises(ConfigError, match=r"training\.batch_size: .*integer.*'many'"):
        load_config(None, ["training.batch_size=many"])


def test_cross_field_rules():
    with pytest.raises(ConfigError, match="projection_dim"):
        load_config(None, ["training.projection=true"])
    with pytest.raises(ConfigError, match="unknown pairs mode 'nonsense'"):
        load_config(None, ["training.pairs=nonsense"])
    assert load_config(None, ["training.pairs=aspect:species"]).training.pairs == "aspect:species"
    with pytest.raises(ConfigError, match="zero_stage 0 with use_gpu"):
        load_config(None, ["training.use_gpu=true", "training.zero_stage=0"])


def test_override_syntax_errors(tmp_path):
    with pytest.raises(ConfigError, match="section.key=value"):
        load_config(None, ["training.batch_size"])
    path = tmp_path / "run.yaml"
    path.write_text("name: x\n")
    with pytest.raises(ConfigError, match="name is not a section"):
        load_config(path, ["name.sub=1"])
    with pytest.raises(ConfigError, match="name: Input should be a valid string"):
        load_config(None, ["name.sub=1"])


def test_missing_and_non_mapping_files(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "list.yaml"
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(bad)


def test_flatten_for_mlflow():
    flat = flatten(load_config(None, ["training.max_steps=7"]))
    assert flat["training.max_steps"] == 7
    assert flat["training.positive_mix.title"] == 0.15


def test_shipped_configs_validate_and_load_by_name():
    from semcse.core.resources import shipped

    configs = shipped("configs")
    assert {"demo", "semcse-paper", "invasion-biology-multi"} <= set(configs)
    for name, path in configs.items():
        assert load_config(name) == load_config(path)


def test_unknown_config_name_lists_the_shipped_ones():
    with pytest.raises(ConfigError, match=r"unknown run config 'no-such-config': not a YAML file.*'demo'"):
        load_config("no-such-config")


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ('multi.distill={"max_step": 5}', r"multi.distill \(overrides of `training`\): max_step: Extra inputs"),
        ('multi.aspect_training={"learning_rate": -1}', r"multi.aspect_training .*learning_rate: .*greater than 0"),
        ('multi.distill={"pairs": "crop"}', r"multi.distill .*unknown pairs mode 'crop'"),
    ],
)
def test_stage_training_overrides_are_checked_when_the_config_loads(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, [override])
    assert load_config(None, ['multi.distill={"max_steps": 5, "batch_size": 8}']).multi.distill["max_steps"] == 5


def test_a_validated_config_is_never_changed_in_place():
    """What a stage reads is what the user wrote: a section cannot be assigned to, and a derived config is another
    object that leaves the first as it was."""
    from pydantic import ValidationError

    cfg = load_config("demo")
    with pytest.raises(ValidationError, match="frozen"):
        cfg.training.max_steps = 3
    with pytest.raises(ValidationError, match="frozen"):
        cfg.training = cfg.training
    derived = with_overrides(cfg, {"training.max_steps": 3})
    assert (cfg.training.max_steps, derived.training.max_steps) == (40, 3)


def test_resolving_the_locations_keeps_what_the_user_set(tmp_path):
    """Resolving a run's locations (what `connect` returns) changes paths, never which settings the user chose: the
    stages read that to tell a choice from a default (separate `evaluation.data` is scored whole unless a split was
    chosen; a Serve app keeps its config file's arguments unless the run set them)."""
    from semcse.core.locations import resolved

    data = tmp_path / "papers.parquet"
    data.touch()
    cfg = resolved(load_config(None, [f"evaluation.data={data}", "serve.port=9000", "run_dir=runs/x"]))
    assert cfg.evaluation.data == str(data.resolve()) and cfg.run_dir.endswith("/runs/x")
    assert cfg.evaluation.model_fields_set == {"data"}, "split was not chosen: the whole of the data is scored"
    assert cfg.serve.model_fields_set == {"port"}
    chosen = resolved(load_config(None, [f"evaluation.data={data}", "evaluation.split=test"]))
    assert "split" in chosen.evaluation.model_fields_set


def test_the_pipeline_scores_separate_evaluation_data_whole_unless_a_split_was_chosen(tmp_path):
    """What the evaluate step asks the suites for, on a connected (resolved) config."""
    from semcse.core.locations import resolved
    from semcse.orchestration.pipeline import Pipeline

    data = tmp_path / "papers.parquet"
    data.touch()
    whole = Pipeline(resolved(load_config(None, [f"run_dir={tmp_path}", f"evaluation.data={data}"])))
    assert whole.evaluation_config().evaluation.split == "all"
    test_only = [f"run_dir={tmp_path}", f"evaluation.data={data}", "evaluation.split=test"]
    assert Pipeline(resolved(load_config(None, test_only))).evaluation_config().evaluation.split == "test"
