"""The transformers actor class in-process: one row per sample, unparsable answers retried in place."""

from __future__ import annotations

import pandas as pd
import pytest

from semcse.generation.engines import TransformersGenerator
from semcse.generation.stages import ONLY, SHARD, build_requests
from semcse.generation.tasks import build_task


@pytest.fixture
def aspect_requests(gen_config, sample_records):
    cfg = gen_config("generation.task=aspects").generation
    task = build_task(cfg)
    units = task.units(pd.DataFrame(sample_records[:3])).assign(**{SHARD: "s", ONLY: ""})
    requests = build_requests(units, task, cfg.model, cfg.max_model_len - cfg.max_new_tokens)
    return cfg, task, requests


def generator(cfg, task, temperature: float, retries: int) -> TransformersGenerator:
    return TransformersGenerator(cfg.model, cfg.max_new_tokens, temperature, cfg.top_p, cfg.seed, task, retries)


def test_unparsable_answers_are_retried_in_place(aspect_requests):
    cfg, task, requests = aspect_requests
    rows = generator(cfg, task, temperature=1.0, retries=2)(requests)

    assert len(rows) == 3 * 2 * 2  # abstracts × aspects × samples, each sample exactly once
    assert not rows.duplicated(["unit", "prompt_id", "sample"]).any()
    invalid = rows.apply(lambda r: task.parse(r["prompt_id"], r["raw"]).status == "invalid", axis=1)
    assert invalid.any(), "the tiny LM should write some unusable JSON"
    assert (rows.loc[invalid, "attempts"] == 3).all()  # still unusable after both retries
    assert rows["attempts"].between(1, 3).all()
    first = generator(cfg, task, temperature=1.0, retries=0)(requests)
    assert first["generated_tokens"].sum() < rows["generated_tokens"].sum()  # retries are counted


def test_greedy_decoding_is_not_retried(aspect_requests):
    cfg, task, requests = aspect_requests
    rows = generator(cfg, task, temperature=0.0, retries=2)(requests)
    assert len(rows) == 12 and (rows["attempts"] == 1).all()
