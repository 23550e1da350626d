"""A reduced pipeline config on the sample corpus with tiny models, written to a temp dir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml


def write_config(path: Path, run_dir: Path, store: Path, **sections: Any) -> Path:
    """The demo pipeline shrunk for tests: tiny encoder, few steps, one worker."""
    config: dict[str, Any] = {
        "name": "pipeline-test",
        "run_dir": str(run_dir),
        "corpus": {
            "path": str(Path(__file__).resolve().parents[2] / "examples" / "sample_corpus.jsonl"),
            "label_col": "topic",
            "val_fraction": 0.25,
            "test_fraction": 0.25,
        },
        "tracking": {
            "tracking_uri": f"sqlite:///{store / 'mlflow.db'}",
            "artifact_location": str(store / "mlruns"),
            "experiment": f"pipeline-{run_dir.name}",
        },
        "training": {
            "pairs": "crops",
            "loss": "infonce",
            "batch_size": 4,
            "max_length": 64,
            "max_steps": 6,
            "eval_every": 3,
            "num_workers": 1,
        },
        "evaluation": {"suites": ["semantic", "knn"], "label_col": "topic", "batch_size": 16, "max_length": 64},
    }
    for section, values in sections.items():
        config.setdefault(section, {}).update(values)
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.fixture
def pipeline_config(tmp_path: Path, mlflow_store: Path, tiny_encoder_dir: Path):
    def make(**sections: Any) -> Path:
        training = {"base_model": str(tiny_encoder_dir), **sections.pop("training", {})}
        return write_config(tmp_path / "run.yaml", tmp_path / "run", mlflow_store, training=training, **sections)

    return make
