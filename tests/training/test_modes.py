"""End-to-end: every pairs mode trains on 2 CPU workers with DeepSpeed ZeRO-2 over gloo and learns.

One run per pairs mode, the losses alternating so both are exercised on text and crop modes alike.
"Learns" means the logged loss falls (second half of the curve below the first) and the best
validation score beats the base model's (step 0). CLS pooling makes that a real test: the random
tiny encoder's [CLS] vector starts near chance (mean pooling would already rank by word overlap),
so better ranks mean it learned to summarise.
"""

from __future__ import annotations

import pytest
from semcse.training.trainer import train

RUNS = [
    ("semcse", "triplet"),
    ("summaries", "infonce"),
    ("same-input", "infonce"),
    ("aspect:methods", "triplet"),
    ("crops", "infonce"),
    ("dropout", "triplet"),
]
# Crop and aspect validation pairs share no sentence (summary pairs overlap by one), so the tiny random
# encoder needs more updates before its ranks pass the base model's.
STEPS = {"aspect:methods": 60, "crops": 60, "dropout": 60}


def metric_history(tracking, run_id: str, key: str) -> list[float]:
    from mlflow.tracking import MlflowClient

    history = MlflowClient(tracking_uri=tracking.tracking_uri).get_metric_history(run_id, key)
    return [m.value for m in sorted(history, key=lambda m: m.step)]


@pytest.mark.slow
@pytest.mark.parametrize(("pairs", "loss"), RUNS, ids=[f"{p}-{loss}" for p, loss in RUNS])
def test_mode_learns(ray_cluster, make_config, tracking, pairs: str, loss: str) -> None:
    overrides = {"training.pairs": pairs, "training.loss": loss, "training.pooling": "cls"}
    if pairs in STEPS:
        overrides["training.max_steps"] = STEPS[pairs]
    cfg = make_config(**overrides)
    result = train(cfg)

    losses = metric_history(tracking, result.run_id, "loss")
    scores = metric_history(tracking, result.run_id, "val_score")
    assert result.metrics["step"] == cfg.training.max_steps
    half = len(losses) // 2
    assert sum(losses[half:]) / (len(losses) - half) < sum(losses[:half]) / half, losses
    assert min(scores[1:]) < scores[0], scores  # scores[0] is the base model at step 0
    assert (result.model_dir / "modules.json").is_file()
    assert result.model_version is not None
