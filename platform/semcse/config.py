"""Validated run configuration for every stage.

One YAML file describes a run; each stage reads its own section. Every model forbids unknown
keys so a typo in a config fails loudly with its key path instead of silently using a default.
`--set section.key=value` overrides are applied to the raw mapping *before* validation, so an
override is checked exactly like a value written in the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

DEFAULT_SUMMARY_PROMPTS: list[str] = [
    "In summary, our research is concerned with",
    "The main takeaway from our work is that",
    "A comprehensive summary for our work would be that",
    "In summary, a comprehensive and detailed conclusive statement would be that",
    "To summarize, the key findings of our research, stated in one sentence that includes all relevant information, "
    "are that",
]


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names every offending key path."""


class Section(BaseModel):
    """Base for config sections: unknown keys are errors, assignments are re-validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class CorpusConfig(Section):
    """Where the corpus lives, how its columns are named, and what counts as a valid row."""

    path: str | None = None
    format: Literal["auto", "parquet", "jsonl", "csv"] = "auto"
    id_col: str = "id"
    title_col: str = "title"
    abstract_col: str = "abstract"
    label_col: str | None = None
    require_abstract: bool = True
    min_abstract_chars: int = Field(20, ge=0)
    max_abstract_chars: int = Field(50_000, gt=0)
    max_control_char_fraction: float = Field(0.01, ge=0, le=1)
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
    """An OpenAI-compatible server; the key is read from the named environment variable."""

    url: str = "http://127.0.0.1:8000/v1/chat/completions"
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = Field(120.0, gt=0)


class GenerationConfig(Section):
    """LLM text generation: which task, which engine, and sampling parameters."""

    task: Literal["summaries", "aspects", "queries", "judgements"] = "summaries"
    engine: Literal["transformers", "vllm", "http"] = "transformers"
    model: str | None = None
    out: str | None = None
    limit: int | None = Field(None, gt=0)
    prompts: list[str] = Field(default_factory=lambda: list(DEFAULT_SUMMARY_PROMPTS))
    samples_per_prompt: int = Field(3, gt=0)
    aspect_pack: str | None = None
    aspect_samples: int = Field(4, gt=0)
    judgement_aspect: str | None = None
    judgement_abstracts: int = Field(50, gt=1)
    judgement_pairs: str | None = None
    max_new_tokens: int = Field(96, gt=0)
    temperature: float = Field(0.8, ge=0)
    top_p: float = Field(0.95, gt=0, le=1)
    max_model_len: int = Field(4096, gt=0)
    batch_size: int = Field(8, gt=0)
    concurrency: int = Field(1, gt=0)
    tensor_parallel_size: int = Field(1, gt=0)
    enable_prefix_caching: bool = True
    max_json_retries: int = Field(2, ge=0)
    shard_rows: int = Field(64, gt=0)
    http: HttpEngineConfig = Field(default_factory=HttpEngineConfig)

    @field_validator("prompts")
    @classmethod
    def _prompts_not_empty(cls, value: list[str]) -> list[str]:
        if not value or any(not p.strip() for p in value):
            raise ValueError("prompts must be a non-empty list of non-empty strings")
        return value


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


class TrainingConfig(Section):
    """Encoder training: pairs, model, loss, optimisation and distribution."""

    pairs: str = "semcse"
    loss: Literal["triplet", "infonce"] = "triplet"
    texts: str | None = None
    base_model: str | None = None
    out: str | None = None
    pooling: Literal["cls", "mean", "last"] = "mean"
    projection: bool = False
    projection_dim: int | None = Field(None, gt=0)
    freeze_embeddings: bool = False
    freeze_layers: int = Field(0, ge=0)
    gradient_checkpointing: bool = False
    max_length: int = Field(256, gt=0)
    batch_size: int = Field(32, gt=1)
    learning_rate: float = Field(2e-5, gt=0)
    weight_decay: float = Field(0.0, ge=0)
    warmup_steps: int = Field(0, ge=0)
    max_steps: int = Field(1000, gt=0)
    temperature: float | None = Field(None, gt=0)
    margin: float = Field(1.0, gt=0)
    anchor_l2_weight: float = Field(1 / 250, ge=0)
    positive_mix: PositiveMix = Field(default_factory=PositiveMix)
    crop_sentences: int = Field(2, gt=0)
    min_sentence_chars: int = Field(100, ge=0)
    max_sentence_chars: int = Field(250, gt=0)
    train_fraction: float = Field(1.0, gt=0, le=1)
    num_workers: int = Field(2, gt=0)
    use_gpu: bool = False
    cpus_per_worker: float = Field(1.0, gt=0)
    zero_stage: int = Field(2, ge=0, le=3)
    eval_every: int = Field(50, gt=0)
    patience: int = Field(5, gt=0)
    max_failures: int = Field(0, ge=0)
    seed: int = 0
    register_name: str = "semcse-encoder"
    register_alias: str = "candidate"

    @field_validator("pairs")
    @classmethod
    def _known_pairs(cls, value: str) -> str:
        modes = {"semcse", "summaries", "same-input", "crops", "dropout"}
        if value not in modes and not (value.startswith("aspect:") and len(value) > len("aspect:")):
            raise ValueError(f"unknown pairs mode {value!r}; expected one of {sorted(modes)} or 'aspect:<name>'")
        return value

    @model_validator(mode="after")
    def _projection_has_dim(self) -> TrainingConfig:
        if self.projection and self.projection_dim is None:
            raise ValueError("projection is enabled but projection_dim is not set")
        if self.min_sentence_chars >= self.max_sentence_chars:
            raise ValueError("min_sentence_chars must be smaller than max_sentence_chars")
        return self

    @property
    def effective_temperature(self) -> float:
        """The paper defaults: 0.05 for crop-based pairs, 0.07 otherwise, unless set explicitly."""
        if self.temperature is not None:
            return self.temperature
        return 0.05 if self.pairs in {"crops", "dropout"} else 0.07


class EvaluationConfig(Section):
    """Which suites to run on which models and data."""

    suites: list[str] = Field(default_factory=lambda: ["semantic"])
    models: list[str] = Field(default_factory=list)
    data: str | None = None
    out: str | None = None
    label_col: str | None = None
    query_col: str | None = None
    batch_size: int = Field(64, gt=0)
    max_length: int = Field(256, gt=0)
    pooling: Literal["cls", "mean", "last"] = "mean"
    ivf_threshold: int = Field(200_000, gt=0)
    plots: bool = True


class ServeConfig(Section):
    """Ray Serve apps: where models come from, batching, limits and the optional API key."""

    host: str = "127.0.0.1"
    port: int = Field(8000, gt=0, lt=65536)
    encoder: str | None = None
    index: str | None = None
    decoder: str | None = None
    map: str | None = None
    max_batch_size: int = Field(32, gt=0)
    batch_wait_timeout_s: float = Field(0.01, ge=0)
    max_items: int = Field(2048, gt=0)
    max_chars: int = Field(20_000, gt=0)
    api_key_env: str = "SEMCSE_API_KEY"


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


def format_validation_error(error: ValidationError) -> str:
    """One line per problem: `key.path: reason (got value)`."""
    lines = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"]) or "(top level)"
        message = problem["msg"]
        if problem["type"] == "extra_forbidden":
            message = "unknown key"
        got = problem.get("input")
        suffix = (
            "" if problem["type"] in {"extra_forbidden", "missing"} or isinstance(got, dict) else f" (got {got!r})"
        )
        lines.append(f"{where}: {message}{suffix}")
    return "\n".join(lines)


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> RunConfig:
    """Read a YAML run config (or the defaults), apply overrides, validate everything at once."""
    data: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"config file not found: {path}")
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
