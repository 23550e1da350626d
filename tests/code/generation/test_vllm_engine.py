"""The vLLM engine's Ray side on a CPU: the processor `ray.data.llm` builds from our settings, and the rows around it.

vLLM itself is CUDA-only and not installed here, so no engine runs; everything else does:
`build_processor` needs only Ray, the processor's own pre- and postprocess wrappers are applied,
and the row the engine stage returns is built as Ray's vLLM stage builds it (its `vLLMOutputData`,
merged into the request row as its stage wrapper merges it).
"""

from __future__ import annotations

import functools

import pandas as pd
import pytest

from semcse.stages.generation.engines import (
    _from_vllm,
    _one_row_per_sample,
    _unwrap,
    sampling_params,
    vllm_input,
    vllm_processor_config,
)
from semcse.stages.generation.stages import ONLY, ROUND, SHARD, build_requests, explode_samples
from semcse.stages.generation.tasks import build_task


@pytest.fixture
def vllm_run(ray_cluster, gen_config, sample_records):
    """A summaries run on the vLLM engine with the default batching, its processor and its first request rows."""
    from ray.data.llm import build_processor

    cfg = gen_config("generation.engine=vllm", "generation.seed=7", "generation.batch_size=null").generation
    task = build_task(cfg)
    processor = build_processor(
        vllm_processor_config(cfg, str(cfg.model)),
        preprocess=functools.partial(vllm_input, sampling=sampling_params(cfg, task), model=str(cfg.model)),
        postprocess=_unwrap,
    )
    units = task.units(pd.DataFrame(sample_records[:2])).assign(**{SHARD: "s", ONLY: "", ROUND: 0})
    requests = build_requests(units, task, str(cfg.model), cfg.max_model_len - cfg.new_tokens, cfg.seed)
    rows = [sample for request in requests.to_dict("records") for sample in _one_row_per_sample(request)]
    return cfg, processor, rows


def test_the_processor_fits_a_gpu_and_skips_the_redundant_detokenize_stage(vllm_run):
    cfg, processor, _ = vllm_run
    assert list(processor.stages) == ["vLLMEngineStage"], "chat template, tokenize and detokenize are ours or vLLM's"
    config = processor.config
    assert config.batch_size == 64 and config.max_concurrent_batches * config.batch_size >= 2 * 256
    assert config.engine_kwargs["seed"] == 7 and config.engine_kwargs["enable_prefix_caching"]
    assert config.should_continue_on_error, "a failed request comes back as an error row, never ends the job"


def test_every_sample_is_its_own_seeded_request(vllm_run):
    cfg, processor, rows = vllm_run
    prepared = [processor.preprocess(row)[processor.DATA_COLUMN] for row in rows]
    seeds = [p["sampling_params"]["seed"] for p in prepared]
    assert len(prepared) == 2 * 2 * 2 and len(set(seeds)) == len(seeds), "samples of one prompt must differ"
    params = prepared[0]["sampling_params"]
    assert (params["temperature"], params["max_tokens"], params["stop"]) == (0.8, 12, ["\n"])
    assert all(len(p["tokenized_prompt"]) > 0 for p in prepared), "tokenized by us: Ray's tokenize stage is off"


def _engine_output(prepared: dict, **output) -> dict:
    """What Ray's vLLM stage leaves in the data column: the request row updated with the engine's output."""
    from ray.llm._internal.batch.stages.vllm_engine_stage import vLLMOutputData

    default = vLLMOutputData(prompt=prepared["prompt"], prompt_token_ids=None, num_input_tokens=0).model_dump()
    return {**prepared, **default, "request_id": -1, "batch_uuid": "b", "time_taken_llm": -1, "params": ""} | output


def test_an_error_row_becomes_an_engine_error_and_an_answer_says_why_it_ended(vllm_run):
    cfg, processor, rows = vllm_run
    prepared = processor.preprocess(rows[0])[processor.DATA_COLUMN]
    failed = _engine_output(prepared, __inference_error__="ValueError: the engine dropped the request")
    row = processor.postprocess({processor.DATA_COLUMN: failed})  # Ray's wrapper: error rows bypass `_unwrap`
    (sample,) = explode_samples(_from_vllm(row, max_tokens=cfg.new_tokens))
    assert sample["error"] == "ValueError: the engine dropped the request" and sample["raw"] == ""
    assert (sample["unit"], sample["prompt_id"], sample["sample"]) == (rows[0]["unit"], "p0", 0)
    assert sample["finish_reason"] == "" and sample["prompt_tokens"] == 0

    for generated, why in ((cfg.new_tokens, "length"), (5, "stop")):
        answer = _engine_output(
            prepared,
            generated_text=" the soil effects",
            num_generated_tokens=generated,
            num_input_tokens=40,
            __inference_error__="",
        )
        (sample,) = explode_samples(_from_vllm(processor.postprocess({processor.DATA_COLUMN: answer}), cfg.new_tokens))
        assert (sample["raw"], sample["finish_reason"], sample["error"]) == (" the soil effects", why, "")
        assert sample["prompt_tokens"] == 40 and sample["generated_tokens"] == generated
