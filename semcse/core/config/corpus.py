"""The `corpus` section: where the corpus lives, its column names, what counts as a valid row, the splits."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from semcse.core.config.base import Section


class CorpusConfig(Section):
    """Where the corpus lives, how its columns are named, and what counts as a valid row.

    Splits: a corpus that carries its own split column (`split_col`, values train / val / test, also
    validation / dev) keeps it in every stage; otherwise a hash of the id assigns `test_fraction` and
    `val_fraction` of the papers (`data/split.py`). Training, tuning and evaluation use the same rule,
    so no stage ever evaluates on papers another stage trained on.
    """

    path: str | None = None
    format: Literal["auto", "parquet", "jsonl", "csv"] = "auto"
    id_col: str = "id"
    title_col: str = "title"
    abstract_col: str = "abstract"
    label_col: str | None = None
    split_col: str = "split"
    require_abstract: bool = True
    min_abstract_chars: int = Field(20, ge=0)
    max_abstract_chars: int = Field(50_000, gt=0)
    max_control_char_fraction: float = Field(0.01, ge=0, le=1)
    merge_likely_duplicates: bool = False
    val_fraction: float = Field(0.1, ge=0, lt=1)
    test_fraction: float = Field(0.1, ge=0, lt=1)
    split_seed: str = "semcse"

    @model_validator(mode="after")
    def _check_bounds(self) -> CorpusConfig:
        if self.min_abstract_chars >= self.max_abstract_chars:
            raise ValueError("min_abstract_chars must be smaller than max_abstract_chars")
        if self.val_fraction + self.test_fraction >= 1:
            raise ValueError("val_fraction + test_fraction must leave room for a training split")
        return self

    def validated(self, path: str | Path) -> CorpusConfig:
        """These settings pointed at a validated corpus, which always has canonical columns in Parquet.

        Later stages read what validation wrote; the user's column names describe only the raw input.
        """
        return self.model_copy(
            update={
                "path": str(path),
                "format": "parquet",
                "id_col": "id",
                "title_col": "title",
                "abstract_col": "abstract",
            }
        )
