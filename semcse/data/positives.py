"""Positive pairs for contrastive training, for every `--pairs` mode.

Training data is one row per abstract (`id`, `title`, `abstract`, `texts`, `sentences`), and the
pair is drawn from the row *when the batch is made*. Two reasons: a batch never holds two pairs of
the same abstract (which would be false negatives for each other), and every epoch sees fresh
pairs (another summary, another crop) without materialising all combinations.

`texts` is the pool a mode draws anchors from (the modes and their positives: `semcse.data.modes`).

Crops follow the cropping paper: sentences shorter than `min_sentence_chars` or longer than
`max_sentence_chars` are discarded first, then every window of `crop_sentences` consecutive kept
sentences is a crop. SemCSE's positive mix (summary 50% / title 15% / sentence 35%) is renormalised
over the kinds a row actually has (e.g. no other summary when only one was generated).

Example:
    >>> rows = build_pair_rows("crops", corpus, None, TrainingConfig(pairs="crops"))
    >>> anchors, positives = PairSampler("crops").sample(rows.to_dict("list"), np.random.default_rng(0))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from semcse.data.modes import pair_mode
from semcse.data.schema import ABSTRACT, ID, TITLE
from semcse.data.sentences import split_sentences

if TYPE_CHECKING:
    from semcse.config import PositiveMix, TrainingConfig

PAIR_COLUMNS = (ID, TITLE, ABSTRACT, "texts", "sentences")


def crops(abstract: str, size: int, min_chars: int, max_chars: int) -> list[str]:
    """Every window of `size` consecutive sentences after discarding too short / too long sentences."""
    kept = [s for s in split_sentences(abstract) if min_chars <= len(s) <= max_chars]
    return [" ".join(kept[i : i + size]) for i in range(len(kept) - size + 1)]


def generated_texts(texts: pd.DataFrame, kind: str) -> pd.Series:
    """Applicable, non-empty generated texts of one kind, grouped into a list per abstract id."""
    applicable = texts["applicable"].fillna(True).astype(bool) if "applicable" in texts else True
    chosen = texts[(texts["kind"] == kind) & applicable].copy()
    chosen["text"] = chosen["text"].fillna("").str.strip()
    chosen = chosen[chosen["text"] != ""]
    order = [c for c in ("id", "prompt_id", "sample") if c in chosen]
    return chosen.sort_values(order).groupby("id")["text"].agg(list)


def build_pair_rows(mode: str, corpus: pd.DataFrame, texts: pd.DataFrame | None, cfg: TrainingConfig) -> pd.DataFrame:
    """One row per usable abstract of `corpus`; abstracts without enough material for `mode` are dropped."""
    spec = pair_mode(mode)
    frame = corpus[[ID, TITLE, ABSTRACT]].copy()
    frame["sentences"] = frame[ABSTRACT].map(split_sentences)
    if spec.source == "crops":
        size, low, high = cfg.crop_sentences, cfg.min_sentence_chars, cfg.max_sentence_chars
        frame["texts"] = frame[ABSTRACT].map(lambda a: crops(a, size, low, high))
    else:
        if texts is None:
            raise ValueError(f"pairs mode {mode!r} needs generated texts")
        kind = "summary" if spec.source == "summaries" else mode
        pools = generated_texts(texts, kind)
        frame["texts"] = frame[ID].map(pools).map(lambda v: v if isinstance(v, list) else [])
    usable = frame["texts"].map(len) >= spec.min_texts
    if spec.draw == "mix":
        usable &= np.array([bool(_mix_kinds(row, cfg.positive_mix)) for row in frame.to_dict("records")], dtype=bool)
    return frame[usable].reset_index(drop=True)[list(PAIR_COLUMNS)]


def _mix_kinds(row: Mapping[Any, Any], mix: PositiveMix) -> dict[str, float]:
    """The positive kinds available for one row, with their (unnormalised) weights."""
    available = {
        "summary": len(row["texts"]) >= 2,
        "title": bool(str(row[TITLE]).strip()),
        "sentence": len(row["sentences"]) > 0,
    }
    weights = {"summary": mix.summary, "title": mix.title, "sentence": mix.sentence}
    return {kind: w for kind, w in weights.items() if available[kind] and w > 0}


class PairSampler:
    """Draws one (anchor, positive) pair per row of a batch; runs inside the training workers."""

    def __init__(self, mode: str, mix: PositiveMix | None = None) -> None:
        from semcse.config import PositiveMix

        self.spec = pair_mode(mode)
        self.mix = mix or PositiveMix()

    def sample(
        self, batch: Mapping[str, Sequence[Any] | np.ndarray], rng: np.random.Generator
    ) -> tuple[list[str], list[str]]:
        anchors, positives = [], []
        for i in range(len(batch["texts"])):
            row = {key: batch[key][i] for key in ("texts", TITLE, "sentences")}
            anchor, positive = self._pair(row, rng)
            anchors.append(anchor)
            positives.append(positive)
        return anchors, positives

    def _pair(self, row: Mapping[str, Any], rng: np.random.Generator) -> tuple[str, str]:
        pool = list(row["texts"])
        first = int(rng.integers(len(pool)))
        if self.spec.draw == "same":
            return pool[first], pool[first]
        if self.spec.draw == "distinct":
            return pool[first], pool[_other(first, len(pool), rng)]
        kinds = _mix_kinds(row, self.mix)
        names = list(kinds)
        weights = np.array([kinds[k] for k in names], dtype=np.float64)
        kind = names[int(rng.choice(len(names), p=weights / weights.sum()))]
        if kind == "summary":
            return pool[first], pool[_other(first, len(pool), rng)]
        if kind == "title":
            return pool[first], str(row[TITLE])
        sentences = list(row["sentences"])
        return pool[first], sentences[int(rng.integers(len(sentences)))]


def _other(index: int, size: int, rng: np.random.Generator) -> int:
    """A uniformly random index in [0, size) different from `index` (size >= 2)."""
    other = int(rng.integers(size - 1))
    return other + (other >= index)
