"""Where every artifact lives: a local path or a storage URI (`s3://`, `gs://`, `abfs://`, `file://`).

A run may live on this machine's disk (the embedded default) or in object storage that every node
of a cluster reaches. Every stage reads and writes through this module, on `pyarrow.fs` (the
filesystem layer Ray Data and Ray Train use too), so a location is a string that means the same on
the driver and on any worker:

- small files (`read_text`, `write_text`, `write_parquet`) are written whole: atomically on a
  local disk (temporary file, then rename), as one PUT on object storage, which has no rename and
  no append;
- directories that libraries write (a model, a FAISS index, a map) are written locally and
  uploaded whole (`staged`), and read from a node-local copy (`local_copy`) keyed by the
  listing's names, sizes and times, so a worker fetches an artifact once per node and a rewritten
  artifact is fetched again.

Endpoints and credentials follow the ecosystem's conventions: the standard AWS variables and
configuration files (an instance profile on EC2), `AWS_ENDPOINT_URL` / `AWS_ENDPOINT_URL_S3` for
an S3-compatible store (boto3 and the AWS CLI read it; pyarrow does not, so it is passed as
`endpoint_override` here), `AWS_REGION` / `AWS_DEFAULT_REGION`; Google's and Azure's defaults for
`gs://` and `abfs://`. `check_access` turns a missing credential, an unreachable endpoint or a
missing bucket into one sentence before any work starts.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

REMOTE_SCHEMES = ("s3", "s3a", "gs", "gcs", "abfs", "abfss", "hdfs", "viewfs")
SCHEMES = (*REMOTE_SCHEMES, "file")
CACHE_ENV = "SEMCSE_CACHE_DIR"
ENDPOINT_ENVS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
REGION_ENVS = ("AWS_REGION", "AWS_DEFAULT_REGION")
CONNECT_TIMEOUT_S = 10.0


class StorageError(ValueError):
    """A location that cannot be used: missing, unreachable, or without credentials (the message says which)."""


def scheme(location: str | Path) -> str:
    """`s3`, `gs`, `file`, … for a URI; `""` for a plain local path."""
    text = str(location)
    if "://" not in text:
        return ""
    found = text.split("://", 1)[0].lower()
    return found if found in SCHEMES else ""


def is_uri(location: str | Path) -> bool:
    return bool(scheme(location))


def is_remote(location: str | Path) -> bool:
    """Object storage or a distributed filesystem (every node reaches it); `file://` and plain paths are local."""
    return scheme(location) in REMOTE_SCHEMES


def check_scheme(location: str | Path) -> None:
    """Refuse `x://…` with a scheme we do not read, instead of treating it as a relative local path."""
    text = str(location)
    if "://" in text and not is_uri(text):
        raise StorageError(f"{text}: unknown storage scheme {text.split('://', 1)[0]!r}; use one of {SCHEMES}")


def local_path(location: str | Path) -> Path:
    """The path on this machine's disk of a local location (a path or a `file://` URI)."""
    if is_remote(location):
        raise StorageError(f"{location} is not on the local disk")
    text = str(location)
    if scheme(text) == "file":
        text = urlparse(text).path
    return Path(text).expanduser()


def normalize(location: str | Path) -> str:
    """A location that means the same from any working directory: absolute local paths; URIs without a trailing /."""
    check_scheme(location)
    if is_uri(location):
        return str(location).rstrip("/")
    return str(Path(location).expanduser().resolve())


def join(base: str | Path, *parts: str) -> str:
    """`base/part/…` for paths and URIs alike."""
    if is_uri(base):
        return "/".join([str(base).rstrip("/"), *(p.strip("/") for p in parts)])
    return str(Path(base, *parts))


def basename(location: str | Path) -> str:
    return str(location).rstrip("/").rsplit("/", 1)[-1]


def parent(location: str | Path) -> str:
    if is_uri(location):
        return str(location).rstrip("/").rsplit("/", 1)[0]
    return str(Path(location).parent)


# ----- filesystems --------------------------------------------------------------------------------


def endpoint() -> str | None:
    """The S3-compatible endpoint from the environment (None: AWS itself)."""
    return next((os.environ[name] for name in ENDPOINT_ENVS if os.environ.get(name)), None)


def _region() -> str | None:
    return next((os.environ[name] for name in REGION_ENVS if os.environ.get(name)), None)


@functools.lru_cache(maxsize=64)
def _s3(bucket: str, endpoint_url: str | None, region: str | None) -> pafs.FileSystem:
    if endpoint_url:
        parsed = urlparse(endpoint_url if "://" in endpoint_url else f"https://{endpoint_url}")
        return pafs.S3FileSystem(
            endpoint_override=parsed.netloc,
            scheme=parsed.scheme or "https",
            region=region or "us-east-1",
            connect_timeout=CONNECT_TIMEOUT_S,
        )
    # AWS itself: the bucket's own region, else every request is redirected (or refused)
    return pafs.S3FileSystem(region=region or pafs.resolve_s3_region(bucket), connect_timeout=CONNECT_TIMEOUT_S)


@functools.lru_cache(maxsize=64)
def _other(uri_root: str) -> pafs.FileSystem:
    return pafs.FileSystem.from_uri(uri_root)[0]


def filesystem(location: str | Path) -> tuple[pafs.FileSystem, str]:
    """The `pyarrow.fs` filesystem behind a location, and the location's path on it.

    The same pair Ray Train takes as `RunConfig(storage_filesystem=…, storage_path=…)`.
    """
    check_scheme(location)
    kind = scheme(location)
    if not kind or kind == "file":
        return pafs.LocalFileSystem(), str(local_path(location).resolve())
    parsed = urlparse(str(location))
    if kind in ("s3", "s3a"):
        path = f"{parsed.netloc}{parsed.path}".rstrip("/")
        return _s3(parsed.netloc, endpoint(), _region()), path
    fs, path = pafs.FileSystem.from_uri(str(location))
    return _other(f"{kind}://{parsed.netloc}"), path.rstrip("/")


def _info(location: str | Path) -> pafs.FileInfo:
    fs, path = filesystem(location)
    try:
        return fs.get_file_info(path)
    except OSError as exc:
        raise StorageError(f"cannot read {location}: {exc}") from exc


def exists(location: str | Path) -> bool:
    return bool(_info(location).type != pafs.FileType.NotFound)


def is_file(location: str | Path) -> bool:
    return bool(_info(location).type == pafs.FileType.File)


def is_dir(location: str | Path) -> bool:
    return bool(_info(location).type == pafs.FileType.Directory)


@dataclass(frozen=True)
class Entry:
    """A file under a directory: its path relative to the directory, size and modification time."""

    path: str
    size: int
    mtime_ns: int


def files(location: str | Path, recursive: bool = True) -> list[Entry]:
    """The files under a directory (none when it does not exist), sorted by relative path."""
    fs, root = filesystem(location)
    try:
        infos = fs.get_file_info(pafs.FileSelector(root, recursive=recursive, allow_not_found=True))
    except (OSError, pa.ArrowInvalid) as exc:
        raise StorageError(f"cannot list {location}: {exc}") from exc
    found = [
        Entry(info.path[len(root) :].lstrip("/"), int(info.size or 0), int(info.mtime_ns or 0))
        for info in infos
        if info.type == pafs.FileType.File
    ]
    return sorted(found, key=lambda entry: entry.path)


def names(location: str | Path) -> list[str]:
    """Names of the files and directories directly under `location` (none when it does not exist)."""
    fs, root = filesystem(location)
    try:
        infos = fs.get_file_info(pafs.FileSelector(root, recursive=False, allow_not_found=True))
    except (OSError, pa.ArrowInvalid) as exc:
        raise StorageError(f"cannot list {location}: {exc}") from exc
    return sorted(info.base_name for info in infos)


# ----- reading and writing ----------------------------------------------------------------------


def open_input(location: str | Path) -> IO[bytes]:
    """A seekable binary file (Parquet and NumPy readers want random access); a missing file is
    FileNotFoundError, any other failure a StorageError naming the location."""
    fs, path = filesystem(location)
    try:
        return fs.open_input_file(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if _info(location).type == pafs.FileType.NotFound:
            raise FileNotFoundError(f"{location} does not exist") from exc
        raise StorageError(f"cannot read {location}: {exc}") from exc


class _RawReader(io.RawIOBase):
    """A pyarrow input file as a Python raw stream, so `io.BufferedReader` iterates its lines lazily."""

    def __init__(self, native: Any) -> None:
        self.native = native

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.native.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.native.close()
        super().close()


def open_lines(location: str | Path) -> io.BufferedReader:
    """A buffered binary stream that yields lines as it reads (JSONL and CSV readers), local or remote."""
    return io.BufferedReader(_RawReader(open_input(location)))


def read_bytes(location: str | Path, attempts: int = 5) -> bytes:
    """A whole file as one version of it: an object rewritten while it is read is read again.

    pyarrow asks an object store for the size first and then for that many bytes, so a rewrite in between
    hands back the new object cut at the old length; the size read again after the bytes tells the two apart.
    """
    for _ in range(attempts):
        with open_input(location) as handle:
            size = handle.seek(0, io.SEEK_END)  # what the store said when the file was opened
            handle.seek(0)
            try:
                data = bytes(handle.read())
            except OSError as exc:
                if not is_remote(location):
                    raise StorageError(f"cannot read {location}: {exc}") from exc
                continue  # fewer bytes than the size asked for: rewritten meanwhile
        if not is_remote(location) or len(data) == size == _info(location).size:
            return data
    raise StorageError(f"cannot read {location}: it was rewritten during each of {attempts} reads")


def read_text(location: str | Path) -> str:
    return read_bytes(location).decode("utf-8")


def read_json(location: str | Path) -> Any:
    return json.loads(read_text(location))


def write_bytes(location: str | Path, data: bytes) -> str:
    """Write a whole file: a temporary file renamed into place locally, one PUT on object storage.

    Either way a reader sees the old content or the new, never a part.
    """
    if not is_remote(location):
        target = local_path(location)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.parent / f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:6]}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, target)
        return str(location)
    fs, path = filesystem(location)
    try:
        with fs.open_output_stream(path) as handle:
            handle.write(data)
    except OSError as exc:
        raise StorageError(f"cannot write {location}: {exc}") from exc
    return str(location)


def write_text(location: str | Path, text: str) -> str:
    return write_bytes(location, text.encode("utf-8"))


def write_json(location: str | Path, data: Any) -> str:
    return write_text(location, json.dumps(data, indent=2, default=str) + "\n")


def read_parquet(location: str | Path, columns: list[str] | None = None) -> pa.Table:
    fs, path = filesystem(location)
    return pq.read_table(path, filesystem=fs, columns=columns)


def write_parquet(table: pa.Table, location: str | Path) -> str:
    """One Parquet file, written whole (see `write_bytes`)."""
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return write_bytes(location, buffer.getvalue())


def delete(location: str | Path) -> None:
    """Remove a file or a directory with everything under it; nothing when it does not exist."""
    fs, path = filesystem(location)
    kind = _info(location).type
    if kind == pafs.FileType.Directory:
        fs.delete_dir(path)
    elif kind == pafs.FileType.File:
        fs.delete_file(path)


def copy_dir(source: str | Path, destination: str | Path) -> None:
    """Copy every file under `source` to the same relative paths under `destination` (any filesystems)."""
    source_fs, source_path = filesystem(source)
    target_fs, target_path = filesystem(destination)
    if isinstance(target_fs, pafs.LocalFileSystem):
        for entry in files(source):
            Path(target_path, entry.path).parent.mkdir(parents=True, exist_ok=True)
        Path(target_path).mkdir(parents=True, exist_ok=True)
    try:
        pafs.copy_files(
            source_path, target_path, source_filesystem=source_fs, destination_filesystem=target_fs, use_threads=True
        )
    except OSError as exc:
        raise StorageError(f"cannot copy {source} to {destination}: {exc}") from exc


@contextmanager
def staged(location: str | Path) -> Iterator[Path]:
    """A local directory to write an artifact into; on success it replaces whatever was at `location`.

    Locally the directory is a sibling that is renamed into place; for object storage it is a
    temporary directory uploaded after the old objects are removed. On an exception nothing changes.
    """
    if not is_remote(location):
        target = local_path(location)
        target.parent.mkdir(parents=True, exist_ok=True)
        work = target.parent / f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:6]}.staging"
        work.mkdir()
        try:
            yield work
            if target.exists():
                shutil.rmtree(target) if target.is_dir() else target.unlink()
            os.replace(work, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    with tempfile.TemporaryDirectory(prefix="semcse-stage-") as tmp:
        yield Path(tmp)
        delete(location)
        copy_dir(tmp, location)


def upload(local: str | Path, location: str | Path) -> str:
    """Copy a local file or directory to `location` (replacing what was there)."""
    source = Path(local)
    if source.is_file():
        return write_bytes(location, source.read_bytes())
    with staged(location) as work:
        shutil.copytree(source, work, dirs_exist_ok=True)
    return str(location)


def cache_dir() -> Path:
    """This node's cache of fetched artifacts (`SEMCSE_CACHE_DIR`, default ~/.cache/semcse)."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "semcse").expanduser()


def local_copy(location: str | Path, skip_suffixes: tuple[str, ...] = ()) -> Path:
    """A path on this node's disk holding what is at `location` (a file or a directory).

    Local locations are returned as they are. Remote ones are downloaded once per node into the
    cache, under a key of the location and its listing (names, sizes, times), so the same artifact
    is fetched once and an artifact rewritten at the same location is fetched again. Concurrent
    fetches on one node each download into a private directory and rename it into place.
    `skip_suffixes` leaves out the files of a directory that end so (a tokenizer without the weights).
    """
    if not is_remote(location):
        return local_path(location)
    info = _info(location)
    if info.type == pafs.FileType.NotFound:
        raise FileNotFoundError(f"{location} does not exist")
    listing = (
        [Entry("", int(info.size or 0), int(info.mtime_ns or 0))]
        if info.type == pafs.FileType.File
        else [e for e in files(location) if not (skip_suffixes and e.path.endswith(skip_suffixes))]
    )
    digest = hashlib.blake2b(digest_size=10)
    digest.update(f"{location}\x1f{skip_suffixes}".encode())
    for entry in listing:
        digest.update(f"\x1e{entry.path}\x1f{entry.size}\x1f{entry.mtime_ns}".encode())
    target = cache_dir() / digest.hexdigest() / (basename(location) or "artifact")
    if target.exists():
        return target
    work = target.parent / f".fetch-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    work.mkdir(parents=True)
    try:
        if info.type == pafs.FileType.File:
            (work / target.name).write_bytes(read_bytes(location))
        elif skip_suffixes:
            for entry in listing:
                (work / target.name / entry.path).parent.mkdir(parents=True, exist_ok=True)
                (work / target.name / entry.path).write_bytes(read_bytes(join(location, entry.path)))
        else:
            copy_dir(location, work / target.name)
        try:
            os.replace(work / target.name, target)
        except OSError:
            if not target.exists():  # not a concurrent fetch that got there first
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


# ----- checks ---------------------------------------------------------------------------------------


def _aws_credentials() -> bool:
    """Whether the standard AWS chain finds credentials (environment, config files, web identity, instance role)."""
    try:
        import botocore.session
    except ImportError:  # no botocore: pyarrow's own chain is the only judge (its probe below)
        return True
    return botocore.session.get_session().get_credentials() is not None


def _bucket(location: str | Path) -> str:
    return urlparse(str(location)).netloc


def check_access(location: str | Path) -> None:
    """Fail before any work, with the fix in the message, when `location` cannot be reached.

    For object storage: credentials are found the standard way, the endpoint answers, and the
    bucket (or container) exists. Local locations need nothing.
    """
    check_scheme(location)
    if not is_remote(location):
        return
    kind = scheme(location)
    where = f" at {endpoint()}" if kind in ("s3", "s3a") and endpoint() else ""
    if kind in ("s3", "s3a") and not _aws_credentials():
        raise StorageError(
            f"{location}: no AWS credentials found. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), "
            "or run on nodes with an instance profile that may use the bucket (cluster.yaml: IamInstanceProfile); "
            "for an S3-compatible store also set AWS_ENDPOINT_URL"
        )
    bucket = _bucket(location)
    try:
        fs, _ = filesystem(location)
        found = fs.get_file_info(bucket).type
    except (OSError, pa.ArrowInvalid) as exc:
        hint = "check AWS_ENDPOINT_URL and the credentials" if kind in ("s3", "s3a") else "check the credentials"
        raise StorageError(f"cannot reach {kind}://{bucket}{where}: {exc}; {hint}") from None
    if found == pafs.FileType.NotFound:
        raise StorageError(
            f"bucket {bucket!r} does not exist{where}; create it first (e.g. aws s3 mb {kind}://{bucket})"
        )


def worker_env() -> dict[str, str]:
    """The storage settings a worker on another node needs to reach the same locations (no secrets).

    MLflow's S3 artifact client reads `MLFLOW_S3_ENDPOINT_URL`, not `AWS_ENDPOINT_URL`; it is set
    from it when only the latter is given.
    """
    env = {name: os.environ[name] for name in (*ENDPOINT_ENVS, *REGION_ENVS) if os.environ.get(name)}
    mlflow_endpoint = os.environ.get("MLFLOW_S3_ENDPOINT_URL") or endpoint()
    if mlflow_endpoint:
        env["MLFLOW_S3_ENDPOINT_URL"] = mlflow_endpoint
    return env
