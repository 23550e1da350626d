"""Validated run configuration: one YAML file describes a run, and each stage reads its own section.

Each section is a module of this package, named for the stage it configures (`training`, `evaluation`, …); `run`
composes them into `RunConfig` and reads a file with its `--set` overrides. Every section forbids unknown keys, so a
typo fails with its key path, and is frozen once validated: a stage reads what the user wrote, with its locations
resolved (`locations.resolved`) and what the pairs mode decides resolved in one place (`TrainingConfig.recipe`); a
config derived from another is made by `with_overrides`.
"""

from semcse.core.config.base import NOT_SHAPING, ConfigError, NotShaping, Section, shapes
from semcse.core.config.corpus import CorpusConfig
from semcse.core.config.decoder import DecoderConfig
from semcse.core.config.evaluation import EvaluationConfig, Suite
from semcse.core.config.generation import (
    ENGINE_BATCH_SIZE,
    TASK_NEW_TOKENS,
    TASK_TEMPERATURE,
    GenerationConfig,
    GenerationEngine,
    GenerationTask,
    HttpEngineConfig,
)
from semcse.core.config.maps import MapConfig
from semcse.core.config.multi import MultiConfig
from semcse.core.config.pipeline import PipelineConfig
from semcse.core.config.run import (
    RunConfig,
    apply_overrides,
    flatten,
    format_validation_error,
    load_config,
    parse_override,
    with_overrides,
)
from semcse.core.config.runtime import RayConfig, TrackingConfig
from semcse.core.config.serve import ServeConfig
from semcse.core.config.training import (
    COSINE_RANK_SOFTNESS,
    SCRATCH_PREFIX,
    PositiveMix,
    Recipe,
    TrainingConfig,
    is_scratch,
)

__all__ = [
    "COSINE_RANK_SOFTNESS",
    "ENGINE_BATCH_SIZE",
    "NOT_SHAPING",
    "SCRATCH_PREFIX",
    "TASK_NEW_TOKENS",
    "TASK_TEMPERATURE",
    "ConfigError",
    "CorpusConfig",
    "DecoderConfig",
    "EvaluationConfig",
    "GenerationConfig",
    "GenerationEngine",
    "GenerationTask",
    "HttpEngineConfig",
    "MapConfig",
    "MultiConfig",
    "NotShaping",
    "PipelineConfig",
    "PositiveMix",
    "RayConfig",
    "Recipe",
    "RunConfig",
    "Section",
    "ServeConfig",
    "Suite",
    "TrackingConfig",
    "TrainingConfig",
    "apply_overrides",
    "flatten",
    "format_validation_error",
    "is_scratch",
    "load_config",
    "parse_override",
    "shapes",
    "with_overrides",
]
