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
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa

from semcse.core import storage

PREFIX = "part-"


def content_key(rows: Iterable[Any], settings: dict[str, Any] | None = None, length: int = 16) -> str:
    """A stable hex key for a shard: its rows (JSON-serialisable) plus the settings that shape its output."""
    digest = hashlib.blake2b(digest_size=length // 2)
    digest.update(json.dumps(settings or {}, sort_keys=True, default=str).encode())
    for row in rows:
        digest.update(b"\x1e")
        digest.update(json.dumps(row, sort_keys=True, default=str, ensure_ascii=False).encode())
    return digest.hexdigest()


def shard_path(directory: str | Path, key: str) -> str:
    return storage.join(directory, f"{PREFIX}{key}.parquet")


def finished_keys(directory: str | Path) -> set[str]:
    """Keys of the shards already complete in a directory (a path or a storage URI)."""
    return {
        name[len(PREFIX) : -len(".parquet")]
        for name in storage.names(directory)
        if name.startswith(PREFIX) and name.endswith(".parquet")
    }


def write_shard(directory: str | Path, key: str, table: pa.Table) -> str:
    """Write one shard whole (`storage.write_parquet`), so that a crash never leaves a half-written part."""
    return storage.write_parquet(table, shard_path(directory, key))


def read_shards(directory: str | Path, keys: Iterable[str] | None = None) -> pa.Table:
    """Concatenate shards (all, or only the given keys, in that order)."""
    if keys is None:
        keys = sorted(finished_keys(directory))
    tables = [storage.read_parquet(shard_path(directory, key)) for key in keys]
    if not tables:
        raise FileNotFoundError(f"no shards in {directory}")
    return pa.concat_tables(tables, promote_options="default")
