"""A whole run (`RunConfig`: every section plus where its outputs go), read from YAML with `--set` overrides applied
before validation, so an override is checked exactly like a value written in the file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError, model_validator

from semcse.core.config.base import ConfigError, Section
from semcse.core.config.corpus import CorpusConfig
from semcse.core.config.decoder import DecoderConfig
from semcse.core.config.evaluation import EvaluationConfig
from semcse.core.config.generation import GenerationConfig
from semcse.core.config.maps import MapConfig
from semcse.core.config.multi import MultiConfig
from semcse.core.config.pipeline import PipelineConfig
from semcse.core.config.runtime import RayConfig, TrackingConfig
from semcse.core.config.serve import ServeConfig
from semcse.core.config.training import TrainingConfig


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
