"""The `multi` section: SemCSE-Multi's aspect encoders and the unified model distilled from them."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from semcse.core.config.base import Section


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
