"""Keep native log lines that nobody can act on out of a command's stderr, and everything else in it.

Ray's core worker writes a few ERROR lines straight to file descriptor 2 from C++, where no Python logging
setting reaches. One comes with every Ray Data actor pool, so with every `semcse evaluate`, index and map:
"Actor with class name: 'MapWorker(…)' … has constructor arguments in the object store and max_restarts > 0"
(ray-project/ray#53727). Ray Data passes those arguments by reference on purpose, and its actors restart by
default, so the line says nothing about the run. The one switch Ray has, `RAY_BACKEND_LOG_LEVEL`, would hide
real errors as well. Forwarded from workers, `logs.QUIET_ENV` already drops it; written by the driver's own
core worker, only a filter on the descriptor can.

`install()` points descriptor 2 at a pipe read by a small filter process, which copies every byte to where
stderr went before, except whole lines matching `logs.NATIVE_NOISE`. Python's own `sys.stderr` (our lines,
Rich, progress bars) is reopened on the original descriptor, so it still writes straight to the terminal and
renders as before; only native writes take the detour. The filter is a process, not a thread, so that what a
crashing command writes last (a native backtrace) still reaches the terminal after the command is gone. It
ignores Ctrl-C and ends when every writer has closed the pipe.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys

# A native log line as Ray's C++ writes it: `[2026-11-29 09:48:15,195 E 25564 25564] core_worker.cc:2465: …`
_PREFIX = rb"\[\d{4}-\d\d-\d\d [\d:,.]+ [A-Z] \d+ \d+\] [\w./-]+:\d+: "


def install(patterns: list[str]) -> None:
    """Route this process's native stderr (descriptor 2) through the filter.

    For the `semcse` command and the job scripts only, once, at the start: anything that replaced
    descriptor 2 or `sys.stderr` itself (a test's capture) is left alone.
    """
    if os.name != "posix" or not patterns:
        return
    try:
        if sys.stderr.fileno() != 2:
            return
    except (AttributeError, OSError, ValueError):  # no stderr, or a stream without a descriptor
        return
    sys.stderr.flush()
    original = os.dup(2)
    read, write = os.pipe()
    subprocess.Popen(
        [sys.executable, "-I", "-S", os.path.abspath(__file__), *patterns],
        stdin=read,
        stdout=original,
        stderr=original,
        start_new_session=True,  # the terminal's Ctrl-C goes to the command, not to its stderr
    )
    os.close(read)
    os.dup2(write, 2)
    os.close(write)
    sys.stderr = io.TextIOWrapper(
        io.FileIO(original, "w"),
        encoding=sys.stderr.encoding,
        errors=sys.stderr.errors,
        line_buffering=True,
        write_through=True,
    )


def _forward(patterns: list[str]) -> None:
    """Copy stdin to stdout until every writer is gone, dropping the whole lines that match a pattern.

    A line written by one native call arrives in one read (a pipe write of up to 4 KiB is never split), so
    each read is filtered on its own; partial lines, such as a progress bar's redraws, pass at once.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    noise = re.compile(_PREFIX + rb"(?:" + b"|".join(p.encode() for p in patterns) + rb")[^\n]*\n?")
    while chunk := os.read(0, 1 << 16):
        kept = memoryview(noise.sub(b"", chunk))
        while kept:
            kept = kept[os.write(1, kept) :]


if __name__ == "__main__":
    _forward(sys.argv[1:])
