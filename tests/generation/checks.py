"""Structural checks shared by the generation tests: every sample accounted for exactly once."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
from semcse.data.shards import read_shards
from semcse.generation.pipeline import REJECTS_DIR


def outputs(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All written rows and all rejects of a run directory."""
    rows = read_shards(out)
    rejects = read_shards(out / REJECTS_DIR)
    return rows.to_pandas(), rejects.to_pandas()


def assert_complete(out: Path, keys: list[str], expected: int, schema) -> pd.DataFrame:
    """Rows + rejects == expected, no (key...) twice, every shard has its rejects file, schema as contracted."""
    rows, rejects = outputs(out)
    assert pq.read_schema(next(out.glob("part-*.parquet"))).remove_metadata().equals(schema)
    both = pd.concat([rows[keys], rejects[keys]], ignore_index=True)
    assert len(both) == expected, (len(rows), len(rejects), expected)
    assert not both.duplicated().any()
    assert {p.name for p in out.glob("part-*.parquet")} == {p.name for p in (out / REJECTS_DIR).glob("part-*.parquet")}
    return rows
