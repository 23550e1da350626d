"""Generated outputs (the DESIGN "texts" and "judgements" contracts): their manifest, readers and writers.

A generation directory (a local path or a storage URI) holds `part-<key>.parquet` shards and
`_manifest/`, an append-only log of numbered entries, one small JSON file each (object storage has
no append): one `settings` entry per distinct generation setup (model, engine, prompts, sampling…)
and one `shard` entry per finished shard, naming the settings it was made with and the units
(abstracts or pairs, each with a hash of its text) it covers. Work is keyed by unit, not by a shard's position,
so a rerun after `--limit 8` reuses those 8 abstracts and a reordered corpus regenerates nothing.

Readers see only the shards the manifest names, so stray files never leak in; they refuse a
directory holding outputs of different settings (two models, changed prompts) unless asked to
combine them, and they refuse duplicated rows (the same id, kind, prompt and sample twice).
An entry is written whole after its shard, so a crash between the two leaves a shard no entry
names, which is simply generated again. Directories written before the log became a directory
keep their `_manifest.jsonl`, read first.

A unit belongs to the latest shard that lists it under its settings (its *claim*), and readers take
each unit's rows from that shard only, so an abstract that was edited and generated again is read
in its new version, never in both. An `invalidate` line (a paper replaced in a living corpus)
withdraws the claims made before it: those units count as not done, and their old rows are hidden
until they are generated again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from semcse.core import storage
from semcse.core.data.shards import content_key, finished_keys, shard_path, write_shard

MANIFEST = "_manifest"
LEGACY_MANIFEST = "_manifest.jsonl"
READ_THREADS = 16  # entries are read in parallel: thousands of small objects one by one would take minutes
TEXT_COLUMNS = ("id", "kind", "text")
TEXT_IDENTITY = ("id", "kind", "prompt_id", "sample")
JUDGEMENT_COLUMNS = ("a", "b", "aspect", "score")
JUDGEMENT_IDENTITY = ("a", "b", "aspect")
PAIR_SEP = "\t"


class GeneratedDataError(ValueError):
    """Generated outputs that cannot be used as they are (missing, mixed settings, duplicated rows)."""


def settings_key(settings: dict[str, Any]) -> str:
    return content_key([], settings)


def unit_hash(unit: dict[str, Any]) -> str:
    """A short hash of a unit's content (its texts), so an edited abstract counts as new work."""
    return content_key([unit], length=12)


@dataclass
class Manifest:
    """What a generation directory holds: settings by key, and per settings the finished shards and units."""

    directory: str
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    shards: dict[str, dict[str, Any]] = field(default_factory=dict)
    claims: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)
    next_entry: int = 0

    @classmethod
    def load(cls, directory: str | Path) -> Manifest:
        manifest = cls(str(directory))
        present = finished_keys(directory)
        for entry in manifest._entries():
            if entry.get("type") == "settings":
                manifest.settings[entry["key"]] = entry["settings"]
            elif entry.get("type") == "shard" and entry["key"] in present:
                manifest._claim(entry)
            elif entry.get("type") == "invalidate":
                manifest._withdraw(entry["units"])
        return manifest

    def _entries(self) -> Iterator[dict[str, Any]]:
        """The log in order: the legacy file's lines, then the numbered entries (unreadable ones skipped)."""
        legacy = storage.join(self.directory, LEGACY_MANIFEST)
        texts = storage.read_text(legacy).splitlines() if storage.is_file(legacy) else []
        names = sorted(n for n in storage.names(self.path) if n.endswith(".json") and n.split("-")[0].isdigit())
        self.next_entry = max((int(n.split("-")[0]) + 1 for n in names), default=0)
        with ThreadPoolExecutor(READ_THREADS) as pool:
            texts += pool.map(storage.read_text, [storage.join(self.path, n) for n in names])
        for text in texts:
            try:
                yield json.loads(text)
            except json.JSONDecodeError:
                continue  # a torn line of a legacy log: its shard is not counted and is generated again

    def _claim(self, entry: dict[str, Any]) -> None:
        self.shards[entry["key"]] = entry
        claims = self.claims.setdefault(entry["settings"], {})
        for unit, content in entry["units"].items():
            claims[unit] = (entry["key"], content)

    def _withdraw(self, units: Iterable[str]) -> None:
        for claims in self.claims.values():
            for unit in units:
                claims.pop(unit, None)

    @property
    def path(self) -> str:
        return storage.join(self.directory, MANIFEST)

    def finished_units(self, key: str) -> dict[str, str]:
        """{unit: content hash} of every unit finished under the settings `key` (and not invalidated since)."""
        return {unit: content for unit, (_, content) in self.claims.get(key, {}).items()}

    def claimed(self, shard: str) -> set[str]:
        """The units whose rows are read from `shard`: those it lists that no later shard or invalidation took."""
        entry = self.shards[shard]
        claims = self.claims.get(entry["settings"], {})
        return {unit for unit in entry["units"] if claims.get(unit, ("",))[0] == shard}

    def invalidate(self, units: Iterable[str]) -> None:
        """Withdraw every claim on `units` (e.g. papers whose text was replaced): they are to be generated again."""
        units = sorted({str(u) for u in units})
        if units:
            self._append({"type": "invalidate", "units": units})
            self._withdraw(units)

    def add_shard(self, shard: str, table: pa.Table, settings: dict[str, Any], units: dict[str, str]) -> str:
        """The contract's one writer: write a shard atomically, then log it (and its settings) as finished."""
        path = write_shard(self.directory, shard, table)
        key = settings_key(settings)
        self.record_settings(key, settings)
        self.record_shard(shard, key, units)
        return path

    def record_settings(self, key: str, settings: dict[str, Any]) -> None:
        if key not in self.settings:
            self._append({"type": "settings", "key": key, "settings": settings})
            self.settings[key] = settings

    def record_shard(self, shard: str, key: str, units: dict[str, str]) -> None:
        entry = {"type": "shard", "key": shard, "settings": key, "units": units}
        self._append(entry)
        self.shards[shard] = entry

    def _append(self, entry: dict[str, Any]) -> None:
        """One numbered entry, written whole (a random suffix keeps two writers from overwriting each other)."""
        name = f"{self.next_entry:012d}-{entry['type']}-{uuid.uuid4().hex[:6]}.json"
        storage.write_text(storage.join(self.path, name), json.dumps(entry, sort_keys=True, default=str))
        self.next_entry += 1

    def used_settings(self) -> dict[str, dict[str, Any]]:
        """The settings that at least one finished (and still claimed) unit was made with."""
        return {key: self.settings.get(key, {}) for key, claims in self.claims.items() if claims}


def write_generated(
    directory: str | Path, frame: pd.DataFrame, settings: dict[str, Any], unit_column: str = "id"
) -> str:
    """Add outputs made elsewhere (another tool, a test) to a generation directory, manifest and all.

    The rows become one shard; each distinct `unit_column` value is a finished unit under `settings`.
    """
    key = content_key(frame.to_dict("records"), settings)
    units = {str(unit): content_key(group.to_dict("records"), length=12) for unit, group in frame.groupby(unit_column)}
    return Manifest.load(directory).add_shard(key, pa.Table.from_pandas(frame, preserve_index=False), settings, units)


def describe_settings(settings: dict[str, Any]) -> str:
    return ", ".join(f"{k}={settings[k]}" for k in ("task", "model", "engine", "temperature") if k in settings)


def _claimed_rows(manifest: Manifest, shard: str, unit_of: Callable[[pd.DataFrame], pd.Series]) -> pd.DataFrame:
    """A shard's rows of the units it still claims (all of them, unless a unit was regenerated or invalidated)."""
    frame = storage.read_parquet(shard_path(manifest.directory, shard)).to_pandas()
    claimed = manifest.claimed(shard)
    if len(claimed) == len(manifest.shards[shard]["units"]):
        return frame
    return frame[unit_of(frame).astype(str).isin(claimed).to_numpy()]


def read_generated(
    path: str | Path,
    columns: Iterable[str],
    identity: Iterable[str],
    combine: bool = False,
    unit_of: Callable[[pd.DataFrame], pd.Series] = lambda frame: frame["id"],
) -> pd.DataFrame:
    """Rows of a generation directory (each unit's rows from the shard that claims it) or of one Parquet file.

    `unit_of` names each row's unit (the paper id for texts, the pair for judgements). Raises
    `GeneratedDataError` when the path is missing, lacks the contract's columns, mixes the outputs of
    different settings (unless `combine`), or holds the same identity twice.
    """
    if not storage.exists(path):
        raise GeneratedDataError(f"generated outputs not found: {path}")
    if storage.is_dir(path):
        manifest = Manifest.load(path)
        if not manifest.used_settings():
            raise GeneratedDataError(
                f"{path}: no finished shards listed in its {MANIFEST}; write it with `semcse generate --out {path}`"
            )
        used = manifest.used_settings()
        if len(used) > 1 and not combine:
            listed = "; ".join(f"[{key}] {describe_settings(s)}" for key, s in used.items())
            raise GeneratedDataError(
                f"{path} holds outputs of {len(used)} different generation settings ({listed}); use one "
                "directory per setting, or combine them on purpose with --set generation.combine_settings=true"
            )
        live = [key for key in manifest.shards if manifest.claimed(key)]
        frame = pd.concat([_claimed_rows(manifest, key, unit_of) for key in live], ignore_index=True)
    else:
        frame = storage.read_parquet(path).to_pandas()
    check_rows(frame, path, columns, identity)
    return frame


def check_rows(frame: pd.DataFrame, where: str | Path, columns: Iterable[str], identity: Iterable[str]) -> None:
    """The contract's columns are there and no identity appears twice; else `GeneratedDataError`."""
    missing = sorted(set(columns) - set(frame.columns))
    if missing:
        raise GeneratedDataError(f"{where}: not generated outputs of this kind, missing column(s) {missing}")
    keys = [c for c in identity if c in frame.columns]
    duplicated = frame.duplicated(keys, keep=False)
    if duplicated.any():
        example = frame.loc[duplicated, keys].iloc[0].to_dict()
        raise GeneratedDataError(
            f"{where}: {int(duplicated.sum())} rows share their identity {tuple(keys)}, e.g. {example}; "
            "each generated sample must appear once"
        )


def write_texts(frame: pd.DataFrame, path: str | Path) -> str:
    """Texts derived from generated ones (e.g. aspects merged for training) as one Parquet file `read_texts` takes.

    Checked like a reader checks them, so a derived file can never be one its readers refuse.
    """
    check_rows(frame, path, TEXT_COLUMNS, TEXT_IDENTITY)
    return storage.write_parquet(pa.Table.from_pandas(frame, preserve_index=False), path)


def read_texts(path: str | Path, combine: bool = False) -> pd.DataFrame:
    """Generated texts (id, kind, prompt_id, sample, text, …) with string ids; see `read_generated`."""
    frame = read_generated(path, TEXT_COLUMNS, TEXT_IDENTITY, combine)
    return frame.assign(id=frame["id"].astype(str))


def summaries_by_id(texts: pd.DataFrame, kind: str) -> dict[str, list[str]]:
    """Applicable, non-empty texts of one kind grouped by abstract, in file order (decoder training and its suite)."""
    rows = texts[texts["kind"] == kind]
    if "applicable" in rows:
        rows = rows[rows["applicable"].fillna(True).astype(bool)]
    rows = rows[rows["text"].fillna("").str.strip() != ""]
    return {str(key): list(group["text"]) for key, group in rows.groupby("id", sort=True)}


def read_judgements(path: str | Path, combine: bool = False) -> pd.DataFrame:
    """Generated pairwise judgements (a, b, aspect, score) with string ids; see `read_generated`."""
    frame = read_generated(path, JUDGEMENT_COLUMNS, JUDGEMENT_IDENTITY, combine, _pair_unit)
    return frame.assign(a=frame["a"].astype(str), b=frame["b"].astype(str))


def _pair_unit(frame: pd.DataFrame) -> pd.Series:
    return frame["a"].astype(str) + PAIR_SEP + frame["b"].astype(str)
