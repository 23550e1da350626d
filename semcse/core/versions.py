"""Versioned artifact roots: a new version is written beside the old one and a pointer is swapped last.

A search index or a map that a running service reads must never be seen half-written. So a
*versioned root* (a directory or a storage URI) holds one complete directory per version
(`0001-build`, `0002-add-<key>`, …) and `current.json` naming the live one. `publish` writes the
new version in full first, then the pointer: one atomic write (a rename on a local disk, a single
PUT on object storage, which has no rename). A reader resolving the root sees the old version or
the new one, whole. Object storage may list a version a moment after its pointer is readable, so
`resolve` waits briefly for the version it is pointed at, and falls back to the one before it. The
version the pointer replaced is kept (a reader that resolved it a moment before the swap can still
open it); older ones are removed.

A version is named by a *tag* the caller chooses. With `once=True` publishing a tag that is
already current does nothing, so an incremental step that was killed after its swap but before it
recorded itself is skipped on the rerun instead of being applied twice. A plain artifact directory
(no pointer, e.g. written by `semcse index build --out DIR`) resolves to itself, so every reader
accepts both.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from semcse.core import storage

POINTER = "current.json"
_NAME = re.compile(r"^(\d{4,})-(.+)$")
LISTING_WAIT_S = 10.0


def _pointer(root: str | Path) -> dict[str, Any] | None:
    path = storage.join(root, POINTER)
    return storage.read_json(path) if storage.is_file(path) else None


def current(root: str | Path) -> str | None:
    """The live version's name, or None when `root` is not a versioned root (or has no version yet)."""
    pointer = _pointer(root)
    return str(pointer["version"]) if pointer else None


def resolve(root: str | Path, wait_s: float = LISTING_WAIT_S) -> str:
    """The location to read: the live version of a versioned root, else `root` itself.

    A version the pointer names but the store does not list yet is waited for up to `wait_s`; if it
    never appears, the version it replaced is read instead.
    """
    pointer = _pointer(root)
    if not pointer:
        return str(root)
    live = storage.join(root, pointer["version"])
    deadline = time.monotonic() + wait_s
    while not storage.is_dir(live):
        if time.monotonic() > deadline:
            previous = pointer.get("previous")
            if previous and storage.is_dir(storage.join(root, previous)):
                return storage.join(root, previous)
            raise FileNotFoundError(f"{root}: {POINTER} names version {pointer['version']}, which does not exist")
        time.sleep(0.2)
    return live


def _versions(root: str | Path) -> dict[str, int]:
    """{version name: sequence number} of the versions under `root`."""
    found = {}
    for name in storage.names(root):
        match = _NAME.match(name)
        if match:
            found[name] = int(match.group(1))
    return found


def _tag_of(name: str | None) -> str | None:
    match = _NAME.match(name or "")
    return match.group(2) if match else None


def published(root: str | Path, tag: str) -> str | None:
    """The live version's name when it carries `tag` (a publish of `tag` got as far as the swap), else None."""
    live = current(root)
    return live if _tag_of(live) == tag else None


def publish(root: str | Path, tag: str, write: Callable[[Path], Any], once: bool = False) -> tuple[str, bool]:
    """Write a new version with `write(local directory)` and make it current; returns (its name, whether it was new).

    With `once`, nothing is written when the current version already carries `tag` (`published`). Versions that
    never became current (an interrupted publish) are removed.
    """
    done = published(root, tag) if once else None
    if done is not None:
        return done, False
    live = current(root)
    versions = _versions(root)
    name = f"{max(versions.values(), default=0) + 1:04d}-{tag}"
    with storage.staged(storage.join(root, name)) as directory:
        write(directory)
    storage.write_json(storage.join(root, POINTER), {"version": name, "previous": live})
    _prune(root, keep={name, live})
    return name, True


def _prune(root: str | Path, keep: set[str | None]) -> None:
    """Remove versions other than the live one and the one it replaced."""
    for name in _versions(root):
        if name not in keep:
            storage.delete(storage.join(root, name))
