"""Validated run configuration for every stage.

One YAML file describes a run; each stage reads its own section. Every model forbids unknown
keys so a typo in a config fails loudly with its key path instead of silently using a default.
`--set section.key=value` overrides are applied to the raw mapping *before* validation, so an
override is checked exactly like a value written in the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypeGuard

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from semcse.core.data.modes import ASPECT_PREFIX, AUTO, UPPER_HALF, mix_weights, needs_texts, trains_upper_half

# `training.base_model: scratch:<architecture>`: an encoder initialised at random from the corpus's vocabulary
# (`models.scratch`), whose lower layers hold nothing a recipe should keep frozen.
SCRATCH_PREFIX = "scratch:"


def is_scratch(ref: str | None) -> TypeGuard[str]:
    return ref is not None and ref.startswith(SCRATCH_PREFIX)


Suite = Literal["semantic", "knn", "aspects", "decoder"]


class NotShaping:
    """Marks a setting that does not decide what its step makes: where or how fast the step runs, where its output
    goes, or an input the pipeline wires from another step (`Annotated[int, NOT_SHAPING]`). A pipeline step
    recorded under other values of such settings is still the step the run asks for (`pipeline.step_settings`)."""


NOT_SHAPING = NotShaping()


def shapes(section: type[BaseModel], name: str) -> bool:
    """Whether `section.name` decides what its step makes (it is not marked `NOT_SHAPING`)."""
    return not any(isinstance(marker, NotShaping) for marker in section.model_fields[name].metadata)


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names every offending key path."""


class Section(BaseModel):
    """Base for config sections: unknown keys are errors, assignments are re-validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class CorpusConfig(Section):
    """Where the corpus lives, how its columns are named, and what counts as a valid row.

    Splits: a corpus that carries its own split column (`split_col`, values train / val / test, also
    validation / dev) keeps it in every stage; otherwise a hash of the id assigns `test_fraction` and
    `val_fraction` of the papers (`data/split.py`). Training, tuning and evaluation use the same rule,
    so no stage ever evaluates on papers another stage trained on.
    """

    path: str | None = None
    format: Literal["auto", "parquet", "jsonl", "csv"] = "auto"
    id_col: str = "id"
    title_col: str = "title"
    abstract_col: str = "abstract"
    label_col: str | None = None
    split_col: str = "split"
    require_abstract: bool = True
    min_abstract_chars: int = Field(20, ge=0)
    max_abstract_chars: int = Field(50_000, gt=0)
    max_control_char_fraction: float = Field(0.01, ge=0, le=1)
    merge_likely_duplicates: bool = False
    val_fraction: float = Field(0.1, ge=0, lt=1)
    test_fraction: float = Field(0.1, ge=0, lt=1)
    split_seed: str = "semcse"

    @model_validator(mode="after")
    def _check_bounds(self) -> CorpusConfig:
        if self.min_abstract_chars >= self.max_abstract_chars:
            raise ValueError("min_abstract_chars must be smaller than max_abstract_chars")
        if self.val_fraction + self.test_fraction >= 1:
            raise ValueError("val_fraction + test_fraction must leave room for a training split")
        return self

    def validated(self, path: str | Path) -> CorpusConfig:
        """These settings pointed at a validated corpus, which always has canonical columns in Parquet.

        Later stages read what validation wrote; the user's column names describe only the raw input.
        """
        return self.model_copy(
            update={
                "path": str(path),
                "format": "parquet",
                "id_col": "id",
                "title_col": "title",
                "abstract_col": "abstract",
            }
        )


class RayConfig(Section):
    """How to reach Ray: an address (or RAY_ADDRESS), else a local cluster of this size."""

    address: str | None = None
    num_cpus: int | None = Field(None, gt=0)
    num_gpus: int | None = Field(None, ge=0)


class TrackingConfig(Section):
    """MLflow location; `tracking_uri=None` means MLFLOW_TRACKING_URI or the embedded sqlite store."""

    enabled: bool = True
    tracking_uri: str | None = None
    artifact_location: str = "mlruns"
    experiment: str = "semcse"


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


class PositiveMix(Section):
    """SemCSE positive sampling proportions (anchor is always a summary)."""

    summary: float = Field(0.5, ge=0)
    title: float = Field(0.15, ge=0)
    sentence: float = Field(0.35, ge=0)

    @model_validator(mode="after")
    def _positive_total(self) -> PositiveMix:
        if self.summary + self.title + self.sentence <= 0:
            raise ValueError("at least one positive proportion must be positive")
        return self


# The cosine gap at which validation's smooth ranks tell a rival from the true match (`rank_softness`): a rival
# 0.1 behind counts 0.12, one 0.3 behind 0.002. The cropping paper's τ, held fixed so that trials that vary the
# training temperature are scored on one scale.
COSINE_RANK_SOFTNESS = 0.05


class TrainingConfig(Section):
    """Encoder training: pairs, model, loss, optimisation, validation and distribution.

    Unset objective settings follow the pairs mode's recipe (`recipe`, what the stages read), and `pairs: auto` is
    the LLM-free recipe `data.modes.AUTO`. What each setting does, and why the defaults are what they are:
    docs/CONFIGURATION.md, "The `training` section", and docs/train.md.
    """

    pairs: str = "semcse"
    loss: Literal["triplet", "infonce"] | None = None
    texts: Annotated[str | None, NOT_SHAPING] = None
    base_model: str | None = None
    out: Annotated[str | None, NOT_SHAPING] = None
    pooling: Literal["cls", "mean", "last"] | None = None
    projection: bool = False
    projection_dim: int | None = Field(None, gt=0)
    freeze_embeddings: bool | None = None
    freeze_layers: Annotated[int, Field(ge=0)] | Literal["half"] | None = None
    gradient_checkpointing: bool = False
    max_length: int = Field(256, gt=0)
    export_max_length: int | None = Field(None, gt=0)
    batch_size: int = Field(32, gt=1)
    forward_batch_size: int = Field(16, ge=0)
    learning_rate: float | None = Field(None, gt=0)
    weight_decay: float = Field(0.01, ge=0)
    warmup_steps: int | None = Field(None, ge=0)
    max_steps: int = Field(1000, gt=0)
    temperature: float | None = Field(None, gt=0)
    average_with_base: float = Field(0.0, ge=0, lt=1)
    base_similarity_weight: float = Field(0.0, ge=0)
    margin: float = Field(1.0, gt=0)
    anchor_l2_weight: float = Field(1 / 250, ge=0)
    positive_mix: PositiveMix = Field(default_factory=PositiveMix)
    crop_sentences: int = Field(2, gt=0)
    min_title_words: int = Field(3, ge=1)
    min_sentence_chars: int = Field(100, ge=0)
    max_sentence_chars: int = Field(250, gt=0)
    train_fraction: float = Field(1.0, gt=0, le=1)
    launcher: Annotated[Literal["ray", "local"], NOT_SHAPING] = "ray"
    num_workers: Annotated[int, NOT_SHAPING] = Field(2, gt=0)
    use_gpu: Annotated[bool, NOT_SHAPING] = False
    cpus_per_worker: Annotated[float, NOT_SHAPING] = Field(1.0, gt=0)
    resources_per_worker: Annotated[dict[str, float], NOT_SHAPING] = Field(default_factory=dict)
    zero_stage: int | None = Field(None, ge=0, le=3)
    cpu_bf16: bool | None = None
    eval_every: int = Field(50, gt=0)
    eval_every_minutes: float | None = Field(None, gt=0)
    val_size: int = Field(256, gt=1)
    val_distractors: int = Field(2, ge=0)
    log_every: Annotated[int, NOT_SHAPING] = Field(10, gt=0)
    patience: int = Field(3, gt=0)
    improvement: Literal["significant", "strict"] = "significant"
    label_guard: bool = True
    label_margin: float = Field(0.02, ge=0, le=1)
    label_reference: int = Field(1000, ge=0)
    max_failures: Annotated[int, NOT_SHAPING] = Field(0, ge=0)
    seed: int = 0
    register_name: str = "semcse-encoder"
    register_alias: str = "candidate"

    @field_validator("freeze_layers", mode="wrap")
    @classmethod
    def _layer_count_or_half(cls, value: Any, check: ValidatorFunctionWrapHandler) -> Any:
        """The field's type decides; only its message is ours: pydantic reports each branch of the union it tried, a
        line for the integer and another for `half`, and neither says what the setting takes."""
        try:
            return check(value)
        except ValidationError:
            raise ValueError("takes a number of layers (0 or more) or 'half' (the lower half of the layers)") from None

    @field_validator("pairs")
    @classmethod
    def _known_pairs(cls, value: str) -> str:
        mix_weights(AUTO["pairs"] if value == "auto" else value)
        return value

    @field_validator("resources_per_worker")
    @classmethod
    def _custom_resources_only(cls, value: dict[str, float]) -> dict[str, float]:
        builtin = sorted({"CPU", "GPU", "memory"} & set(value))
        if builtin:
            raise ValueError(f"{builtin} are set by cpus_per_worker and use_gpu; name only custom resources here")
        if any(amount <= 0 for amount in value.values()):
            raise ValueError("resource amounts must be positive")
        return value

    @model_validator(mode="after")
    def _projection_has_dim(self) -> TrainingConfig:
        if self.projection and self.projection_dim is None:
            raise ValueError("projection is enabled but projection_dim is not set")
        if self.min_sentence_chars >= self.max_sentence_chars:
            raise ValueError("min_sentence_chars must be smaller than max_sentence_chars")
        if self.use_gpu and self.zero_stage == 0:
            raise ValueError(
                "zero_stage 0 with use_gpu: DeepSpeed's stage-0 bf16 optimizer keeps its fp32 master weights where "
                "the export cannot read them; use zero_stage 1, 2 (the GPU default) or 3"
            )
        if self.average_with_base and self.recipe.zero_stage == 3:
            raise ValueError(
                "average_with_base with ZeRO-3: each worker holds only a shard of the weights the candidate "
                "averages; use zero_stage 2 (the GPU default) or set average_with_base 0"
            )
        if self.launcher == "local" and self.num_workers != 1:
            raise ValueError(
                f"launcher local trains in this process, one worker; set num_workers 1 (got {self.num_workers}) or "
                "launcher ray"
            )
        if self.batch_size % self.num_workers:
            raise ValueError(
                f"batch_size {self.batch_size} (pairs per step over all workers) must be a multiple of "
                f"num_workers {self.num_workers}"
            )
        return self

    @property
    def worker_batch_size(self) -> int:
        """Pairs each worker contributes to a step; the loss sees all workers' pairs."""
        return self.batch_size // self.num_workers

    @property
    def recipe(self) -> Recipe:
        """Every objective, schedule and freezing setting decided, what the stages read: the run's own where set, else
        `pairs: auto`'s (`data.modes.AUTO`), else the mode's. Crop modes follow the cropping paper (InfoNCE, τ 0.05,
        linear warm-up over the first 10% of steps), aspect encoders train with InfoNCE and SemCSE with its triplet
        loss at τ 0.07 from full rate; ZeRO-2 on GPU, 0 on CPU; title pairs on a pretrained encoder train its upper
        half (`data.modes.UPPER_HALF`) unless the run sets either freezing setting (docs/CONFIGURATION.md)."""
        chosen = AUTO if self.pairs == "auto" else {}

        def given(name: str, default: Any) -> Any:
            value = getattr(self, name)
            return value if value is not None else chosen.get(name, default)

        pairs: str = chosen.get("pairs", self.pairs)
        crop = not needs_texts(pairs)
        frozen_given = self.freeze_embeddings is not None or self.freeze_layers is not None
        upper_half = not frozen_given and trains_upper_half(pairs) and not is_scratch(self.base_model)
        frozen = UPPER_HALF if upper_half else {}
        return Recipe(
            pairs=pairs,
            loss=given("loss", "infonce" if crop or pairs.startswith(ASPECT_PREFIX) else "triplet"),
            temperature=given("temperature", 0.05 if crop else 0.07),
            learning_rate=given("learning_rate", 2e-5),
            warmup_steps=given("warmup_steps", max(1, self.max_steps // 10) if crop else 0),
            zero_stage=given("zero_stage", 2 if self.use_gpu else 0),
            freeze_embeddings=given("freeze_embeddings", frozen.get("freeze_embeddings", False)),
            freeze_layers=given("freeze_layers", frozen.get("freeze_layers", 0)),
        )


@dataclass(frozen=True)
class Recipe:
    """What a run trains with, every setting decided (`TrainingConfig.recipe`): the stages read this, not the
    optional fields behind it."""

    pairs: str  # the mode trained: `auto` is the one it stands for
    loss: Literal["triplet", "infonce"]
    temperature: float
    learning_rate: float
    warmup_steps: int
    zero_stage: int
    freeze_embeddings: bool
    freeze_layers: int | Literal["half"]

    @property
    def crop_based(self) -> bool:
        """The LLM-free modes (crops, dropout, titles, their mixes) train on the corpus alone."""
        return not needs_texts(self.pairs)

    @property
    def similarity(self) -> Literal["euclidean", "cosine"]:
        """The geometry the loss trains, used for validation ranks and saved with the model."""
        return "euclidean" if self.loss == "triplet" else "cosine"

    @property
    def rank_softness(self) -> float:
        """How smooth validation's decision ranks are (`training.validation`): `COSINE_RANK_SOFTNESS` for cosine
        (InfoNCE) models, 0 (hard ranks, as SemCSE validates) for the triplet loss's Euclidean space; a fixed scale,
        not the run's τ, so that `val_score` compares the trials of a study that varies τ."""
        return COSINE_RANK_SOFTNESS if self.loss == "infonce" else 0.0


class EvaluationConfig(Section):
    """Which suites to run on which models and data, and how embedding and search are sized.

    `pooling` applies to plain Hugging Face encoders only (a saved sentence-transformers model keeps
    its own); a model given as `REF#cls` chooses its pooling explicitly. `split=test` scores only the
    corpus's test split (papers no model trained on), `val` its validation split (for tuning, so
    model selection never sees the test split); `all` is for separate evaluation data.
    `bootstrap` resamples give every figure its 95% interval (SemCSE's pools: 900 and 6,000 papers).
    """

    suites: list[Suite] = Field(default_factory=lambda: list[Suite](["semantic"]))
    models: Annotated[list[str], NOT_SHAPING] = Field(default_factory=list)
    data: str | None = None
    out: Annotated[str | None, NOT_SHAPING] = None
    label_col: str | None = None
    query_col: str | None = None
    texts: str | None = None
    judgements: str | None = None
    judged_aspects: dict[str, str] = Field(default_factory=dict)
    batch_size: Annotated[int, NOT_SHAPING] = Field(64, gt=0)
    max_length: int = Field(256, gt=0)
    pooling: Literal["cls", "mean", "last"] = "mean"
    actors: Annotated[int | None, NOT_SHAPING] = Field(None, gt=0)
    cpus_per_actor: Annotated[float, NOT_SHAPING] = Field(1.0, gt=0)
    gpus_per_actor: Annotated[float, NOT_SHAPING] = Field(0.0, ge=0)
    shard_rows: Annotated[int, NOT_SHAPING] = Field(1024, gt=0)
    split: Literal["test", "val", "all"] = "test"
    max_pool: int | None = Field(6000, gt=1)
    agreement_k: int = Field(5, gt=0)
    accuracy_k: int = Field(10, gt=0)
    knn_similarity: Literal["cosine", "euclidean"] | None = None
    overlap_k: int = Field(10, gt=0)
    ivf_threshold: int = Field(200_000, gt=0)
    plots: bool = True
    tsne_points: int = Field(2000, gt=10)
    bootstrap: int = Field(1000, ge=2)
    seed: int = 0


class ServeConfig(Section):
    """Arguments of every Ray Serve app, one schema for all so `semcse serve` overrides them alike. What each
    setting does: docs/CONFIGURATION.md, "The `serve` section"."""

    host: str = "127.0.0.1"
    port: int = Field(8000, gt=0, lt=65536)
    no_auth: bool = False
    encoder: Annotated[str | None, NOT_SHAPING] = None
    model_name: str | None = None
    index: Annotated[str | None, NOT_SHAPING] = None
    decoders: dict[str, str] = Field(default_factory=dict)
    map: Annotated[str | None, NOT_SHAPING] = None
    texts: Annotated[str | None, NOT_SHAPING] = None
    search_route: str = Field("/search", pattern=r"^/[^\s\"'<>]*$")
    max_batch_size: int = Field(64, gt=0)
    batch_wait_timeout_s: float = Field(0.01, ge=0)
    torch_threads: int | None = Field(None, gt=0)
    encode_lanes: int | None = Field(None, gt=0)
    inference_batch_size: int = Field(16, gt=0)
    device: Literal["auto", "cpu", "cuda"] = "auto"
    dtype: Literal["float32", "float16", "bfloat16"] = "float32"
    max_items: int = Field(2048, gt=0)
    max_chars: int = Field(20_000, gt=0)
    max_request_bytes: int = Field(8_000_000, gt=0)
    max_k: int = Field(100, gt=0)
    max_new_tokens: int = Field(48, gt=0)
    temperature: float = Field(0.0, ge=0)
    layout_iterations: int = Field(750, gt=0)
    api_key_env: str = "SEMCSE_API_KEY"

    @field_validator("decoders", mode="before")
    @classmethod
    def _single_decoder(cls, value: object) -> object:
        return {"": value} if isinstance(value, str) else value


class DecoderConfig(Section):
    """Embedding → text decoder: base LM, where its training pairs come from, optimisation, sampling.

    Defaults follow SemCSE-Multi (A.8): 5 task + 5 mapped tokens, a 768-wide sigmoid mapping, AdamW
    with batch size 4 (over all workers), learning rate 1e-3, weight decay 1e-4, validation every 250 updates.
    It trains through the encoders' loop (`launcher`, `num_workers`: as `training`'s). The
    evaluation settings: `predictor` embeds held-out abstracts (default `encoder`; the unified model
    for aspect decoders), `bertscore_model` (+ `bertscore_layers`) scores generated text with BERTScore,
    `reconstructed` adds the map round-trip column (one t-SNE layout per held-out abstract).
    """

    base_model: str | None = None
    encoder: str | None = None
    texts: str | None = None
    aspect: str = "summary"
    out: str | None = None
    chat: bool = False
    task_tokens: int = Field(5, gt=0)
    mapped_tokens: int = Field(5, gt=0)
    hidden_dim: int = Field(768, gt=0)
    max_length: int = Field(96, gt=0)
    batch_size: int = Field(4, gt=0)
    learning_rate: float = Field(1e-3, gt=0)
    weight_decay: float = Field(1e-4, ge=0)
    max_steps: int = Field(5000, gt=0)
    eval_every: int = Field(250, gt=0)
    patience: int = Field(4, gt=0)
    launcher: Literal["ray", "local"] = "ray"
    num_workers: int = Field(1, gt=0)
    use_gpu: bool = False
    cpus_per_worker: float = Field(1.0, gt=0)
    seed: int = 0
    engine: Literal["transformers", "vllm"] = "transformers"
    max_new_tokens: int = Field(64, gt=0)
    temperature: float = Field(0.7, ge=0)
    top_p: float = Field(0.95, gt=0, le=1)
    predictor: str | None = None
    bertscore_model: str | None = None
    bertscore_layers: int | None = Field(None, gt=0)
    reconstructed: bool = False
    register_name: str = "semcse-decoder"
    register_alias: str = "candidate"

    @field_validator("aspect")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        if value != "summary" and not (value.startswith("aspect:") and len(value) > len("aspect:")):
            raise ValueError(f"aspect must be 'summary' or 'aspect:<name>', got {value!r}")
        return value


class MapConfig(Section):
    """Interactive t-SNE maps: aspect weights, t-SNE settings, and the place/explain optimisers."""

    weights: dict[str, float] = Field(default_factory=dict)
    perplexity: float = Field(30.0, gt=1)
    iterations: int = Field(750, gt=0)
    seed: int = 0
    neighbours: int = Field(5, gt=0)
    place_steps: int = Field(100, gt=0)
    explain_steps: int = Field(100, gt=0)
    margin: float = Field(0.1, ge=0)
    out: Annotated[str | None, NOT_SHAPING] = None

    @field_validator("weights")
    @classmethod
    def _weights_valid(cls, value: dict[str, float]) -> dict[str, float]:
        if any(w < 0 for w in value.values()):
            raise ValueError("aspect weights must be non-negative")
        if value and sum(value.values()) <= 0:
            raise ValueError("at least one aspect weight must be positive")
        return value


class MultiConfig(Section):
    """SemCSE-Multi: aspect encoders for an aspect pack, then the unified model distilled from them.

    `merge` folds generated aspects into one trained aspect (the paper trains one hypothesis aspect
    from its general and specific summaries). `aspect_training` and `distill` are overrides of the
    `training` section for the two stages (e.g. `{max_steps: 2000, learning_rate: 1e-4}`), so both
    stages share one validated set of optimisation and distribution settings; their keys and values
    are checked against `TrainingConfig` when the config loads. Aspect encoders are
    trained `concurrency` at a time (None: as many as the cluster's CPUs hold).
    """

    aspect_pack: str | None = None
    aspects: list[str] | None = None
    merge: dict[str, str] = Field(
        default_factory=lambda: {"hypothesis_general": "hypothesis", "hypothesis_specific": "hypothesis"}
    )
    texts: str | None = None
    head_dim: int = Field(150, gt=0)
    min_summaries: int = Field(2, ge=2)
    aspect_encoders: str | None = None
    aspect_training: dict[str, Any] = Field(default_factory=dict)
    concurrency: int | None = Field(None, gt=0)
    aspect_register_prefix: str = "semcse-aspect-"
    distill: dict[str, Any] = Field(default_factory=dict)
    direct: bool = False
    out: str | None = None
    register_name: str = "semcse-multi"
    register_alias: str = "candidate"


def _suite_column(value: str) -> str:
    if ":" not in value or not all(value.split(":", 1)):
        raise ValueError(
            f"metric must look like SUITE:COLUMN (e.g. semantic:improvement, knn:knn_accuracy), got {value!r}"
        )
    if value.split(":", 1)[1] == "overall":
        raise ValueError(
            f"{value} normalises each task across the models in the table, so its value for a model changes with "
            "the other models evaluated beside it: promote on a task (semantic:title_abstract) or on "
            "semantic:improvement (the mean log-ratio over tasks against the base model)"
        )
    return value


class PipelineConfig(Section):
    """End-to-end pipeline: the promotion metric, its guards and the optional index/map/serve steps.

    The default metric is SemCSE's title→abstract average rank, an absolute figure;
    `semantic:improvement` (the mean log-ratio over the semantic tasks against the base model) weighs
    every task and means the same whatever else is evaluated beside it. `semantic:overall` (SemCSE's
    normalised score) is refused: it is relative to the models in the table (with two or three
    models each task scores 0 or 1, and the base model's scores move the trained−champion
    difference), a leaderboard figure, not evidence. A trained model is promoted only
    when it is significantly better on `metric` and significantly worse on none of `guards` (those
    the evaluation computed; the label metrics exist only for a labelled corpus): a model that ranks
    titles better while it blurs the corpus's topics is not a better model. `build_map` lays the
    corpus out (the `map` section's settings) so that `semcse pipeline --add` can place new papers into it.
    """

    metric: str = "semantic:title_abstract"
    guards: list[str] = Field(
        default_factory=lambda: ["knn:knn_accuracy", "knn:label_agreement", "knn:v_measure", "semantic:clustering"]
    )
    build_index: bool = False
    build_map: bool = False
    deploy: bool = False
    serve_config: str | None = None

    @field_validator("metric")
    @classmethod
    def _suite_and_column(cls, value: str) -> str:
        return _suite_column(value)

    @field_validator("guards")
    @classmethod
    def _guards_are_suite_columns(cls, values: list[str]) -> list[str]:
        return [_suite_column(value) for value in values]


class RunConfig(Section):
    """A whole run: every stage's section plus where its outputs go."""

    name: str = "semcse"
    run_dir: str = "runs/default"
    corpus: CorpusConfig = Field(default_factory=CorpusConfig)
    ray: RayConfig = Field(default_factory=RayConfig)
    tracking: TrackingConfig = Field(default_factory=TrackingConfig)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    training: TrainingConfig = Field(default_factory=TrainingConfig)
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig)
    serve: ServeConfig = Field(default_factory=ServeConfig)
    decoder: DecoderConfig = Field(default_factory=DecoderConfig)
    map: MapConfig = Field(default_factory=MapConfig)
    multi: MultiConfig = Field(default_factory=MultiConfig)
    pipeline: PipelineConfig = Field(default_factory=PipelineConfig)

    @model_validator(mode="after")
    def _stage_overrides_fit_training(self) -> RunConfig:
        """`multi.aspect_training` / `multi.distill` over `training` must be a valid training section,
        so a typo or a bad value in them fails when the config loads, not when that stage starts."""
        for where, overrides in (
            ("multi.aspect_training", self.multi.aspect_training),
            ("multi.distill", self.multi.distill),
        ):
            if not overrides:
                continue
            try:
                TrainingConfig.model_validate(self.training.model_dump() | overrides)
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or 'training'}: {e['msg']}" for e in exc.errors()
                )
                raise ValueError(f"{where} (overrides of `training`): {problems}") from None
        return self


def parse_override(item: str) -> tuple[list[str], Any]:
    """Split `a.b.c=value` into a key path and a YAML-typed value (`3` → int, `[a, b]` → list)."""
    if "=" not in item:
        raise ConfigError(f"override {item!r} must look like section.key=value")
    key, raw = item.split("=", 1)
    path = [part for part in key.strip().split(".") if part]
    if not path:
        raise ConfigError(f"override {item!r} has an empty key")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    return path, value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Set each override into a nested mapping, creating intermediate mappings as needed."""
    for item in overrides:
        path, value = parse_override(item)
        node = data
        for i, part in enumerate(path[:-1]):
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            elif not isinstance(child, dict):
                raise ConfigError(f"override {item!r}: {'.'.join(path[: i + 1])} is not a section")
            node = child
        node[path[-1]] = value
    return data


def with_overrides(cfg: RunConfig, updates: Mapping[str, Any]) -> RunConfig:
    """`cfg` with `section.key` (or top-level `key`) values set, validated as a whole like a config file: the one way
    to derive a run config from another. What `cfg` had set stays set and the updated keys join it (stages read
    `model_fields_set` to tell a choice from a default)."""
    data = cfg.model_dump(exclude_unset=True)
    for key, value in updates.items():
        *sections, name = key.split(".")
        node = data
        for section in sections:
            node = node.setdefault(section, {})
        node[name] = value.model_dump(exclude_unset=True) if isinstance(value, BaseModel) else value
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid configuration:\n{format_validation_error(exc)}") from exc


def format_validation_error(error: ValidationError) -> str:
    """One line per problem: `key.path: reason (got value)`; a check of ours reads as its own sentence, without
    pydantic's "Value error, " in front."""
    lines = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"]) or "(top level)"
        message = problem["msg"]
        if problem["type"] == "extra_forbidden":
            message = "unknown key"
        elif problem["type"] == "value_error":
            message = message.removeprefix("Value error, ")
        got = problem.get("input")
        suffix = (
            "" if problem["type"] in {"extra_forbidden", "missing"} or isinstance(got, dict) else f" (got {got!r})"
        )
        lines.append(f"{where}: {message}{suffix}")
    return "\n".join(lines)


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> RunConfig:
    """Read a YAML run config (a file, or a shipped config's name such as `demo`), apply overrides, validate."""
    data: dict[str, Any] = {}
    if path is not None:
        from semcse.core.resources import ResourceNotFound, find

        try:
            path = find("configs", path)
        except ResourceNotFound as exc:
            raise ConfigError(str(exc)) from None
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of sections")
        data = loaded or {}
    apply_overrides(data, list(overrides or []))
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        source = f" in {path}" if path is not None else ""
        raise ConfigError(f"invalid configuration{source}:\n{format_validation_error(exc)}") from exc


def flatten(config: BaseModel | dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flatten nested config into `section.key` → value, as MLflow params want it."""
    data = config.model_dump() if isinstance(config, BaseModel) else config
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, prefix=f"{name}."))
        else:
            flat[name] = value
    return flat
