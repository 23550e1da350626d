"""Deterministic train/val/test assignment from a hash of the id.

Hashing (not shuffling) keeps a paper in the same split across reruns, corpus growth and machines,
so a model is never evaluated on abstracts it was trained on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from semcse.config import CorpusConfig

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
