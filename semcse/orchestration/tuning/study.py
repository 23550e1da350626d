"""A study file: one named ablation, checked completely before a single trial is scheduled.

A study names a fixed base (a run-config file plus `fixed` key-path overrides), a search space over
RunConfig key paths, the metric and mode, an optional ASHA scheduler, the evaluation suites run
on each finished trial's model, and how the winner is chosen (`prefer`, see `Study`). `load_study`
rejects unknown key paths, empty spaces and values the RunConfig would refuse (e.g. `training.pairs:
[crops, typo]`) with messages that name them, because a bad grid point discovered by trial 7 of 12
wastes the six trials before it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from semcse.core.config import ConfigError, RunConfig, format_validation_error, load_config

RANGE_KINDS = ("uniform", "loguniform", "randint")


class StudyError(ConfigError):
    """A study that cannot run; raised before any trial starts."""


class Domain(BaseModel):
    """One parameter's values: exactly one of a grid, a sampled choice, or a sampled numeric range."""

    model_config = ConfigDict(extra="forbid")

    grid: list[Any] | None = None
    choice: list[Any] | None = None
    uniform: tuple[float, float] | None = None
    loguniform: tuple[float, float] | None = None
    randint: tuple[int, int] | None = None

    @model_validator(mode="before")
    @classmethod
    def _list_is_grid(cls, value: Any) -> Any:
        return {"grid": value} if isinstance(value, list) else value

    @model_validator(mode="after")
    def _one_kind(self) -> Domain:
        given = [k for k in ("grid", "choice", *RANGE_KINDS) if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of grid, choice, {', '.join(RANGE_KINDS)} (got {given or 'none'})")
        kind = given[0]
        if kind in ("grid", "choice") and not getattr(self, kind):
            raise ValueError(f"empty search space: {kind} has no values")
        if kind in RANGE_KINDS:
            low, high = getattr(self, kind)
            if not low < high:
                raise ValueError(f"empty search space: {kind} range [{low}, {high}] needs low < high")
            if kind == "loguniform" and low <= 0:
                raise ValueError(f"loguniform range [{low}, {high}] must be positive")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in ("grid", "choice", *RANGE_KINDS) if getattr(self, k) is not None)

    def values_to_check(self) -> list[Any]:
        """Every grid/choice value, or both ends of a range: what the RunConfig must accept."""
        value = getattr(self, self.kind)
        return list(value)

    def to_tune(self) -> Any:
        from ray import tune

        if self.grid is not None:
            return tune.grid_search(self.grid)
        if self.choice is not None:
            return tune.choice(self.choice)
        if self.randint is not None:
            low, high = self.randint
            return tune.randint(low, high + 1)  # inclusive in the study file, exclusive in Tune
        return getattr(tune, self.kind)(*getattr(self, self.kind))


class Asha(BaseModel):
    """ASHA over validation reports: a trial gets `grace_period` evaluations before it can be stopped."""

    model_config = ConfigDict(extra="forbid")

    grace_period: int = Field(1, ge=1)
    reduction_factor: float = Field(2.0, gt=1)


class Study(BaseModel):
    """The parsed study file.

    `base` is a run-config file relative to the study file, or a shipped config's name; `fixed` and
    `search` use RunConfig key paths.

    The winner is the trial with the best `metric`, unless the study names searched parameters in `prefer`
    (each with `max` or `min`): then it is, among the trials that delivered a trained step (one that beat the
    base model on validation under the trainer's improvement rule and guards), the one with the preferred values,
    in the order given, and the best metric among equals. That is the parsimony rule for a parameter whose benefit
    validation cannot see: the most regularised recipe that still shows a gain validation can. Searched parameters
    named in `replicates` (e.g. `training.seed`) repeat one recipe: a recipe's metric is the mean over its runs,
    and under `prefer` it counts as delivering only when every run did, so a setting at the edge of what
    validation can tell from the base is not chosen on one lucky seed.
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    description: str = ""
    base: str | None = None
    fixed: dict[str, Any] = Field(default_factory=dict)
    search: dict[str, Domain]
    samples: int = Field(1, ge=1)
    metric: str = "val_score"
    mode: Literal["min", "max"] = "min"
    scheduler: Literal["fifo", "asha"] = "fifo"
    asha: Asha = Field(default_factory=Asha)
    suites: list[Literal["semantic", "knn", "aspects"]] = Field(default_factory=list)
    test_suites: list[Literal["semantic", "knn", "aspects"]] = Field(default_factory=list)
    trainer: Literal["encoder", "multi"] = "encoder"
    max_concurrent_trials: int | None = Field(None, ge=1)
    prefer: dict[str, Literal["max", "min"]] = Field(default_factory=dict)
    replicates: list[str] = Field(default_factory=list)
    source: Path | None = Field(None, exclude=True)

    @model_validator(mode="after")
    def _space_and_metric(self) -> Study:
        if not self.search:
            raise ValueError("empty search space: `search` names no parameters")
        if self.scheduler == "asha" and not self.metric.startswith("val_"):
            raise ValueError(f"ASHA stops trials on validation reports; metric {self.metric!r} is not a val_* metric")
        for field, keys in (("prefer", list(self.prefer)), ("replicates", self.replicates)):
            for key in keys:
                if key not in self.search:
                    searched = ", ".join(self.search)
                    raise ValueError(f"{field} names {key!r}, which the study does not search ({searched})")
        if set(self.prefer) & set(self.replicates):
            raise ValueError(
                f"{sorted(set(self.prefer) & set(self.replicates))} cannot be both preferred and replicates"
            )
        for key in self.prefer:
            values = self.search[key].values_to_check()
            if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                raise ValueError(f"prefer needs numbers to compare; {key!r} searches {values}")
        return self

    def param_space(self) -> dict[str, Any]:
        """The search as Ray Tune's `param_space`: one domain per key; Tune crosses each grid with the others."""
        return {key: domain.to_tune() for key, domain in self.search.items()}

    @property
    def trials(self) -> int:
        """How many trials the study runs: `samples` times each grid's size (sampled domains add none)."""
        count = self.samples
        for domain in self.search.values():
            count *= len(domain.grid) if domain.grid is not None else 1
        return count

    @property
    def base_path(self) -> Path | str | None:
        """The base run config: a file relative to the study file, else the name of a shipped run config."""
        if self.base is None:
            return None
        path = Path(self.base)
        if not path.is_absolute() and self.source is not None:
            path = (self.source.parent / path).resolve()
        return path if path.is_file() else self.base

    def overrides(self, extra: list[str] | None = None) -> list[str]:
        """The study's fixed values as `--set` strings, then the caller's (which win)."""
        return [f"{key}={json.dumps(value)}" for key, value in self.fixed.items()] + list(extra or [])

    def base_config(self, extra: list[str] | None = None) -> RunConfig:
        return load_config(self.base_path, self.overrides(extra))


def find_study(name: str) -> Path:
    """A study YAML path as given, else a study shipped with the package (`semcse/studies/<name>.yaml`)."""
    from semcse.core.resources import ResourceNotFound, find

    try:
        return find("studies", name)
    except ResourceNotFound as exc:
        raise StudyError(str(exc)) from None


def load_study(
    name: str, overrides: list[str] | None = None, config: str | Path | None = None
) -> tuple[Study, RunConfig]:
    """Parse, check every key path and value against RunConfig, and return the study with its base config.

    `config` replaces the study's base run-config file (its `fixed` values and `overrides` still apply).
    """
    path = find_study(name)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise StudyError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise StudyError(f"{path}: a study file is a mapping (name, base, search, metric, ...)")
    try:
        study = Study.model_validate(raw | {"source": path})
    except ValidationError as exc:
        raise StudyError(f"invalid study {path}:\n{format_validation_error(exc)}") from exc
    if config is not None:
        study = study.model_copy(update={"base": str(Path(config).resolve())})
    problems = {key: key_path_error(key) for key in [*study.fixed, *study.search]}
    reasons = "\n".join(f"{key}: {problem}" for key, problem in problems.items() if problem)
    if reasons:
        raise StudyError(f"study {study.name!r} ({path}) names parameters that are not RunConfig keys:\n{reasons}")
    try:
        base = study.base_config(overrides)
    except ConfigError as exc:
        raise StudyError(f"study {study.name!r}: the fixed base config is invalid: {exc}") from exc
    for key, domain in study.search.items():
        for value in domain.values_to_check():
            try:
                load_config(study.base_path, study.overrides(overrides) + [f"{key}={json.dumps(value)}"])
            except ConfigError as exc:
                raise StudyError(f"study {study.name!r}: search value {key}={value!r} is invalid: {exc}") from exc
    return study, base


def key_path_error(key: str) -> str | None:
    """Why `key` is not a settable RunConfig leaf (`training.learning_rate`), or None when it is."""
    model: type[BaseModel] = RunConfig
    parts = key.split(".")
    for i, part in enumerate(parts):
        field = model.model_fields.get(part)
        where = ".".join(parts[: i + 1])
        if field is None:
            known = ", ".join(sorted(model.model_fields))
            return f"unknown parameter {where!r} (known here: {known})"
        annotation = field.annotation
        section = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
        last = i == len(parts) - 1
        if section is not None and last:
            return f"{where!r} is a section, not a parameter; name one of its keys"
        if section is None and not last:
            return f"{where!r} is a parameter, not a section"
        if section is not None:
            model = section
    return None
