"""The transformers actor class in-process: one row per sample, unparsable answers retried in place, why each ended."""

from __future__ import annotations

import pandas as pd
import pytest

from semcse.stages.generation.engines import TransformersGenerator, encodable_stop_strings
from semcse.stages.generation.stages import ONLY, ROUND, SHARD, build_requests
from semcse.stages.generation.tasks import build_task


@pytest.fixture
def aspect_requests(gen_config, sample_records):
    cfg = gen_config("generation.task=aspects").generation
    task = build_task(cfg)
    units = task.units(pd.DataFrame(sample_records[:3])).assign(**{SHARD: "s", ONLY: "", ROUND: 0})
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


def test_every_answer_says_why_it_ended(aspect_requests, gen_config):
    """An answer that used its whole budget without an end is `length`; one ended by EOS or a stop string `stop`."""
    cfg, task, requests = aspect_requests
    rows = generator(cfg, task, temperature=1.0, retries=0)(requests)
    assert set(rows["finish_reason"]) <= {"stop", "length"} and (rows["finish_reason"] == "length").any()

    summaries = gen_config("generation.task=summaries").generation
    lm = generator(summaries, build_task(summaries), temperature=1.0, retries=0)
    words = lm.tokenizer(" soil microbes", add_special_tokens=False)["input_ids"]
    newline = lm.tokenizer("\n more", add_special_tokens=False)["input_ids"]
    eos = lm.tokenizer.eos_token_id
    budget = summaries.max_new_tokens
    assert lm._answer(words * budget, budget)[1] == "length"
    assert lm._answer([*words, eos, eos], len(words) + 1) == (" soil microbes", "stop")
    # the stop string is cut off, as vLLM and OpenAI servers return answers
    assert lm._answer([*words, *newline][:budget], len(words) + len(newline)) == (" soil microbes", "stop")


def test_a_stop_string_the_tokenizer_cannot_encode_is_found_before_generate(no_newline_lm_dir, prompt_lm_dir, caplog):
    """transformers' `generate` raises on such a stop string (inside a Ray actor: the whole job); the driver's
    check drops it with one warning, and answers are still cut at it after decoding."""
    from transformers import AutoTokenizer, StopStringCriteria

    with pytest.raises(ValueError, match="Stop string preprocessing"):  # what the actor used to meet
        StopStringCriteria(AutoTokenizer.from_pretrained(no_newline_lm_dir), ["\n"])
    with caplog.at_level("WARNING", logger="semcse"):
        assert encodable_stop_strings(str(no_newline_lm_dir), ["\n"]) == []
    assert len(caplog.records) == 1 and "no tokens for the stop string(s) '\\n'" in caplog.records[0].getMessage()
    assert encodable_stop_strings(str(prompt_lm_dir), ["\n"]) == ["\n"]
