"""The three LLM engines, each a Ray Data stage from request rows to per-sample rows.

- `transformers`: our own actor class over `model.generate` (CPU default, tests): left-padded
  batches, and the samples of one prompt as one call with `num_return_sequences`. It retries
  unparsable answers in place, with the model it already holds, so no retry round has to start
  actors and load the model again.
- `http`: our own actor (`http_engine.HttpGenerator`) against any OpenAI-compatible server: the
  samples of one prompt are one request with `n`, many requests in flight per actor, backoff on
  overload, and failed requests returned as error rows (quarantined) instead of ending the run.
- `vllm`: `ray.data.llm.vLLMEngineProcessorConfig` (GPU). Ray's vLLM stage returns only the first
  completion of a request, so a request with `n` samples would lose samples; instead each sample
  is its own row (with a seed of its own), adjacent to its siblings, and vLLM's prefix cache (on by
  default) serves the shared prompt from one prefill.

Every engine says why each answer ended (`finish_reason`: `stop` or `length`), so an answer cut
off by its token budget is told from one that ended; the pipeline rejects cut-off summaries.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from semcse.core.config import GenerationConfig
from semcse.core.data.schema import records
from semcse.stages.generation.stages import LENGTH, STOP, derived_seed, explode_samples, request_meta
from semcse.stages.generation.tasks import Task

if TYPE_CHECKING:
    import ray.data

log = logging.getLogger(__name__)

LIGHT_TASK_CPUS = 0.25


def request_stage_resources(cfg: GenerationConfig) -> dict[str, float]:
    """Resources of the stage that builds requests from units.

    For the transformers engine they equal the actor's, so Ray Data fuses the two stages: requests
    are built inside the actor's process, and no extra worker processes (each importing a
    tokenizer) compete with the model for the cores. The other engines send requests elsewhere
    and keep a light task of their own.
    """
    if cfg.engine == "transformers":
        return {"num_cpus": cfg.num_cpus_per_actor, "num_gpus": cfg.num_gpus_per_actor}
    return {"num_cpus": LIGHT_TASK_CPUS}


def retries_in_place(cfg: GenerationConfig) -> bool:
    """Whether the engine retries unparsable answers itself (else the pipeline runs retry rounds)."""
    return cfg.engine == "transformers"


def encodable_stop_strings(model: str, stop: Sequence[str]) -> list[str]:
    """The stop strings that `model`'s tokenizer can stop `generate` at; checked on the driver, before any Ray work.

    transformers matches stop strings against the vocabulary's tokens and raises inside
    `generate` (in a Ray actor, ending the job) when a string has no tokens, e.g. "\n" for a
    byte-level BPE trained without the byte alphabet. Such a model can never write that string,
    so nothing is lost by not stopping at it: the answer runs to its budget and is cut at the
    string after decoding, like every other answer. One warning says so.
    """
    if not stop:
        return []
    from transformers import StopStringCriteria

    tokenizer = _tokenizer(model)
    usable, refused = [], []
    for text in stop:
        try:
            StopStringCriteria(tokenizer, [text])
        except ValueError:
            refused.append(text)
        else:
            usable.append(text)
    if refused:
        log.warning(
            "the tokenizer of %s has no tokens for the stop string(s) %s: generation cannot stop early at them "
            "(the model cannot write them either); answers are cut at them after decoding",
            model,
            ", ".join(repr(t) for t in refused),
        )
    return usable


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """`text` up to its first stop string (excluded, as vLLM and OpenAI servers do), and whether there was one."""
    ends = [i for i in (text.find(s) for s in stop) if i >= 0]
    return (text[: min(ends)], True) if ends else (text, False)


class TransformersGenerator:
    """Ray Data actor UDF: loads a local causal LM once and answers batches of requests.

    With a `task`, samples that its parser rejects are generated again, up to `retries` times, in
    the same call. Greedy decoding would only repeat itself, so it is never retried. `stop_strings`
    are those the driver found the tokenizer can stop at (`encodable_stop_strings`); answers are cut
    at every one of the task's stop strings after decoding either way.
    """

    def __init__(
        self,
        model_path: str,
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        seed: int,
        task: Task | None = None,
        retries: int = 0,
        stop_strings: Sequence[str] = (),
    ) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from semcse.core.tracking import resolve_model

        model_path = resolve_model(model_path)  # on this actor's node: a registry reference or URI is fetched here
        self.torch = torch
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        dtype = torch.bfloat16 if self.device == "cuda" else torch.float32
        model: Any = AutoModelForCausalLM.from_pretrained(model_path, dtype=dtype)
        self.model = model.to(self.device).eval()
        eos = self.model.generation_config.eos_token_id
        self.eos_ids = set(eos if isinstance(eos, list) else [eos]) - {None}
        self.max_new_tokens = max_new_tokens
        self.sampling = (
            {"do_sample": True, "temperature": temperature, "top_p": top_p}
            if temperature > 0
            else {"do_sample": False}
        )
        torch.manual_seed(seed)
        self.task = task
        self.stop = tuple(task.stop) if task is not None else ()
        self.stop_strings = list(stop_strings)
        self.retries = retries if task is not None and self.sampling["do_sample"] else 0

    def _text(self, row: dict[str, Any]) -> str:
        if not row["chat"]:
            return row["prompt"]
        messages = [{"role": "user", "content": row["prompt"]}]
        if row["system"]:
            messages.insert(0, {"role": "system", "content": row["system"]})
        return str(self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False))

    def _generated_length(self, tokens: list[int]) -> int:
        """Tokens up to and including the first end-of-sequence; padding after it is not generation."""
        for i, token in enumerate(tokens):
            if token in self.eos_ids:
                return i + 1
            if token == self.tokenizer.pad_token_id:
                return i
        return len(tokens)

    def _answer(self, tokens: list[int], length: int) -> tuple[str, str]:
        """The decoded answer cut at the task's stop strings, and why it ended (`stop` or `length`)."""
        decoded = self.tokenizer.decode(tokens[:length], skip_special_tokens=True)
        text, stopped = cut_at_stop(str(decoded), self.stop)
        ended = stopped or any(t in self.eos_ids for t in tokens[:length]) or length < self.max_new_tokens
        return text, STOP if ended else LENGTH

    def generate(self, rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
        """One `generate` call for requests that all want `n` samples (greedy decoding samples once)."""
        chat = bool(rows[0]["chat"])
        enc = self.tokenizer(
            [self._text(r) for r in rows], return_tensors="pt", padding=True, add_special_tokens=not chat
        ).to(self.device)
        returns = n if self.sampling["do_sample"] else 1
        stop = {"stop_strings": self.stop_strings, "tokenizer": self.tokenizer} if self.stop_strings else {}
        with self.torch.inference_mode():
            out = self.model.generate(
                **enc,
                max_new_tokens=self.max_new_tokens,
                num_return_sequences=returns,
                pad_token_id=self.tokenizer.pad_token_id,
                **self.sampling,
                **stop,
            )
        new = out[:, enc["input_ids"].shape[1] :].tolist()
        results = []
        for i, row in enumerate(rows):
            seqs = new[i * returns : (i + 1) * returns]
            lengths = [self._generated_length(s) for s in seqs]
            answers = [self._answer(s, k) for s, k in zip(seqs, lengths)]
            results.append(
                {
                    **request_meta(row),
                    "raws": [raw for raw, _ in answers] * (n // returns),
                    "finish_reasons": [finish for _, finish in answers] * (n // returns),
                    "attempts": [1] * n,
                    "prompt_tokens": int(enc["attention_mask"][i].sum()),
                    "generated_tokens": sum(lengths),
                    "error": "",
                }
            )
        return results

    def generate_all(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One result per request, in request order; one `generate` call per (samples, chat) group."""
        groups: dict[tuple[int, bool], list[int]] = {}
        for i, row in enumerate(rows):
            groups.setdefault((len(row["samples"]), bool(row["chat"])), []).append(i)
        results: list[dict[str, Any]] = [{} for _ in rows]
        for (n, _), members in groups.items():
            for i, result in zip(members, self.generate([rows[i] for i in members], n)):
                results[i] = result
        return results

    def unusable(self, result: dict[str, Any]) -> list[int]:
        """Positions of the samples in `result` that the task's parser rejects (none without a task to parse)."""
        task = self.task
        if task is None:
            return []
        return [
            k
            for k, (raw, finish) in enumerate(zip(result["raws"], result["finish_reasons"]))
            if task.parse(result["prompt_id"], raw, finish).status == "invalid"
        ]

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        rows = records(batch)
        results = self.generate_all(rows)
        for _ in range(self.retries):
            redo = [(i, positions) for i, result in enumerate(results) if (positions := self.unusable(result))]
            if not redo:
                break
            again = self.generate_all(
                [{**rows[i], "samples": [rows[i]["samples"][k] for k in positions]} for i, positions in redo]
            )
            for (i, positions), fresh in zip(redo, again):
                result = results[i]
                for k, raw, finish in zip(positions, fresh["raws"], fresh["finish_reasons"]):
                    result["raws"][k] = raw
                    result["finish_reasons"][k] = finish
                    result["attempts"][k] += 1
                result["prompt_tokens"] += fresh["prompt_tokens"]
                result["generated_tokens"] += fresh["generated_tokens"]
        return pd.DataFrame([sample for result in results for sample in explode_samples(result)])


def sampling_params(cfg: GenerationConfig, task: Task) -> dict[str, Any]:
    """OpenAI (http) or vLLM sampling parameters.

    The task's stop strings end answers at what it keeps; with `generation.structured_output`, JSON
    answers are constrained to the task's schema (vLLM's structured outputs, OpenAI's
    `response_format`), so the parser and its retries become a safety net rather than the rule.
    """
    params: dict[str, Any] = {
        "temperature": cfg.sampling_temperature,
        "top_p": cfg.top_p,
        "max_tokens": cfg.new_tokens,
    }
    if task.stop:
        params["stop"] = list(task.stop)
    schema = task.answer_schema() if cfg.structured_output else None
    if schema is not None and cfg.engine == "vllm":
        params["structured_outputs"] = {"json": schema}
    elif schema is not None and cfg.engine == "http":
        params["response_format"] = {"type": "json_schema", "json_schema": {"name": task.name, "schema": schema}}
    return params


def _one_row_per_sample(row: dict[str, Any]) -> list[dict[str, Any]]:
    """vLLM rows: one per sample, each with its own seed (one seed for all would make the samples identical)."""
    meta = request_meta(row)
    rest = {"chat": bool(row["chat"]), "system": row["system"], "prompt": row["prompt"]}
    return [
        {**meta, **rest, "samples": [s], "first": i == 0, "seed": derived_seed(int(row["seed"]), s)}
        for i, s in enumerate(meta["samples"])
    ]


@functools.lru_cache(maxsize=2)
def _tokenizer(path: str) -> Any:
    from transformers import AutoTokenizer

    from semcse.stages.generation.tokens import local_tokenizer

    return AutoTokenizer.from_pretrained(local_tokenizer(path))


def vllm_input(row: dict[str, Any], sampling: dict[str, Any], model: str) -> dict[str, Any]:
    """The vLLM request of one sample: the prompt and its token ids, with exactly one BOS.

    A chat template already writes the BOS token into its text; Ray's tokenize stage would add
    special tokens again (a second BOS the model never saw in training), so chat prompts are
    templated and tokenized here without adding them, and plain prompts get them once.
    """
    tokenizer = _tokenizer(model)
    if row["chat"]:
        messages = [{"role": "system", "content": row["system"]}] if row["system"] else []
        messages.append({"role": "user", "content": row["prompt"]})
        prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        tokens = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    else:
        prompt = row["prompt"]
        tokens = tokenizer(prompt)["input_ids"]
    return {"prompt": prompt, "tokenized_prompt": tokens, "sampling_params": {**sampling, "seed": int(row["seed"])}}


def _unwrap(row: dict[str, Any]) -> dict[str, Any]:
    return dict(row)


def _from_vllm(row: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """A vLLM result or, with `should_continue_on_error`, an error row (which bypassed postprocess).

    Ray's stage drops vLLM's `finish_reason`; an answer that used all `max_tokens` is the one that
    `length` names (vLLM strips a stop string from the text but counts its tokens, so a stopped
    answer is shorter than its budget).
    """
    error = str(row.get("__inference_error__") or "")
    generated = int(row.get("num_generated_tokens") or 0)
    return {
        **request_meta(row),
        "raws": [""] if error else [row.get("generated_text") or ""],
        "finish_reasons": [""] if error else [LENGTH if generated >= max_tokens else STOP],
        "attempts": [1],
        "prompt_tokens": int(row.get("num_input_tokens") or 0) if row["first"] and not error else 0,
        "generated_tokens": generated,
        "error": error,
    }


def vllm_processor_config(cfg: GenerationConfig, model: str) -> Any:
    """The vLLM processor settings (context length, prefix caching, tensor parallelism, batching, seed).

    Ray's chat-template and tokenize stages are off: `vllm_input` does both, with one BOS. Its
    detokenize stage is off too: vLLM already returns each answer's text, and the stage would only
    decode the same tokens again on CPU workers. `generation.rows_per_batch` rows per batch, 8
    batches in flight per engine (Ray's `max_concurrent_batches`), keep vLLM's scheduler full.
    """
    from ray.data.llm import vLLMEngineProcessorConfig

    return vLLMEngineProcessorConfig(
        model_source=model,
        engine_kwargs={
            "max_model_len": cfg.max_model_len,
            "enable_prefix_caching": cfg.enable_prefix_caching,
            "tensor_parallel_size": cfg.tensor_parallel_size,
            "seed": cfg.seed,
        },
        batch_size=cfg.rows_per_batch,
        concurrency=cfg.concurrency,
        should_continue_on_error=True,
        chat_template_stage=False,
        tokenize_stage=False,
        detokenize_stage=False,
    )


def apply_engine(
    ds: ray.data.Dataset,
    cfg: GenerationConfig,
    model: str,
    task: Task,
    blocks: int,
    stop_strings: Sequence[str] = (),
) -> ray.data.Dataset:
    """Request rows → per-sample rows (`stages.SAMPLE_COLUMNS`) with the configured engine.

    `stop_strings`: those of the task's the transformers engine may pass to `generate`
    (`encodable_stop_strings`, checked on the driver). `blocks`: how many blocks `ds` holds. The
    transformers and HTTP pools start at most one actor per block (`generation.concurrency` at most): with
    fewer blocks than actors some actors could never get work, and a transformers actor loads its model
    first (a rerun with one shard left started two and used one). Blocks smaller than a batch
    (`generation.rows_per_batch`) may still share one task, so fewer actors than started can be busy; the
    HTTP actors then send below `qps` in all, never above it.
    """
    actors = min(cfg.concurrency, blocks)
    if cfg.engine == "transformers":
        from ray.data import ActorPoolStrategy

        return ds.map_batches(
            TransformersGenerator,
            fn_constructor_kwargs={
                "model_path": model,
                "max_new_tokens": cfg.new_tokens,
                "temperature": cfg.sampling_temperature,
                "top_p": cfg.top_p,
                "seed": cfg.seed,
                "task": task,
                "retries": cfg.max_json_retries,
                "stop_strings": list(stop_strings),
            },
            batch_size=cfg.rows_per_batch,
            batch_format="pandas",
            compute=ActorPoolStrategy(size=actors),
            num_cpus=cfg.num_cpus_per_actor,
            num_gpus=cfg.num_gpus_per_actor,
        )
    if cfg.engine == "http":
        from ray.data import ActorPoolStrategy

        from semcse.stages.generation.http_engine import HttpGenerator

        results = ds.map_batches(
            HttpGenerator,
            fn_constructor_kwargs={
                "cfg": cfg,
                "model": model,
                "sampling": sampling_params(cfg, task),
                "chat": task.chat,
                "actors": actors,
            },
            batch_size=cfg.rows_per_batch,
            batch_format="pandas",
            compute=ActorPoolStrategy(size=actors),
            num_cpus=LIGHT_TASK_CPUS,
        )
    else:
        from ray.data.llm import build_processor

        processor = build_processor(
            vllm_processor_config(cfg, model),
            preprocess=functools.partial(vllm_input, sampling=sampling_params(cfg, task), model=model),
            postprocess=_unwrap,
        )
        results = processor(ds.flat_map(_one_row_per_sample)).map(
            functools.partial(_from_vllm, max_tokens=cfg.new_tokens)
        )
    return results.flat_map(explode_samples, num_cpus=LIGHT_TASK_CPUS)
