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

# `--pairs auto`: what a user without an LLM trains; a recipe, so the settings it fixes apply unless the run sets
# them itself. The pairs were chosen on validation only by the `llm-free` study at the size a 2-core machine
# affords (crops, title and the mix at τ 0.05, lr 3e-5, 40 steps × 32, 2,000 ohsumed training abstracts;
# docs/tune.md): the mix is the one recipe whose validation ranks beat all-MiniLM-L6-v2's. The temperature, on
# validation too (150 steps of the mix, docs/tune.md): at the cropping paper's τ 0.05 a strong base model's loss
# lives on its few hardest in-batch negatives, most often papers on the same topic, and every run lost validation
# label agreement; at τ 0.2 it kept the topics but ranked pairs worse than the base; τ 0.1 ranks them better with
# label agreement within the guard's margin. The full grid is for a GPU node. Averaging with the base, half and half
# (WiSE-FT's default; `training.average_with_base`), is not chosen on validation, which cannot see what it protects:
# scored on held-out data (docs/tune.md), averaged models were never significantly worse than the same models
# unaveraged, and gave back part of what fine-tuning cost on TL;DR search and methodology similarity. The term
# that keeps the base model's in-batch similarities, at λ 10 (`training.base_similarity_weight`), is the llm-free
# study's rule on validation alone: the largest λ of 0, 10, 30, 100 whose runs delivered a trained step at every
# seed (6-8; λ 30 kept the base at seed 7). On held-out data it cuts the methodology loss by about two thirds and
# gives back most of the label-agreement gain (docs/tune.md, "Choosing λ on validation alone"). Only the upper half
# of the layers trains (the embeddings and the lower half frozen: `UPPER_HALF`).
AUTO: dict[str, Any] = {
    "pairs": "crops:0.5+title:0.5",
    "temperature": 0.1,
    "learning_rate": 3.0e-5,
    "average_with_base": 0.5,
    "base_similarity_weight": 10.0,
}

# Title pairs and `auto` on a pretrained encoder keep its input embeddings and lower half of the layers at the base
# model's weights unless the run sets them: the cropping paper (section 4) found that fine-tuning moves the last
# layers most and that training only those reaches almost the full model's quality. Held out, frozen runs kept every
# verdict of the same runs training every layer (auto on seeds 6-8; title pairs at auto's settings and at their own,
# seeds 3-4, where they lost less methodology) in about two thirds of the time, since autograd has nothing to reach
# below the first trained block (docs/tune.md, "Training the upper layers only"). Crops alone at their own recipe
# did not keep every verdict (one seed's last step turned worse on kNN, and another delivered a step held-out data
# finds worse than the base on labels and methodology where training every layer delivered the base), so they, the
# other mixes, `dropout` and text modes train every layer, as does an encoder trained from scratch, whose lower
# layers hold nothing worth keeping.
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
    """Whether a `--pairs` value freezes the lower half by default (`UPPER_HALF`): title pairs and `auto`; False for
    a value `mix_weights` refuses, which the config then reports."""
    if pairs == "auto":
        return True
    try:
        return set(mix_weights(pairs)) <= set(UPPER_HALF_MODES)
    except ValueError:
        return False
