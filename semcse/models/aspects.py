"""The multi-aspect interface every model answers, so callers never branch on the kind of model.

A model has `aspects` (`[""]` for a single-vector encoder, aspect names for a unified model) and
`encode(texts)` (single vector) or `encode(texts, aspects=[...]) -> {aspect: [n, d]}` (multi-aspect).
`encode_aspects` turns either into `{aspect: float32 [n, d]}`: what search, serving, maps and
evaluation consume.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from semcse.core.config import ConfigError


class MissingAspectError(ValueError):
    """A model that lists an aspect but returned no vectors for it."""


def aspect_weights(weights: Mapping[str, float] | None, aspects: list[str]) -> dict[str, float]:
    """α over `aspects` summing to 1: how a weighted search or map combines the aspects' similarities.

    No weights means every aspect counts equally. A weight must name a known aspect and be finite
    and non-negative, with a positive sum: NaN passes every `< 0` test and would rank the corpus by
    nothing at all, so it is refused here, once, for search, maps and the apps alike.
    """
    if not weights:
        return {a: 1.0 / len(aspects) for a in aspects}
    unknown = sorted(set(weights) - set(aspects))
    if unknown:
        raise ValueError(f"weights name unknown aspect(s) {unknown}; the aspects are {aspects}")
    values = [float(w) for w in weights.values()]
    if not all(math.isfinite(w) and w >= 0 for w in values) or sum(values) <= 0:
        raise ValueError(f"aspect weights must be finite and non-negative with a positive sum, got {dict(weights)}")
    total = sum(values)
    return {a: float(weights.get(a, 0.0)) / total for a in aspects}


def parse_weights(items: Iterable[str] | str | None) -> dict[str, float]:
    """`hypothesis=0.7,species=0.3` (or the same pairs as separate items) → {aspect: weight}, as typed.

    The one reading of weights a person writes (`semcse search --weights`, `semcse map layout
    --weight`); `aspect_weights` then checks them against a model's aspects and normalises them.
    """
    pairs = [pair for item in ([items] if isinstance(items, str) else items or []) for pair in item.split(",")]
    weights = {}
    for pair in pairs:
        aspect, sep, value = pair.partition("=")
        try:
            weights[aspect.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise ConfigError(f"aspect weight {pair!r} must look like aspect=weight")
    return weights


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
