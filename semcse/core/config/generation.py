"""The `generation` section: which task, which engine (an OpenAI-compatible server's own settings in `http`), how
to sample, and the per-task defaults its properties resolve."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from semcse.core.config.base import NOT_SHAPING, Section


class HttpEngineConfig(Section):
    """An OpenAI-compatible server; the key is read from the named environment variable (none sent if unset).

    `max_in_flight` is per actor (`generation.concurrency` actors); `qps` is the global rate over
    all actors (None: unlimited). 429, 5xx, timeouts and dropped connections are retried
    `max_retries` times, waiting `backoff_s`, then twice as long each time up to `max_backoff_s`;
    a request that still fails is quarantined with its status and body, and the run goes on.
    """

    base_url: str = "http://127.0.0.1:8000/v1"
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = Field(120.0, gt=0)
    max_retries: int = Field(3, ge=0)
    backoff_s: float = Field(1.0, ge=0)
    max_backoff_s: float = Field(30.0, ge=0)
    max_in_flight: int = Field(32, gt=0)
    qps: float | None = Field(None, gt=0)


GenerationTask = Literal["summaries", "aspects", "queries", "judgements"]
GenerationEngine = Literal["transformers", "vllm", "http"]

# Tokens one answer may take, per task: a summary continuation is one sentence (and stops at the end
# of its line; 96 as the paper's run config, since a continuation cut at its budget without a
# sentence end is rejected), an aspect summary a short JSON object, a judgement reasons first and
# scores last (SemCSE-Multi A.5), so it needs room or it is cut before its score and rejected.
TASK_NEW_TOKENS: dict[str, int] = {"summaries": 96, "queries": 64, "aspects": 128, "judgements": 384}
# Sampling temperature per task: summaries and queries are sampled several times and should vary
# (SemCSE samples at 0.8); a judge should give the same pair the same score, so it samples cold
# (not greedy, so that a retry of an unparsable answer can come out differently).
TASK_TEMPERATURE: dict[str, float] = {"summaries": 0.8, "queries": 0.8, "aspects": 0.8, "judgements": 0.2}
# Request rows per engine batch (`generation.batch_size` unset): one padded `generate` call on a CPU
# for transformers; for vLLM, 64 rows × Ray's 8 concurrent batches = 512 in flight, twice the 256
# sequences vLLM schedules at once on a 1-GPU node (A10G, A100).
ENGINE_BATCH_SIZE: dict[str, int] = {"transformers": 8, "http": 32, "vllm": 64}


class GenerationConfig(Section):
    """LLM text generation: which task, which engine, and sampling parameters. What each setting does:
    docs/CONFIGURATION.md, "The `generation` section"."""

    task: GenerationTask = "summaries"
    engine: GenerationEngine = "transformers"
    model: str | None = None
    tokenizer: str | None = None
    out: Annotated[str | None, NOT_SHAPING] = None
    limit: int | None = Field(None, gt=0)
    combine_settings: bool = False
    structured_output: bool = True
    prompts: list[str] | None = None  # None: the SemCSE paper's five (`generation.prompts.SUMMARY_PROMPTS`)
    samples_per_prompt: int = Field(3, gt=0)
    aspect_pack: str | None = None
    aspects: list[str] | None = None
    aspect_samples: int = Field(4, gt=0)
    query_samples: int = Field(1, gt=0)
    judgement_aspect: str | None = None
    judgement_abstracts: int = Field(250, gt=1)
    judgement_pairs: str | None = None
    judgement_texts: str | None = None
    max_new_tokens: int | None = Field(None, gt=0)
    temperature: float | None = Field(None, ge=0)
    task_temperature: dict[GenerationTask, float] = Field(default_factory=dict)
    top_p: float = Field(0.95, gt=0, le=1)
    seed: int = 0
    max_model_len: int = Field(4096, gt=0)
    batch_size: Annotated[int | None, NOT_SHAPING] = Field(None, gt=0)
    concurrency: Annotated[int, NOT_SHAPING] = Field(1, gt=0)
    num_cpus_per_actor: Annotated[float, NOT_SHAPING] = Field(1.0, gt=0)
    num_gpus_per_actor: Annotated[float, NOT_SHAPING] = Field(0.0, ge=0)
    tensor_parallel_size: Annotated[int, NOT_SHAPING] = Field(1, gt=0)
    enable_prefix_caching: bool = True
    max_json_retries: int = Field(2, ge=0)
    retry_rejects: bool = False
    shard_rows: Annotated[int, NOT_SHAPING] = Field(64, gt=0)
    http: Annotated[HttpEngineConfig, NOT_SHAPING] = Field(default_factory=HttpEngineConfig)

    @property
    def new_tokens(self) -> int:
        """The token budget of one answer: `max_new_tokens` if set, else the task's own (`TASK_NEW_TOKENS`)."""
        return self.max_new_tokens or TASK_NEW_TOKENS[self.task]

    @property
    def sampling_temperature(self) -> float:
        """The temperature of this task: `task_temperature[task]`, else `temperature`, else `TASK_TEMPERATURE`."""
        if self.task in self.task_temperature:
            return self.task_temperature[self.task]
        return TASK_TEMPERATURE[self.task] if self.temperature is None else self.temperature

    @property
    def rows_per_batch(self) -> int:
        """Request rows per engine batch: `batch_size`, else the engine's own; http sends at least a full window."""
        rows = self.batch_size or ENGINE_BATCH_SIZE[self.engine]
        return max(rows, self.http.max_in_flight) if self.engine == "http" else rows

    @field_validator("task_temperature")
    @classmethod
    def _temperatures_not_negative(cls, value: dict[str, float]) -> dict[str, float]:
        if any(t < 0 for t in value.values()):
            raise ValueError("temperatures must be non-negative")
        return value

    @field_validator("prompts")
    @classmethod
    def _prompts_not_empty(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or any(not p.strip() for p in value)):
            raise ValueError("prompts must be a non-empty list of non-empty strings")
        return value

    @model_validator(mode="after")
    def _room_to_generate(self) -> GenerationConfig:
        if self.new_tokens >= self.max_model_len:
            raise ValueError(
                f"max_new_tokens ({self.new_tokens} for task {self.task}) must be smaller than max_model_len "
                f"({self.max_model_len}): the prompt needs room"
            )
        return self
