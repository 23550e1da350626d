"""The multi-aspect interface every model answers, so callers never branch on the kind of model.

A model has `aspects` (`[""]` for a single-vector encoder, aspect names for a unified model) and
`encode(texts)` (single vector) or `encode(texts, aspects=[...]) -> {aspect: [n, d]}` (multi-aspect).
`encode_aspects` turns either into `{aspect: float32 [n, d]}`: what search, serving, maps and
evaluation consume.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


class MissingAspectError(ValueError):
    """A model that lists an aspect but returned no vectors for it."""


def aspects_of(model: Any) -> list[str]:
    return list(getattr(model, "aspects", None) or [""])


def encode_aspects(model: Any, texts: list[str], batch_size: int | None = None) -> dict[str, np.ndarray]:
    """{aspect: float32 [n, d]} for single-vector (`aspects == [""]`) and multi-aspect models alike.

    `batch_size` (texts per forward pass) is passed on only when given, so the model keeps its own default.
    """
    aspects = aspects_of(model)
    options = {"batch_size": batch_size} if batch_size else {}
    if aspects == [""]:
        out: Mapping[str, Any] = {"": model.encode(texts, **options)}
    else:
        out = model.encode(texts, aspects=aspects, **options)
        missing = [a for a in aspects if a not in out]
        if missing:
            raise MissingAspectError(f"model returned no vectors for aspect(s) {missing}")
    return {a: np.asarray(out[a], dtype=np.float32) for a in aspects}
