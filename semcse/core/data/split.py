"""Deterministic train/val/test assignment from a hash of the id.

Hashing (not shuffling) keeps a paper in the same split across reruns, corpus growth and machines,
so a model is never evaluated on abstracts it was trained on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from semcse.core.data.io import CorpusError

if TYPE_CHECKING:
    from semcse.core.config import CorpusConfig

Split = Literal["train", "val", "test"]


def unit_hash(key: str, seed: str = "semcse") -> float:
    """Map a string to a stable float in [0, 1)."""
    digest = hashlib.blake2b(f"{seed}\x00{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def split_of(row_id: str, val_fraction: float = 0.1, test_fraction: float = 0.1, seed: str = "semcse") -> Split:
    """The split of one id: test takes the lowest hashes, then val, then train."""
    u = unit_hash(row_id, seed)
    if u < test_fraction:
        return "test"
    if u < test_fraction + val_fraction:
        return "val"
    return "train"


def splits_of(ids: Iterable[str], corpus: CorpusConfig) -> list[Split]:
    """The split of every id under the corpus settings (`val_fraction`, `test_fraction`, `split_seed`):
    the one mapping every stage uses, so training, evaluation and the decoder agree on each paper."""
    return [split_of(str(i), corpus.val_fraction, corpus.test_fraction, corpus.split_seed) for i in ids]


SPLIT_NAMES = {"train": "train", "val": "val", "validation": "val", "dev": "val", "test": "test"}


def frame_splits(frame: pd.DataFrame, corpus: CorpusConfig) -> pd.Series:
    """Each row's split (aligned with the frame's index): the corpus's own split column when it has one,
    else the hash split of its id.

    A split column that names no validation rows (ohsumed has only train and test) gets
    `val_fraction` of its train rows as validation, chosen by the same id hash, so training still
    has held-out rows to select on and the column's test rows stay untouched.
    """
    column = corpus.split_col
    if column not in frame.columns:
        return pd.Series(splits_of(frame["id"], corpus), index=frame.index, dtype=object)
    given = frame[column].astype(str).str.strip().str.lower()
    unknown = sorted(set(given) - set(SPLIT_NAMES))
    if unknown:
        raise CorpusError(
            f"split column {column!r} holds {unknown[:5]}; expected train, val (validation, dev) or test "
            f"(or set corpus.split_col to a column that does not exist to use the hash split)"
        )
    names = given.map(SPLIT_NAMES)
    if not (names == "val").any():
        carve = np.array([unit_hash(str(i), corpus.split_seed) < corpus.val_fraction for i in frame["id"]])
        names = names.mask((names == "train").to_numpy() & carve, "val")
    return names
