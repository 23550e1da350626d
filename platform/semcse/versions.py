"""Versioned artifact directories: a new version is written beside the old one and a pointer is swapped last.

A search index or a map that a running service reads must never be seen half-written. So a
*versioned root* holds one complete directory per version (`0001-build`, `0002-add-<key>`, …) and
`current.json` naming the live one. `publish` writes the new version under a temporary name,
renames it into place, then replaces the pointer atomically (`os.replace`): a reader resolving the
root sees either the old version or the new one, whole. The version the pointer replaced is kept
(a reader that resolved it a moment before the swap can still open it); older ones are removed.

A version is named by a *tag* the caller chooses. With `once=True` publishing a tag that is
already current does nothing, so an incremental step that was killed after its swap but before it
recorded itself is skipped on the rerun instead of being applied twice. A plain artifact directory
(no pointer, e.g. written by `semcse index build --out DIR`) resolves to itself, so every reader
accepts both.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

POINTER = "current.json"
_NAME = re.compile(r"^(\d{4,})-(.+)$")


def current(root: str | Path) -> str | None:
    """The live version's name, or None when `root` is not a versioned root (or has no version yet)."""
    pointer = Path(root) / POINTER
    if not pointer.is_file():
        return None
    return str(json.loads(pointer.read_text())["version"])


def resolve(root: str | Path) -> Path:
    """The directory to read: the live version of a versioned root, else `root` itself."""
    name = current(root)
    return Path(root) / name if name else Path(root)


def _versions(root: Path) -> dict[str, int]:
    """{version name: sequence number} of the complete versions under `root`."""
    if not root.is_dir():
        return {}
    found = {}
    for path in root.iterdir():
        match = _NAME.match(path.name)
        if match and path.is_dir():
            found[path.name] = int(match.group(1))
    return found


def _tag_of(name: str | None) -> str | None:
    match = _NAME.match(name or "")
    return match.group(2) if match else None


def publish(root: str | Path, tag: str, write: Callable[[Path], Any], once: bool = False) -> tuple[str, bool]:
    """Write a new version with `write(directory)` and make it current; returns (its name, whether it was new).

    With `once`, nothing is written when the current version already carries `tag` (an earlier run
    got as far as the swap). Leftovers of an interrupted publish (a staging directory, a version
    that never became current) are removed.
    """
    root = Path(root)
    live = current(root)
    if once and _tag_of(live) == tag:
        return str(live), False
    root.mkdir(parents=True, exist_ok=True)
    versions = _versions(root)
    name = f"{max(versions.values(), default=0) + 1:04d}-{tag}"
    staging = root / f".staging-{tag}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    write(staging)
    os.replace(staging, root / name)
    tmp = root / f".{POINTER}.{os.getpid()}"
    tmp.write_text(json.dumps({"version": name, "previous": live}))
    os.replace(tmp, root / POINTER)
    _prune(root, keep={name, live})
    return name, True


def _prune(root: Path, keep: set[str | None]) -> None:
    """Remove versions other than the live one and the one it replaced, and stale staging directories."""
    versions = _versions(root)
    for path in root.iterdir():
        stale_version = path.name in versions and path.name not in keep
        if stale_version or (path.name.startswith(".staging-") and path.is_dir()):
            shutil.rmtree(path, ignore_errors=True)
