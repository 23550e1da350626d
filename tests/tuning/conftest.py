"""A tiny study on the tiny encoder: crops of the sample corpus, one worker per trial, a few steps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml


@pytest.fixture
def write_study(tmp_path: Path, tiny_encoder_dir: Path, sample_corpus_path: Path, tracking) -> Callable[..., Path]:
    """Write a study file whose fixed base trains 4 crop steps per trial; keyword args replace study keys."""

    def write(**study: Any) -> Path:
        content = {
            "name": "tiny",
            "fixed": {
                "run_dir": str(tmp_path / "run"),
                "corpus.path": str(sample_corpus_path),
                "corpus.label_col": "topic",
                "corpus.val_fraction": 0.3,
                "corpus.test_fraction": 0.2,
                "training.base_model": str(tiny_encoder_dir),
                "training.pairs": "crops",
                "training.loss": "infonce",
                "training.num_workers": 1,
                "training.batch_size": 4,
                "training.max_steps": 4,
                "training.eval_every": 2,
                "training.log_every": 2,
                "training.max_length": 48,
                "tracking.tracking_uri": tracking.tracking_uri,
                "tracking.artifact_location": tracking.artifact_location,
                "tracking.experiment": tracking.experiment,
            },
            "search": {"training.learning_rate": [1e-3, 1e-5], "training.temperature": [0.05, 0.5]},
            "max_concurrent_trials": 2,
        } | study
        path = tmp_path / f"{content['name']}.yaml"
        path.write_text(yaml.safe_dump(content), encoding="utf-8")
        return path

    return write
