"""The embeddings contract (DESIGN "embeddings"): `id`, `aspect` ("" for single-vector models), `vector`.

The one place that writes and reads it. Evaluation streams vectors into content-keyed shards
(`write_embeddings`, one `part-<key>.parquet` per shard, written atomically); `semcse map layout
--embeddings` reads a file or a directory of them back (`read_embeddings`). Both directions check the
schema, so a table another tool wrote is refused with a message that names its problem (a missing
column, vectors of different lengths, a missing or duplicated id, a NaN) instead of turning into
wrong neighbours later. Every problem raises `EmbeddingError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from semcse.core import storage
from semcse.core.data.schema import embeddings_schema
from semcse.core.data.shards import read_shards, write_shard

COLUMNS = ("id", "aspect", "vector")


class EmbeddingError(ValueError):
    """Stored or produced embeddings that do not fit the texts they should describe."""


def embeddings_table(
    ids: Sequence[str] | np.ndarray, aspects: Sequence[str] | np.ndarray, vectors: np.ndarray
) -> pa.Table:
    """Rows of the contract from parallel arrays (NaN vectors are stored as they came; readers refuse them)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2:
        raise EmbeddingError(f"vectors must be a [rows, dim] matrix, got shape {vectors.shape}")
    if not len(ids) == len(aspects) == len(vectors):
        raise EmbeddingError(f"{len(ids)} ids, {len(aspects)} aspects and {len(vectors)} vectors do not line up")
    flat = pa.array(vectors.reshape(-1), type=pa.float32())
    return pa.Table.from_arrays(
        [
            pa.array(np.asarray(ids).astype(str)),
            pa.array(np.asarray(aspects).astype(str)),
            pa.FixedSizeListArray.from_arrays(flat, vectors.shape[1]),
        ],
        schema=embeddings_schema(vectors.shape[1]),
    )


def write_embeddings(directory: str | Path, key: str, table: pa.Table) -> str:
    """Write one shard of the contract atomically as `part-<key>.parquet` under `directory`."""
    vector = table.schema.field("vector").type if "vector" in table.schema.names else None
    if vector is None or not pa.types.is_fixed_size_list(vector):
        raise EmbeddingError(f"not an embeddings table (id, aspect, fixed-size vector): {table.schema}")
    if table.schema != embeddings_schema(vector.list_size):
        raise EmbeddingError(f"not an embeddings table (id, aspect, fixed-size vector): {table.schema}")
    return write_shard(directory, key, table)


def read_embeddings(
    path: str | Path,
    ids: Sequence[str],
    aspects: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
) -> dict[str, np.ndarray]:
    """{aspect: [n, d]} of `ids`, rows in their order, from one Parquet file or a directory of shards.

    `aspects` defaults to every aspect stored; `keys` restricts a directory to those shards.
    """
    table = _read_table(str(path), keys)
    names = aspects if aspects is not None else sorted(set(table["aspect"].to_pylist()))
    out = {}
    for aspect in names:
        part = table.filter(pc.equal(table["aspect"], aspect))
        stored = part["id"].to_pylist()
        if len(set(stored)) != len(stored):
            raise EmbeddingError(f"{path}: duplicate ids in stored embeddings for aspect {aspect!r}")
        position = {key: i for i, key in enumerate(stored)}
        missing = [key for key in ids if key not in position]
        if missing:
            raise EmbeddingError(
                f"{path}: mismatched ids: {len(missing)} of {len(ids)} ids have no stored vector for "
                f"aspect {aspect!r}, e.g. {missing[:3]}"
            )
        vectors = _matrix(part["vector"], f"{path} (aspect {aspect!r})")[[position[key] for key in ids]]
        check_finite(vectors, f"{path} (aspect {aspect!r})")
        out[str(aspect)] = vectors
    return out


def _read_table(path: str, keys: Sequence[str] | None) -> pa.Table:
    if not storage.exists(path):
        raise EmbeddingError(f"embeddings not found: {path}")
    try:
        table = read_shards(path, keys) if storage.is_dir(path) else storage.read_parquet(path)
    except FileNotFoundError as exc:
        raise EmbeddingError(f"{path}: {exc}") from exc
    except (pa.ArrowInvalid, OSError) as exc:
        raise EmbeddingError(f"{path} is not a readable Parquet file: {exc}") from exc
    missing = [c for c in COLUMNS if c not in table.schema.names]
    if missing:
        raise EmbeddingError(f"{path}: not an embeddings table, missing column(s) {missing} (id, aspect, vector)")
    return table


def _matrix(column: pa.ChunkedArray, where: str) -> np.ndarray:
    """A list column as a float32 [rows, dim] matrix; every row must hold a vector of the same length."""
    array = column.combine_chunks()
    if len(array) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    kind = array.type
    if not (pa.types.is_fixed_size_list(kind) or pa.types.is_list(kind) or pa.types.is_large_list(kind)):
        raise EmbeddingError(f"{where}: column vector holds {kind}, not lists of floats")
    if array.null_count:
        raise EmbeddingError(f"{where}: {array.null_count} row(s) have no vector")
    if pa.types.is_fixed_size_list(kind):
        dim = kind.list_size
    else:
        lengths = pc.list_value_length(array).to_numpy(zero_copy_only=False)
        if (lengths != lengths[0]).any():
            raise EmbeddingError(f"{where}: vectors of different lengths ({sorted(set(lengths.tolist()))[:5]})")
        dim = int(lengths[0])
    values = array.flatten().to_numpy(zero_copy_only=False)
    return np.asarray(values, dtype=np.float32).reshape(len(array), dim)


def check_finite(vectors: np.ndarray, where: str) -> None:
    """Refuse NaN/inf vectors: one of them silently corrupts every rank and neighbour it touches."""
    bad = ~np.isfinite(vectors).all(1)
    if bad.any():
        raise EmbeddingError(
            f"{where}: {int(bad.sum())} vector(s) contain NaN or infinite values (row {np.argmax(bad)})"
        )
