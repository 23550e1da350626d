"""Every artifact location may be a storage URI: the storage layer, contracts and versioned roots on real S3.

The endpoint is moto's standalone S3 server on loopback, reached the way a user reaches MinIO or
AWS: AWS_ENDPOINT_URL and the standard credential variables (`s3_env`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from semcse.core import storage, versions
from semcse.core.config import CorpusConfig
from semcse.core.data.generated import Manifest, read_texts, write_generated
from semcse.core.data.io import read_corpus, read_raw, write_parquet
from tests.paths import SAMPLE_CORPUS


@pytest.fixture
def bucket(s3_env, request) -> str:
    name = "t-" + request.node.name.replace("_", "-")[:40].strip("-").lower()
    return f"s3://{s3_env.bucket(name)}"


def test_files_round_trip_and_listings_read_like_a_disk(bucket: str) -> None:
    base = storage.join(bucket, "runs", "a")
    assert not storage.exists(base) and storage.names(base) == [] and storage.files(base) == []
    storage.write_json(storage.join(base, "state.json"), {"steps": [1]})
    storage.write_parquet(pa.table({"x": [1, 2]}), storage.join(base, "sub", "t.parquet"))
    assert storage.read_json(storage.join(base, "state.json")) == {"steps": [1]}
    assert storage.read_parquet(storage.join(base, "sub", "t.parquet")).column("x").to_pylist() == [1, 2]
    assert storage.is_dir(base) and storage.is_file(storage.join(base, "state.json"))
    assert storage.names(base) == ["state.json", "sub"]
    assert [e.path for e in storage.files(base)] == ["state.json", "sub/t.parquet"]
    storage.delete(storage.join(base, "sub"))
    assert [e.path for e in storage.files(base)] == ["state.json"]


@pytest.mark.parametrize("rewritten", [b'{"step": 12, "checkpoint": "checkpoint_000012"}', b'{"step": 3}'])
def test_an_object_rewritten_while_it_is_read_is_read_whole(bucket: str, rewritten: bytes, monkeypatch) -> None:
    """A pointer or snapshot another process rewrites between the reader's size request and its bytes comes back
    whole, the new version, never cut at the old length (CI, 2026-12-02: a checkpoint snapshot cut mid-string)."""
    location = storage.join(bucket, "snapshot.json")
    storage.write_bytes(location, b'{"step": 9, "checkpoint": "c9"}')
    opened, rewrites = storage.open_input, [rewritten]

    def open_then_rewritten(where: str):
        handle = opened(where)
        if rewrites:  # the first read only: the retry must see a quiet object
            storage.write_bytes(where, rewrites.pop())
        return handle

    monkeypatch.setattr(storage, "open_input", open_then_rewritten)
    assert storage.read_bytes(location) == rewritten


def test_staged_directories_replace_and_local_copies_follow_rewrites(bucket: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(storage.CACHE_ENV, str(tmp_path / "cache"))
    target = storage.join(bucket, "model")
    with storage.staged(target) as work:
        (work / "a.txt").write_text("one")
        (work / "old.txt").write_text("gone after the next write")
    first = storage.local_copy(target)
    assert (first / "a.txt").read_text() == "one" and storage.local_copy(target) == first, "fetched once"
    with storage.staged(target) as work:
        (work / "a.txt").write_text("two")
    second = storage.local_copy(target)
    assert second != first and (second / "a.txt").read_text() == "two" and not (second / "old.txt").exists()
    with pytest.raises(RuntimeError), storage.staged(target) as work:
        (work / "a.txt").write_text("three")
        raise RuntimeError("killed while writing")
    assert storage.read_text(storage.join(target, "a.txt")) == "two", "a failed write changes nothing"


@pytest.mark.parametrize("suffix", ["jsonl", "csv", "parquet"])
def test_a_corpus_reads_the_same_from_the_bucket(bucket: str, tmp_path: Path, suffix: str) -> None:
    local = read_corpus(SAMPLE_CORPUS)
    path = tmp_path / f"corpus.{suffix}"
    {
        "jsonl": lambda: local.to_json(path, orient="records", lines=True),
        "csv": lambda: local.to_csv(path, index=False),
    }.get(suffix, lambda: local.to_parquet(path, index=False))()
    uri = storage.upload(path, storage.join(bucket, "in", path.name))
    raw = read_raw(uri, CorpusConfig())
    assert raw.sources == [uri] and not raw.broken
    pd.testing.assert_frame_equal(
        read_corpus(uri)[["id", "title", "abstract"]], local[["id", "title", "abstract"]].astype(str)
    )
    out = write_parquet(local, storage.join(bucket, "out", "accepted.parquet"))
    assert len(read_corpus(out)) == len(local)


def test_generated_texts_and_their_manifest_live_in_the_bucket(bucket: str) -> None:
    out = storage.join(bucket, "texts")
    frame = pd.DataFrame(
        {"id": ["a", "a", "b"], "kind": "summary", "prompt_id": "p0", "sample": [0, 1, 0], "text": ["x", "y", "z"]}
    )
    write_generated(out, frame, {"task": "summaries", "model": "m"})
    Manifest.load(out).invalidate(["b"])
    assert sorted(read_texts(out)["id"]) == ["a", "a"], "the withdrawn unit is hidden"
    entries = storage.names(storage.join(out, "_manifest"))
    assert len(entries) == 3 and all(e.endswith(".json") for e in entries), "settings, shard, invalidate"
    manifest = Manifest.load(out)
    assert set(manifest.finished_units(next(iter(manifest.settings)))) == {"a"}


def test_versioned_roots_publish_without_rename_and_tolerate_a_pointer_ahead_of_the_listing(bucket: str) -> None:
    root = storage.join(bucket, "index")

    def writer(text: str):
        return lambda directory: (directory / "payload.txt").write_text(text)

    first, _ = versions.publish(root, "build", writer("one"))
    second, _ = versions.publish(root, "add-x", writer("two"))
    third, _ = versions.publish(root, "add-y", writer("three"))
    assert storage.read_text(storage.join(versions.resolve(root), "payload.txt")) == "three"
    assert storage.names(root) == sorted([second, third, versions.POINTER]), "the live one and the one it replaced"
    # a pointer naming a version the store does not list (yet): readers wait, then read the previous one
    storage.write_text(storage.join(root, versions.POINTER), json.dumps({"version": "0009-late", "previous": third}))
    assert versions.resolve(root, wait_s=0.5) == storage.join(root, third)


def test_unreachable_storage_is_one_clear_message(s3_env, monkeypatch, tmp_path) -> None:
    with pytest.raises(storage.StorageError, match="bucket 'no-such-bucket' does not exist at http://127.0.0.1"):
        storage.check_access("s3://no-such-bucket/runs/x")
    with pytest.raises(storage.StorageError, match="unknown storage scheme 'sftp'"):
        storage.check_access("sftp://host/runs/x")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    with pytest.raises(storage.StorageError, match="no AWS credentials found"):
        storage.check_access("s3://any-bucket/runs/x")
