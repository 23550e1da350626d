"""Misconfigurations fail before any Ray work starts, with a message naming the problem."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import semcse.core.runtime
from semcse.cli import app
from semcse.core.config import ConfigError, with_overrides
from semcse.stages.training.trainer import TrainingSetupError, prepare, train


@pytest.fixture(autouse=True)
def no_ray(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("Ray was started for a configuration that should have been rejected")

    monkeypatch.setattr(semcse.core.runtime, "init_ray", refuse)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"training.pooling": "max"}, "training.pooling"),
        ({"training.projection": True}, "projection_dim is not set"),
        ({"training.launcher": "ray", "training.num_workers": 2, "training.batch_size": 7}, "multiple of num_workers"),
        ({"training.num_workers": 2}, "launcher local trains in this process, one worker"),
        # one line that says what the setting takes, not one per branch of its type
        (
            {"training.freeze_layers": "lower"},
            r"\ntraining\.freeze_layers: takes a number of layers \(0 or more\) or 'half'",
        ),
        ({"training.freeze_layers": -1}, r"freeze_layers: takes a number of layers .*\(got -1\)$"),
    ],
)
def test_invalid_config_values(make_config, overrides: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_config(**overrides)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"training.pairs": "crops", "training.min_sentence_chars": 240}, "no training pairs after filtering"),
        ({"training.pairs": "aspect:nonexistent"}, "no training pairs after filtering"),
        ({"training.batch_size": 64}, "batch_size 64 is larger than the training data"),
        ({"training.texts": None}, "needs generated texts|pass --texts"),
        ({"training.base_model": "/nonexistent/model"}, "cannot build the encoder"),
        ({"training.freeze_layers": 5}, "only 2 layers"),
        ({"training.freeze_embeddings": True, "training.freeze_layers": 2}, "leaves nothing to train"),
        ({"corpus.val_fraction": 0.0}, r"no validation abstracts.*id hash.*raise corpus.val_fraction"),
        ({"corpus.label_col": "field"}, "corpus.label_col='field' is not a column"),
    ],
)
def test_setup_errors_before_any_work(make_config, overrides: dict, message: str) -> None:
    cfg = make_config(**{k: v for k, v in overrides.items() if v is not None})
    if overrides.get("training.texts", "") is None:
        cfg = with_overrides(cfg, {"training.texts": None})
    with pytest.raises(TrainingSetupError, match=message):
        train(cfg)


def test_cli_reports_misconfiguration(make_config, tiny_encoder_dir, sample_corpus_path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "train",
            "--pairs",
            "crops",
            "--corpus",
            str(sample_corpus_path),
            "--base-model",
            str(tiny_encoder_dir),
            "--set",
            "training.pooling=max",
        ],
    )
    assert result.exit_code == 2
    assert "training.pooling" in result.output


def test_a_split_column_that_leaves_no_training_rows_is_named(make_config, sample_records, tmp_path) -> None:
    """The first rows of a corpus whose split column marks them all `test` give no training pairs: the message
    names the split column, not the crop settings."""
    import pandas as pd

    corpus = tmp_path / "all-test.parquet"
    pd.DataFrame(sample_records).assign(split="test").to_parquet(corpus)
    with pytest.raises(TrainingSetupError, match=r"no training abstracts: its split column 'split' .*\{'test': 40\}"):
        prepare(make_config(**{"corpus.path": str(corpus), "training.pairs": "crops"}))
