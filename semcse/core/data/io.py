"""Read corpora from Parquet, JSONL or CSV (a file or a directory of shards), and write Parquet.

Every location is a local path or a storage URI (`semcse.core.storage`): `s3://bucket/corpus.parquet`
reads like a file on disk.

Readers never raise on a bad *row*: a row with undecodable bytes is flagged (`__bad_utf8`) and its
text keeps the bytes visible as `\\xNN`, so the validator can quarantine it with its reason and the
rejects file shows exactly what was wrong; unparsable lines are returned as `broken` records.
They do raise `CorpusError` on a bad *file* (missing, empty, missing required column), with a
message that says what to do.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from semcse.core import storage
from semcse.core.data.schema import ABSTRACT, ID, TITLE

if TYPE_CHECKING:
    from semcse.core.config import CorpusConfig

SUFFIXES = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".json": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
}


class CorpusError(ValueError):
    """A corpus file that cannot be read as a whole (as opposed to a bad row, which is quarantined)."""


@dataclass
class RawCorpus:
    """Rows as read, before validation, plus lines that could not be parsed at all."""

    frame: pd.DataFrame
    broken: list[dict[str, Any]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.frame) + len(self.broken)


def _suffix(location: str) -> str:
    name = storage.basename(location)
    return name[name.rfind(".") :].lower() if "." in name else ""


def detect_format(location: str, declared: str = "auto") -> str:
    if declared != "auto":
        return declared
    fmt = SUFFIXES.get(_suffix(location))
    if fmt is None:
        raise CorpusError(f"cannot tell the format of {location} from its suffix; pass --format parquet|jsonl|csv")
    return fmt


def list_files(path: str | Path, declared: str = "auto") -> list[tuple[str, str]]:
    """The files behind a location: the file itself, or every recognised file of a directory, sorted."""
    location = str(path)
    try:
        if storage.is_file(location):
            return [(location, detect_format(location, declared))]
        if not storage.is_dir(location):
            raise CorpusError(f"corpus not found: {location}")
        entries = storage.files(location)
    except storage.StorageError as exc:
        raise CorpusError(str(exc)) from exc
    found = [
        storage.join(location, e.path)
        for e in entries
        if _suffix(e.path) in SUFFIXES and not any(part.startswith(".") for part in e.path.split("/"))
    ]
    if declared != "auto":
        found = [f for f in found if SUFFIXES[_suffix(f)] == declared]
    if not found:
        raise CorpusError(f"no .parquet, .jsonl or .csv files in directory {location}")
    return [(f, detect_format(f, declared)) for f in found]


BAD_UTF8 = "__bad_utf8"


def decode(data: bytes) -> tuple[str, bool]:
    """Strict UTF-8, else the text with undecodable bytes shown as \\xNN and a flag."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", "backslashreplace"), True


def _visible_bytes(value: Any) -> Any:
    """Undo surrogate escapes in a parsed value, showing the undecodable bytes as \\xNN."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return value


def _decode_binary_columns(table: pa.Table) -> pd.DataFrame:
    frame = table.to_pandas()
    bad = pd.Series(False, index=frame.index)
    for name in frame.columns:
        kind = table.schema.field(name).type
        if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            decoded = [decode(b) if isinstance(b, bytes) else (b, False) for b in frame[name]]
            frame[name] = [text for text, _ in decoded]
            bad |= pd.Series([flag for _, flag in decoded], index=frame.index)
    frame[BAD_UTF8] = bad
    return frame


def _read_parquet(path: str) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    try:
        with storage.open_input(path) as handle:
            table = pq.read_table(handle)
    except (pa.ArrowInvalid, OSError) as exc:
        raise CorpusError(f"{path} is not a readable Parquet file: {exc}") from exc
    return _decode_binary_columns(table), []


def _read_jsonl(path: str) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    records: list[dict[str, Any]] = []
    broken: list[dict[str, Any]] = []
    with storage.open_lines(path) as handle:
        for number, raw in enumerate(handle, start=1):
            line, bad_utf8 = decode(raw)
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(raw.decode("utf-8", "surrogateescape"))
                if bad_utf8 and isinstance(record, dict):
                    record = {k: _visible_bytes(v) for k, v in record.items()}
            except json.JSONDecodeError as exc:
                broken.append(
                    {"line": number, "raw": line, "reason": "malformed line", "detail": f"invalid JSON: {exc.msg}"}
                )
                continue
            if not isinstance(record, dict):
                broken.append({"line": number, "raw": line, "reason": "malformed line", "detail": "not a JSON object"})
                continue
            record["__line"] = number
            record[BAD_UTF8] = bad_utf8
            records.append(record)
    return pd.DataFrame.from_records(records), broken


def _read_csv(path: str) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    records: list[dict[str, Any]] = []
    broken: list[dict[str, Any]] = []
    with io.TextIOWrapper(storage.open_lines(path), encoding="utf-8", errors="surrogateescape", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            return pd.DataFrame(), []
        header = [h.strip().lstrip("\ufeff") for h in header]
        for row in reader:
            number = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                broken.append(
                    {
                        "line": number,
                        "raw": ",".join(row),
                        "reason": "malformed line",
                        "detail": f"{len(row)} fields where the header has {len(header)}",
                    }
                )
                continue
            record: dict[str, Any] = {}
            bad_utf8 = False
            for name, cell in zip(header, row):
                record[name], flagged = decode(cell.encode("utf-8", "surrogateescape"))
                bad_utf8 |= flagged
            record["__line"] = number
            record[BAD_UTF8] = bad_utf8
            records.append(record)
    frame = pd.DataFrame.from_records(records, columns=[*header, "__line", BAD_UTF8] if not records else None)
    return frame, broken


READERS = {"parquet": _read_parquet, "jsonl": _read_jsonl, "csv": _read_csv}


def read_raw(path: str | Path, cfg: CorpusConfig) -> RawCorpus:
    """Read every file behind `path` and map user column names onto `id`, `title`, `abstract`."""
    frames: list[pd.DataFrame] = []
    broken: list[dict[str, Any]] = []
    sources: list[str] = []
    for file, fmt in list_files(path, cfg.format):
        frame, bad = READERS[fmt](file)
        frame["__source"] = str(file)
        if "__line" not in frame.columns:
            frame["__line"] = range(1, len(frame) + 1)
        if BAD_UTF8 not in frame.columns:
            frame[BAD_UTF8] = False
        frames.append(frame)
        broken.extend({**b, "source": str(file)} for b in bad)
        sources.append(str(file))
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(frame) == 0 and not broken:
        raise CorpusError(f"{path} is empty: no rows to read")
    if len(frame):
        frame = _map_columns(frame, cfg, path)
    return RawCorpus(frame=frame, broken=broken, sources=sources)


def _map_columns(frame: pd.DataFrame, cfg: CorpusConfig, path: str | Path) -> pd.DataFrame:
    mapping = {cfg.id_col: ID, cfg.title_col: TITLE, cfg.abstract_col: ABSTRACT}
    present = [c for c in frame.columns if not str(c).startswith("__")]
    for user_col, canonical in mapping.items():
        if user_col not in frame.columns and canonical != TITLE:
            flag = {ID: "--id-col", ABSTRACT: "--abstract-col"}[canonical]
            raise CorpusError(
                f"{path}: required column {user_col!r} not found (columns are {present}); "
                f"name the {canonical} column with {flag}"
            )
    clashes = [c for u, c in mapping.items() if u != c and c in frame.columns]
    frame = frame.drop(columns=clashes).rename(columns={u: c for u, c in mapping.items() if u in frame.columns})
    if TITLE not in frame.columns:
        frame[TITLE] = ""
    for column in (ID, TITLE, ABSTRACT):
        frame[column] = frame[column].map(_as_text)
    return frame


def _as_text(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bytes):
        return decode(value)[0]
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def read_corpus(path: str | Path, cfg: CorpusConfig | None = None) -> pd.DataFrame:
    """Read an already-validated corpus (e.g. `accepted.parquet`) as a DataFrame with canonical columns."""
    from semcse.core.config import CorpusConfig

    raw = read_raw(path, cfg or CorpusConfig())
    return raw.frame.drop(columns=[c for c in raw.frame.columns if str(c).startswith("__")])


def write_parquet(frame: pd.DataFrame, path: str | Path) -> str:
    """Write a DataFrame as one Parquet file, whole (a reader never sees part of it), at a path or URI."""
    return storage.write_parquet(pa.Table.from_pandas(frame, preserve_index=False), path)
