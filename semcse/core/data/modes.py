"""The one list of pairs modes: what each trains on and how its positives are drawn.

Config validation, the mode's recipe (loss, temperature, warm-up), the pipeline's readiness check,
the trainer's size checks and the pair sampler all ask this table, so a new mode is added here once.

| mode            | anchor                           | positive                                 |
|-----------------|----------------------------------|------------------------------------------|
| `semcse`        | one of the abstract's summaries  | summary 50% / title 15% / sentence 35%   |
| `summaries`     | one of the abstract's summaries  | another summary                          |
| `same-input`    | one of the abstract's summaries  | the same summary (only dropout differs)  |
| `crops`         | a crop of consecutive sentences  | another crop                             |
| `dropout`       | a crop of consecutive sentences  | the same crop (only dropout differs)     |
| `title`         | the paper's title                | its abstract, or one of its crops        |
| `aspect:<name>` | one of that aspect's summaries   | another one                              |

The LLM-free modes (`crops`, `dropout`, `title`) need only the corpus, and mix: `crops+title` draws
each row's pair from one of them (equal weights), `crops:0.3+title:0.7` with those weights,
renormalised over the modes a row can serve (a paper whose title was excluded gives crop pairs).
`auto` is the recipe the LLM-free study chose on validation (`AUTO`): what a user without an LLM should train.
Title pairs, and `auto`, train only the upper half of a pretrained encoder unless the run says otherwise
(`UPPER_HALF`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

ASPECT_PREFIX = "aspect:"
MIX_SEPARATOR = "+"
LLM_FREE = ("crops", "dropout", "title")

# `--pairs auto`: what a user without an LLM trains; a recipe (`TrainingConfig.recipe`, whose fields it names), so the
# settings it fixes apply unless the run sets them.
# Chosen by the `llm-free` study on held-out expert labels where the base model is not at its ceiling, by a rule
# written before its runs (docs/tune.md, "Choosing `auto` where a gain can show").
AUTO: dict[str, Any] = {
    "pairs": "title",
    "temperature": 0.05,
    "learning_rate": 3.0e-5,
}

# Title pairs and `auto` on a pretrained encoder keep the input embeddings and the lower half of the layers at the
# base model's weights unless the run sets them: the same gain in less time (the cropping paper, section 4;
# docs/tune.md, "Choosing `auto` where a gain can show" and "Training the upper layers only").
UPPER_HALF: dict[str, Any] = {"freeze_embeddings": True, "freeze_layers": "half"}
UPPER_HALF_MODES = ("title",)


@dataclass(frozen=True)
class PairMode:
    """Where a mode's anchor pool comes from, how the positive is drawn, and the pool size it needs."""

    source: Literal["summaries", "aspect", "crops", "title"]
    draw: Literal["mix", "distinct", "same", "title"]
    min_texts: int


MODES: dict[str, PairMode] = {
    "semcse": PairMode("summaries", "mix", 1),
    "summaries": PairMode("summaries", "distinct", 2),
    "same-input": PairMode("summaries", "same", 1),
    "crops": PairMode("crops", "distinct", 2),
    "dropout": PairMode("crops", "same", 1),
    "title": PairMode("title", "title", 0),
}


def pair_mode(name: str) -> PairMode:
    """The mode called `name`; a ValueError listing the valid names otherwise."""
    if name.startswith(ASPECT_PREFIX) and len(name) > len(ASPECT_PREFIX):
        return PairMode("aspect", "distinct", 2)
    if name not in MODES:
        raise ValueError(
            f"unknown pairs mode {name!r}; expected one of {sorted(MODES)}, '{ASPECT_PREFIX}<name>', 'auto', "
            f"or a mix of {list(LLM_FREE)} such as 'crops+title' or 'crops:0.3+title:0.7'"
        )
    return MODES[name]


def mix_weights(pairs: str) -> dict[str, float]:
    """{mode: weight} of a `--pairs` value (one mode: weight 1); ValueError for an unknown or unmixable mode.

    Weights are normalised to sum to 1. Only the LLM-free modes mix: their rows come from the corpus alone.
    """
    parts = [part.strip() for part in pairs.split(MIX_SEPARATOR)]
    weights: dict[str, float] = {}
    for part in parts:
        name, sep, value = part.partition(":") if not part.startswith(ASPECT_PREFIX) else (part, "", "")
        pair_mode(name)
        try:
            weight = float(value) if sep else 1.0
        except ValueError:
            raise ValueError(f"pairs {pairs!r}: the weight of {name!r} must be a number, got {value!r}") from None
        if not weight > 0:
            raise ValueError(f"pairs {pairs!r}: the weight of {name!r} must be positive")
        if name in weights:
            raise ValueError(f"pairs {pairs!r} names {name!r} twice")
        weights[name] = weight
    if len(weights) > 1 and not set(weights) <= set(LLM_FREE):
        raise ValueError(f"pairs {pairs!r}: only the LLM-free modes {list(LLM_FREE)} mix")
    total = sum(weights.values())
    return {name: weight / total for name, weight in weights.items()}


def needs_texts(pairs: str) -> bool:
    """Whether a `--pairs` value trains on generated texts (else it needs only the corpus: the LLM-free modes)."""
    return any(pair_mode(name).source in ("summaries", "aspect") for name in mix_weights(pairs))


def trains_upper_half(pairs: str) -> bool:
    """Whether a mode freezes the lower half by default (`UPPER_HALF`): title pairs; False for a value `mix_weights`
    refuses, which the config then reports."""
    try:
        return set(mix_weights(pairs)) <= set(UPPER_HALF_MODES)
    except ValueError:
        return False
