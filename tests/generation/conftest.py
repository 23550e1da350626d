"""Fixtures for the generation tests: a tiny causal LM that knows the prompt vocabulary, and run configs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from semcse.config import DEFAULT_SUMMARY_PROMPTS, RunConfig, load_config
from semcse.generation.tasks import TASKS

ASPECTS = "[species, ecosystem]"


def _prompt_texts(records: list[dict]) -> list[str]:
    """Every prompt the tasks render, so the tiny tokenizer learns their words and prompts stay short."""
    corpus = pd.DataFrame(records[:2])
    texts = []
    for name, task_cls in TASKS.items():
        for pack in ("invasion_biology", "medicine"):
            overrides = [
                f"generation.task={name}",
                f"generation.aspect_pack={pack}",
                "generation.judgement_aspect=methodology",
            ]
            task = task_cls(load_config(None, overrides).generation)
            for request in task.build(task.units(corpus).iloc[0].to_dict()):
                texts += [request.system, request.prompt]
    return texts


@pytest.fixture(scope="session")
def prompt_lm_dir(tmp_path_factory: pytest.TempPathFactory, sample_records: list[dict]) -> Path:
    """The tiny Llama, with a 3000-token vocabulary trained on the abstracts and the rendered prompts."""
    from semcse.models.tiny import build_tiny_causal_lm

    texts = [f"{r['title']} {r['abstract']}" for r in sample_records] + _prompt_texts(sample_records)
    return build_tiny_causal_lm(tmp_path_factory.mktemp("prompt-lm"), texts, vocab_size=3000)


@pytest.fixture
def gen_config(tmp_path: Path, sample_corpus_path: Path, prompt_lm_dir: Path, tracking) -> Callable[..., RunConfig]:
    """A small run: 4 abstracts in shards of 2, short generations, a context that forces truncation."""

    def make(*overrides: str) -> RunConfig:
        cfg = load_config(
            None,
            [
                f"corpus.path={sample_corpus_path}",
                f"generation.model={prompt_lm_dir}",
                f"generation.out={tmp_path / 'out'}",
                "generation.limit=4",
                "generation.shard_rows=2",
                "generation.samples_per_prompt=2",
                f"generation.prompts={json.dumps(DEFAULT_SUMMARY_PROMPTS[:2])}",
                "generation.aspect_pack=invasion_biology",
                f"generation.aspects={ASPECTS}",
                "generation.aspect_samples=2",
                "generation.judgement_aspect=species",
                "generation.judgement_abstracts=3",
                "generation.max_new_tokens=12",
                "generation.max_model_len=512",
                "generation.concurrency=2",
                "generation.batch_size=4",
                "generation.max_json_retries=0",
                *overrides,
            ],
        )
        cfg.tracking = tracking
        return cfg

    return make
