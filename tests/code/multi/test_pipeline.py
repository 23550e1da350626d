"""Both SemCSE-Multi stages with a tiny encoder, in this process (`training.launcher: local`): aspect encoders
(2 aspects, one after the other), then the unified model distilled from them; its heads must isolate their aspects,
and the `aspects` suite must run on it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from semcse.core.config import RunConfig, TrackingConfig, load_config
from semcse.core.tracking import Tracker
from semcse.models.unified import UnifiedEncoder
from semcse.stages.embedding import ModelRef
from tests.fixtures.multi import same_attribute_precision
from tests.paths import mlflow_tracking

ASPECTS = ["species", "method"]


def multi_config(root: Path, data: dict[str, Path], tracking: TrackingConfig, **extra: object) -> RunConfig:
    values = {
        "run_dir": str(root / "run"),
        "corpus.path": str(data["corpus"]),
        "corpus.val_fraction": 0.2,
        "corpus.test_fraction": 0.0,
        "training.base_model": str(data["encoder"]),
        "training.batch_size": 16,
        "training.launcher": "local",
        "training.num_workers": 1,
        "training.zero_stage": 0,
        "training.learning_rate": 0.002,
        "training.log_every": 25,
        "training.patience": 3,
        "multi.texts": str(data["texts"]),
        "multi.aspects": ASPECTS,
        "multi.head_dim": 16,
        "multi.aspect_encoders": str(root / "aspect-encoders"),
        "multi.aspect_training": {"max_steps": 20, "eval_every": 20},
        "multi.distill": {"max_steps": 150, "eval_every": 50},
        "multi.out": str(root / "unified"),
        **extra,
    }
    cfg = load_config(None, [f"{k}={v}" for k, v in values.items()])
    return cfg.model_copy(update={"tracking": tracking})


@pytest.fixture(scope="module")
def tracking_cfg(mlflow_store: Path) -> TrackingConfig:
    return TrackingConfig(**mlflow_tracking(mlflow_store, "tests.multi.pipeline"))


@pytest.fixture(scope="module")
def trained(multi_data, tracking_cfg, tmp_path_factory: pytest.TempPathFactory) -> dict:
    from semcse.stages.training.aspect_encoders import train_aspects
    from semcse.stages.training.distill import distill

    root = tmp_path_factory.mktemp("multi-run")
    cfg = multi_config(root, multi_data, tracking_cfg)
    stage_one = train_aspects(cfg)
    stage_two = distill(cfg)
    return {"cfg": cfg, "aspects": stage_one, "unified": stage_two, "root": root}


def test_aspect_encoders_are_children_of_one_parent_run(trained: dict, tracking_cfg: TrackingConfig) -> None:
    result = trained["aspects"]
    assert sorted(result.encoders) == sorted(ASPECTS)
    assert all((Path(path) / "modules.json").is_file() for path in result.encoders.values())
    client = Tracker(tracking_cfg).client
    for aspect, run in result.results.items():
        tags = client.get_run(run.run_id).data.tags
        assert tags["mlflow.parentRunId"] == result.run_id and tags["aspect"] == aspect
        assert client.get_run(run.run_id).data.params["training.projection_dim"] == "16"


def test_each_head_isolates_its_own_aspect(trained: dict, multi_data: dict[str, Path]) -> None:
    result = trained["unified"]
    model = UnifiedEncoder.load(result.model_dir)
    assert model.aspects == ASPECTS and result.model_version is not None
    attrs = pd.read_parquet(multi_data["attributes"])
    corpus = pd.read_parquet(multi_data["corpus"])
    vectors = model.encode((corpus["title"] + " " + corpus["abstract"]).tolist())
    precision = {
        (head, attribute): same_attribute_precision(vectors[head], attrs[attribute].to_numpy())
        for head in ASPECTS
        for attribute in ASPECTS
    }
    print("same-attribute precision@5 (head, attribute):", precision)
    for attribute in ASPECTS:
        other = next(a for a in ASPECTS if a != attribute)
        assert precision[(attribute, attribute)] > precision[(other, attribute)] + 0.2, precision


def test_aspects_suite_runs_on_the_distilled_model(trained: dict, multi_data: dict[str, Path], tmp_path: Path) -> None:
    from semcse.stages.evaluation import aspects

    cfg = trained["cfg"]
    cfg = cfg.model_copy(
        update={
            "evaluation": cfg.evaluation.model_copy(
                # this corpus has no test split (test_fraction 0): its validation abstracts are the held-out ones
                update={"judgements": str(multi_data["judgements"]), "texts": str(multi_data["texts"]), "split": "val"}
            )
        }
    )
    model = UnifiedEncoder.load(trained["unified"].model_dir)
    result = aspects.run([ModelRef("multi", model)], multi_data["corpus"], cfg, tmp_path)
    matrix = result.details["correlation_multi"]
    print(matrix)
    assert {"mrr:species", "mrr_others:species", "spearman:method"} <= set(result.table.columns)
    for judged in ASPECTS:
        assert matrix.loc[judged, judged] > max(matrix.loc[a, judged] for a in ASPECTS if a != judged)


def test_direct_ablation_prepares_pairs_and_trains_each_head(
    multi_data, tracking_cfg, tmp_path: Path, monkeypatch
) -> None:
    """The direct ablation's data, objective and validation, without a Ray run (the loop is the same as distill's)."""
    from semcse.stages.training import distill
    from semcse.stages.training.aspect_encoders import stage_training
    from semcse.stages.training.distill import DirectObjective, build_unified, prepare_distill

    cfg = multi_config(tmp_path, multi_data, tracking_cfg, **{"multi.direct": True})
    tc = stage_training(cfg, cfg.multi.distill, "multi.distill")
    data = prepare_distill(cfg, tc)
    assert data.aspects == ASPECTS and set(data.validation.queries) == set(ASPECTS)
    model = build_unified(tc, data.aspects, cfg.multi.head_dim)
    objective = DirectObjective(tc, len(ASPECTS))
    rows = {c: data.train_rows[c].head(16).to_numpy() for c in data.train_rows.columns}
    built: list[list[str]] = []
    build = distill.TokenBatches.build
    monkeypatch.setattr(
        distill.TokenBatches, "build", lambda tok, texts, *a: built.append(texts) or build(tok, texts, *a)
    )
    batch = objective.collate_fn(model, 0)(rows)
    assert set(batch["heads"].tolist()) == {0, 1}
    # A.7: summaries are matched to each other and to their abstracts, so the model learns to embed abstracts
    pairs, abstracts = len(batch["heads"]), set(map(str, rows["text"]))
    anchors, positives = built[0][:pairs], built[0][pairs:]
    assert 0 < sum(p in abstracts for p in positives) < pairs and not abstracts & set(anchors)
    objective.loss(model, batch).backward()
    assert all(head.weight.grad is not None and head.weight.grad.abs().sum() > 0 for head in model.heads.values())
    metrics = data.validate(model, data.validation).metrics
    assert set(metrics) == {"val_rank:species", "val_rank:method", "val_score"} and np.isfinite(metrics["val_score"])
