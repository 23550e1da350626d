"""The `map` section: the corpus map's aspect weights, t-SNE and the place/explain optimisers."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

from semcse.core.config.base import NOT_SHAPING, Section


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
