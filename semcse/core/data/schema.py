"""Column names and Arrow schemas of the data contracts in DESIGN.md."""

from __future__ import annotations

from typing import Any, cast

import pandas as pd
import pyarrow as pa

ID, TITLE, ABSTRACT, REASON = "id", "title", "abstract", "reason"
CORPUS_COLUMNS = (ID, TITLE, ABSTRACT)

TEXTS_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("kind", pa.string()),
        ("prompt_id", pa.string()),
        ("sample", pa.int32()),
        ("text", pa.string()),
        ("applicable", pa.bool_()),
        ("model", pa.string()),
        ("engine", pa.string()),
    ]
)

JUDGEMENTS_SCHEMA = pa.schema([("a", pa.string()), ("b", pa.string()), ("aspect", pa.string()), ("score", pa.int32())])


def embeddings_schema(dim: int) -> pa.Schema:
    """`id`, `aspect` ("" for single-vector models) and a fixed-size float32 vector."""
    return pa.schema([("id", pa.string()), ("aspect", pa.string()), ("vector", pa.list_(pa.float32(), dim))])


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as dicts keyed by column name (the contracts' columns are always named by strings)."""
    return cast("list[dict[str, Any]]", frame.to_dict("records"))


def paper_text(frame: pd.DataFrame) -> pd.Series:
    """Title and abstract joined: the text of a paper, the usual input of scientific-document encoders."""
    return (frame[TITLE].fillna("").astype(str) + " " + frame[ABSTRACT].fillna("").astype(str)).str.strip()
