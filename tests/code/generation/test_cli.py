"""`semcse generate` and jobs/generate.py: bad input ends with one clear line and status 2, before any Ray work."""

from __future__ import annotations

import importlib.util

import pytest
from typer.testing import CliRunner

from semcse.cli import app


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "no engine model configured"),
        (["--model", "./no/such/model"], "model path not found"),
        (["--model", "{lm}", "--task", "aspects", "--set", "generation.aspect_pack=astrology"], "unknown aspect pack"),
        (
            [
                "--model",
                "{lm}",
                "--task",
                "queries",
                "-s",
                "generation.max_model_len=120",
                "-s",
                "generation.max_new_tokens=8",
            ],
            "leaves no room",
        ),
        (["--model", "{lm}", "--engine", "gpt"], "generation.engine"),
    ],
)
def test_generate_user_errors(args, message, sample_corpus_path, prompt_lm_dir, tmp_path):
    args = [a.replace("{lm}", str(prompt_lm_dir)) for a in args]
    result = CliRunner().invoke(
        app, ["generate", "--corpus", str(sample_corpus_path), "--out", str(tmp_path / "o"), *args]
    )
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())


def _generate_job(repo_root):
    spec = importlib.util.spec_from_file_location("generate_job", repo_root / "jobs" / "generate.py")
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    return job


def test_job_script_reports_errors(repo_root, sample_corpus_path, capsys):
    assert _generate_job(repo_root).main(["--corpus", str(sample_corpus_path), "--engine", "http"]) == 2
    assert "the model name the server serves" in capsys.readouterr().err


@pytest.mark.slow
def test_job_script_prints_only_the_run_report_as_json(
    ray_cluster, repo_root, sample_corpus_path, prompt_lm_dir, tmp_path, capsys
):
    """`jobs/generate.py` is `semcse generate --json`: stdout is the report, progress stays on stderr."""
    import json

    args = ["--corpus", str(sample_corpus_path), "--model", str(prompt_lm_dir), "--out", str(tmp_path / "o")]
    settings = {
        "generation.limit": "2",
        "generation.samples_per_prompt": "1",
        "generation.prompts": json.dumps(["In summary, our research is concerned with"]),
        "generation.max_new_tokens": "8",
        "tracking.enabled": "false",
    }
    args += [x for key, value in settings.items() for x in ("--set", f"{key}={value}")]
    assert _generate_job(repo_root).main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["task"] == "summaries" and report["units"] == 2 and report["out"] == str(tmp_path / "o")
    assert report["rows_written"] + report["rejects_written"] == 2


def test_vllm_processor_config_carries_the_engine_settings():
    """The vLLM path is configured without importing vllm (it only runs on GPU workers)."""
    from semcse.core.config import load_config
    from semcse.stages.generation.engines import vllm_processor_config

    gen = load_config(
        None, ["generation.engine=vllm", "generation.tensor_parallel_size=2", "generation.concurrency=3"]
    )
    config = vllm_processor_config(gen.generation, "/models/llama")
    assert config.engine_kwargs["enable_prefix_caching"] is True
    assert config.engine_kwargs["tensor_parallel_size"] == 2 and config.engine_kwargs["max_model_len"] == 4096
    assert config.should_continue_on_error and config.concurrency == 3


def test_vllm_requests_carry_exactly_one_bos(tiny_causal_lm_dir, tmp_path):
    """A Llama-style tokenizer (BOS added on encode, BOS written by the chat template): one BOS per request."""
    from tokenizers import processors
    from transformers import AutoTokenizer

    from semcse.stages.generation.engines import vllm_input
    from semcse.testing import CHAT_TEMPLATE

    tokenizer = AutoTokenizer.from_pretrained(tiny_causal_lm_dir)
    bos = tokenizer.bos_token_id
    tokenizer._tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", bos)])
    tokenizer.chat_template = "{{ bos_token }}" + CHAT_TEMPLATE
    tokenizer.save_pretrained(tmp_path)
    chat = {"chat": True, "system": "Be brief.", "prompt": "Summarise the abstract.", "seed": 3}
    plain = {"chat": False, "system": "", "prompt": "In summary, this paper", "seed": 3}
    templated = tokenizer.apply_chat_template([{"role": "user", "content": "x"}], tokenize=False)
    assert tokenizer(templated)["input_ids"][:2] == [bos, bos], "what templating then tokenizing again gives"
    for row in (chat, plain):
        request = vllm_input(row, {"max_tokens": 8}, str(tmp_path))
        assert request["tokenized_prompt"][0] == bos and request["tokenized_prompt"].count(bos) == 1, row
        assert request["sampling_params"] == {"max_tokens": 8, "seed": 3}
    assert "Summarise the abstract." in vllm_input(chat, {}, str(tmp_path))["prompt"]


def test_generate_help_states_the_token_budget_of_each_task():
    from typer.testing import CliRunner

    from semcse.cli import app

    result = CliRunner().invoke(app, ["generate", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for budget in ("summaries 96", "queries 64", "aspects 128", "judgements 384"):
        assert budget in " ".join(result.output.split())


def test_each_task_has_its_own_token_budget_unless_one_is_set():
    import pytest

    from semcse.core.config import GenerationConfig

    assert GenerationConfig(task="judgements").new_tokens == 384
    assert GenerationConfig(task="summaries").new_tokens == 96, "the paper's run config: 48 cut summaries off"
    assert GenerationConfig(task="judgements", max_new_tokens=100).new_tokens == 100
    with pytest.raises(ValueError, match="384 for task judgements.*max_model_len"):
        GenerationConfig(task="judgements", max_model_len=300)


def test_each_task_samples_at_its_own_temperature_unless_one_is_set():
    from semcse.core.config import GenerationConfig

    assert GenerationConfig(task="judgements").sampling_temperature == 0.2, "a judge samples cold"
    assert GenerationConfig(task="summaries").sampling_temperature == 0.8
    assert GenerationConfig(task="judgements", temperature=0.7).sampling_temperature == 0.7
    # one run config: aspect summaries sampled hot, their judgements cold
    per_task = {"temperature": 0.7, "task_temperature": {"judgements": 0.1}}
    assert GenerationConfig(task="aspects", **per_task).sampling_temperature == 0.7
    assert GenerationConfig(task="judgements", **per_task).sampling_temperature == 0.1
    with pytest.raises(ValueError, match="task_temperature"):
        GenerationConfig(task_temperature={"essays": 0.1})


def test_engines_batch_what_their_hardware_wants_unless_told():
    from semcse.core.config import GenerationConfig

    assert GenerationConfig(engine="vllm").rows_per_batch == 64, "x 8 batches in flight: twice vLLM's 256 sequences"
    assert GenerationConfig(engine="transformers").rows_per_batch == 8
    assert GenerationConfig(engine="http").rows_per_batch == 32, "a full window of requests in flight"
    assert GenerationConfig(engine="vllm", batch_size=128).rows_per_batch == 128


def test_json_answers_are_constrained_to_their_schema_on_vllm_and_http():
    from semcse.core.config import load_config
    from semcse.stages.generation.engines import sampling_params
    from semcse.stages.generation.tasks import build_task

    def params(engine: str, *extra: str) -> dict:
        overrides = [
            "generation.task=judgements",
            "generation.aspect_pack=medicine",
            "generation.judgement_aspect=disease",
            f"generation.engine={engine}",
            *extra,
        ]
        gen = load_config(None, overrides).generation
        return sampling_params(gen, build_task(gen))

    schema = params("vllm")["structured_outputs"]["json"]
    assert schema["required"] == ["reasoning", "score"] and schema["properties"]["score"]["maximum"] == 5
    assert params("http")["response_format"]["json_schema"]["schema"] == schema
    assert "response_format" not in params("http", "generation.structured_output=false")
    assert "structured_outputs" not in params("transformers") and params("vllm")["max_tokens"] == 384
