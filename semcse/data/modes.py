"""The one list of pairs modes: what each trains on and how its positives are drawn.

Config validation, the mode's recipe (loss, temperature, warm-up), the pipeline's readiness check,
the trainer's size checks and the pair sampler all ask this table, so a new mode is added here once.

| mode            | anchor pool                      | positive                                 |
|-----------------|----------------------------------|------------------------------------------|
| `semcse`        | the abstract's summaries         | summary 50% / title 15% / sentence 35%   |
| `summaries`     | the abstract's summaries         | another summary                          |
| `same-input`    | the abstract's summaries         | the same summary (only dropout differs)  |
| `crops`         | crops of consecutive sentences   | another crop                             |
| `dropout`       | crops of consecutive sentences   | the same crop (only dropout differs)     |
| `aspect:<name>` | that aspect's summaries          | another one                              |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ASPECT_PREFIX = "aspect:"


@dataclass(frozen=True)
class PairMode:
    """Where a mode's anchor pool comes from, how the positive is drawn, and the pool size it needs."""

    source: Literal["summaries", "aspect", "crops"]
    draw: Literal["mix", "distinct", "same"]
    min_texts: int


MODES: dict[str, PairMode] = {
    "semcse": PairMode("summaries", "mix", 1),
    "summaries": PairMode("summaries", "distinct", 2),
    "same-input": PairMode("summaries", "same", 1),
    "crops": PairMode("crops", "distinct", 2),
    "dropout": PairMode("crops", "same", 1),
}


def pair_mode(name: str) -> PairMode:
    """The mode called `name`; a ValueError listing the valid names otherwise."""
    if name.startswith(ASPECT_PREFIX) and len(name) > len(ASPECT_PREFIX):
        return PairMode("aspect", "distinct", 2)
    if name not in MODES:
        raise ValueError(f"unknown pairs mode {name!r}; expected one of {sorted(MODES)} or '{ASPECT_PREFIX}<name>'")
    return MODES[name]


def needs_texts(name: str) -> bool:
    """Whether a mode trains on generated texts (else it needs only the corpus: the LLM-free modes)."""
    return pair_mode(name).source != "crops"
