"""What a replica serves from a versioned root (`semcse.core.versions`), swapped for a newer version while it serves.

`semcse pipeline --add` publishes a grown index and map as new versions beside the old ones and
swaps their pointer last. A replica notices the new pointer on the next request after
`check_every_s` (or at once on `POST /reload`), loads the new version in a worker thread while
requests go on with the one it has, and then replaces its reference in one assignment: a request
that started before keeps the object it took, so no query in flight fails or sees half of an update.
A version that cannot be loaded is logged and the replica keeps serving the one it has.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from semcse.core import storage, versions

log = logging.getLogger("semcse.serve")


class Live:
    """One artifact of a versioned root (or of a plain directory, which never changes), kept current."""

    def __init__(self, root: str | Path, load: Callable[[str], Any], check_every_s: float = 1.0) -> None:
        self.root = str(root)
        self.load = load
        self.check_every_s = check_every_s
        self.version = versions.current(self.root)
        self.value = load(self._path(self.version))
        self._checked = time.monotonic()
        self._lock = asyncio.Lock()
        self._pending: asyncio.Task[None] | None = None

    def _path(self, version: str | None) -> str:
        return storage.join(self.root, version) if version else self.root

    async def get(self) -> Any:
        """The artifact to answer this request with; a newer version on disk starts loading in the background."""
        now = time.monotonic()
        if now - self._checked >= self.check_every_s and (self._pending is None or self._pending.done()):
            self._checked = now
            if versions.current(self.root) != self.version:
                self._pending = asyncio.create_task(self._background())
        return self.value

    async def _background(self) -> None:
        try:
            await self.reload()
        except Exception as exc:  # keep serving the version we have; the next check tries again
            log.warning("could not load the new version of %s: %s", self.root, exc)

    async def reload(self) -> str | None:
        """Load the current version if it is not the one served, then swap it in; returns the version served."""
        async with self._lock:
            version = versions.current(self.root)
            if version != self.version:
                value = await asyncio.to_thread(self.load, self._path(version))
                self.value, self.version = value, version
                log.info("now serving %s version %s", self.root, version)
        return self.version
