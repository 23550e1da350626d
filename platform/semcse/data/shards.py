"""Content-keyed Parquet shards: the resume mechanism shared by every stage.

A stage cuts its input into shards, derives each shard's key from the shard's content plus the
settings that shape the output, and writes `part-<key>.parquet` atomically (temp file + rename).
A rerun recomputes the keys, skips shards already on disk and does the rest, so a crash loses at
most the shards in flight and never duplicates a row. Changing a setting changes the keys, so
stale outputs are never mistaken for fresh ones.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

PREFIX = "part-"


def content_key(rows: Iterable[Any], settings: dict[str, Any] | None = None, length: int = 16) -> str:
    """A stable hex key for a shard: its rows (JSON-serialisable) plus the settings that shape its output."""
    digest = hashlib.blake2b(digest_size=length // 2)
    digest.update(json.dumps(settings or {}, sort_keys=True, default=str).encode())
    for row in rows:
        digest.update(b"\x1e")
        digest.update(json.dumps(row, sort_keys=True, default=str, ensure_ascii=False).encode())
    return digest.hexdigest()


def shard_path(directory: str | Path, key: str) -> Path:
    return Path(directory) / f"{PREFIX}{key}.parquet"


def finished_keys(directory: str | Path) -> set[str]:
    """Keys of the shards already complete in a directory (temp files are ignored)."""
    directory = Path(directory)
    if not directory.is_dir():
        return set()
    return {p.name[len(PREFIX) : -len(".parquet")] for p in directory.glob(f"{PREFIX}*.parquet")}


def write_shard(directory: str | Path, key: str, table: pa.Table) -> Path:
    """Write one shard atomically so that a crash never leaves a half-written part behind."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    final = shard_path(directory, key)
    tmp = directory / f".tmp-{key}-{os.getpid()}.parquet"
    pq.write_table(table, tmp)
    os.replace(tmp, final)
    return final


def read_shards(directory: str | Path, keys: Iterable[str] | None = None) -> pa.Table:
    """Concatenate shards (all, or only the given keys, in that order)."""
    directory = Path(directory)
    paths = (
        [shard_path(directory, k) for k in keys] if keys is not None else sorted(directory.glob(f"{PREFIX}*.parquet"))
    )
    tables = [pq.read_table(p) for p in paths]
    if not tables:
        raise FileNotFoundError(f"no shards in {directory}")
    return pa.concat_tables(tables, promote_options="default")
