"""Positive pairs for contrastive training, for every `--pairs` mode and mix of modes.

Training data is one row per abstract (`id`, `title`, `abstract`, `texts`, `sentences`, `title_ok`),
and the pair is drawn from the row *when the batch is made*. Two reasons: a batch never holds two
pairs of the same abstract (which would be false negatives for each other), and every epoch sees
fresh pairs (another summary, another crop) without materialising all combinations. Each row's draw
has a random generator of its own, seeded by the training seed and the row's place in the epoch's
global order (`DRAW`, set by the training loop), so the pairs of a step do not depend on how many
workers share it, and a resumed run draws what the uninterrupted one would have.

`texts` is the pool a mode draws anchors from (the modes and their positives: `semcse.core.data.modes`).

Crops follow the cropping paper: sentences shorter than `min_sentence_chars` or longer than
`max_sentence_chars` are discarded first, then every window of `crop_sentences` consecutive kept
sentences is a crop. Title pairs use titles of at least `min_title_words` words that no other paper
of the corpus shares (a title several papers share would make them false negatives, and a one-word
title says little); `title_ok` marks them and `title_exclusions` counts the others. SemCSE's positive
mix (summary 50% / title 15% / sentence 35%) and a mix of LLM-free modes are renormalised over what a
row actually has (e.g. no other summary when only one was generated, no title pair for a shared title).

Example:
    >>> rows = build_pair_rows("crops+title", corpus, None, TrainingConfig(pairs="crops+title"))
    >>> anchors, positives = PairSampler("crops+title").sample(rows.to_dict("list"), seed=0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from semcse.core.data.modes import mix_weights, pair_mode
from semcse.core.data.schema import ABSTRACT, ID, TITLE
from semcse.core.data.sentences import split_sentences

if TYPE_CHECKING:
    from semcse.core.config import PositiveMix, TrainingConfig

TITLE_OK = "title_ok"
PAIR_COLUMNS = (ID, TITLE, ABSTRACT, "texts", "sentences", TITLE_OK)
DRAW = "__draw"  # per row: its place in the epoch's global order, (epoch, position); set by the training loop


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


def title_exclusions(corpus: pd.DataFrame, min_words: int) -> pd.Series:
    """Per paper, why its title cannot anchor a title pair ("" when it can): too short, or shared by several papers."""
    normalised = corpus[TITLE].fillna("").astype(str).str.lower().str.split().str.join(" ")
    shared = normalised.duplicated(keep=False) & (normalised != "")
    short = normalised.map(lambda title: len(title.split())) < min_words
    reasons = pd.Series("", index=corpus.index, dtype=object)
    reasons[short] = "too short"
    reasons[shared & ~short] = "shared by several papers"
    return reasons


def build_pair_rows(pairs: str, corpus: pd.DataFrame, texts: pd.DataFrame | None, cfg: TrainingConfig) -> pd.DataFrame:
    """One row per usable abstract of `corpus`; abstracts without enough material for any mode of `pairs` are
    dropped."""
    modes = mix_weights(pairs)
    frame = corpus[[ID, TITLE, ABSTRACT]].copy()
    frame["sentences"] = frame[ABSTRACT].map(split_sentences)
    frame[TITLE_OK] = (title_exclusions(frame, cfg.min_title_words) == "").to_numpy()
    if all(pair_mode(mode).source in ("crops", "title") for mode in modes):
        size, low, high = cfg.crop_sentences, cfg.min_sentence_chars, cfg.max_sentence_chars
        frame["texts"] = frame[ABSTRACT].map(lambda a: crops(a, size, low, high))
    else:
        (mode,) = modes  # generated texts never mix with other modes (`mix_weights`)
        if texts is None:
            raise ValueError(f"pairs mode {mode!r} needs generated texts")
        kind = "summary" if pair_mode(mode).source == "summaries" else mode
        pools = generated_texts(texts, kind)
        frame["texts"] = frame[ID].map(pools).map(lambda v: v if isinstance(v, list) else [])
    records = frame.to_dict("records")
    usable = np.array([bool(_usable_modes(row, modes, cfg.positive_mix)) for row in records], dtype=bool)
    return frame[usable].reset_index(drop=True)[list(PAIR_COLUMNS)]


def _usable_modes(row: Mapping[Any, Any], modes: Mapping[str, float], mix: PositiveMix) -> dict[str, float]:
    """The modes of a mix this row can give a pair for, with their weights."""
    usable = {}
    for mode, weight in modes.items():
        spec = pair_mode(mode)
        if spec.draw == "title":
            ok = bool(row[TITLE_OK])
        elif spec.draw == "mix":
            ok = len(row["texts"]) >= spec.min_texts and bool(_mix_kinds(row, mix))
        else:
            ok = len(row["texts"]) >= spec.min_texts
        if ok:
            usable[mode] = weight
    return usable


def _mix_kinds(row: Mapping[Any, Any], mix: PositiveMix) -> dict[str, float]:
    """The positive kinds available for one row, with their (unnormalised) weights."""
    available = {
        "summary": len(row["texts"]) >= 2,
        "title": bool(str(row[TITLE]).strip()),
        "sentence": len(row["sentences"]) > 0,
    }
    weights = {"summary": mix.summary, "title": mix.title, "sentence": mix.sentence}
    return {kind: w for kind, w in weights.items() if available[kind] and w > 0}


def row_rng(seed: int, draw: Sequence[int] | np.ndarray) -> np.random.Generator:
    """The random generator of one row's draw: (training seed, epoch, place in the epoch's global order)."""
    return np.random.default_rng([seed, *(int(x) for x in draw)])


class PairSampler:
    """Draws one (anchor, positive) pair per row of a batch; runs inside the training workers."""

    def __init__(self, pairs: str, mix: PositiveMix | None = None) -> None:
        from semcse.core.config import PositiveMix

        self.modes = mix_weights(pairs)
        self.mix = mix or PositiveMix()

    def sample(self, batch: Mapping[str, Sequence[Any] | np.ndarray], seed: int) -> tuple[list[str], list[str]]:
        """One pair per row; a row's draw is seeded by `seed` and its `DRAW` (its row number when absent)."""
        anchors, positives = [], []
        for i in range(len(batch["texts"])):
            row = {key: batch[key][i] for key in ("texts", TITLE, ABSTRACT, "sentences", TITLE_OK)}
            draw = batch[DRAW][i] if DRAW in batch else (0, i)
            anchor, positive = self._pair(row, row_rng(seed, draw))
            anchors.append(anchor)
            positives.append(positive)
        return anchors, positives

    def _pair(self, row: Mapping[str, Any], rng: np.random.Generator) -> tuple[str, str]:
        usable = _usable_modes(row, self.modes, self.mix)
        names = list(usable)
        weights = np.array([usable[name] for name in names], dtype=np.float64)
        mode = names[int(rng.choice(len(names), p=weights / weights.sum()))] if len(names) > 1 else names[0]
        spec = pair_mode(mode)
        pool = list(row["texts"])
        if spec.draw == "title":  # the abstract half of the time, else one of its crops (when it has any)
            if pool and rng.random() < 0.5:
                return str(row[TITLE]), pool[int(rng.integers(len(pool)))]
            return str(row[TITLE]), str(row[ABSTRACT])
        first = int(rng.integers(len(pool)))
        if spec.draw == "same":
            return pool[first], pool[first]
        if spec.draw == "distinct":
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
