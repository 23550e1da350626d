"""The `semcse` command's stderr without Ray's native noise: known lines dropped, everything else kept.

Each test runs a real process (the filter works on descriptor 2, which pytest's own capture owns here), and
one starts a real local Ray and creates the kind of actor that makes Ray's core worker write the line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from tests.paths import REPO

NOISE = (
    "[2026-11-29 09:48:15,195 E 25564 25564] core_worker.cc:2465: Actor with class name: 'MapWorker(MapBatches(E))' "
    "and ID: '7ef9ace2' has constructor arguments in the object store and max_restarts > 0. If the arguments in "
    "the object store go out of scope or are lost, the actor restart will fail. See "
    "https://github.com/ray-project/ray/issues/53727 for more details.\n"
)
REAL = "[2026-11-29 09:48:15,196 E 25564 25564] core_worker.cc:812: Failed to register actor.\n"


def run(script: str, args: list[str], stderr: int = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in {"SEMCSE_LOG_LEVEL", "RAY_ADDRESS"}}
    code = f"import sys\nfrom semcse import logs\nlogs.hide_native_noise({args!r})\n" + textwrap.dedent(script)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=stderr, timeout=120
    )


WRITES = f"""
import os, signal
os.write(2, {NOISE.encode()!r})
os.write(2, b"embed base:  29%|##9       | 1024/3500\\r")
os.write(2, {REAL.encode()!r})
sys.stderr.write("our line\\n")
os.kill(os.getpid(), signal.SIGKILL)  # what a crashing command wrote last still arrives
"""


def test_known_native_lines_are_dropped_and_everything_else_arrives() -> None:
    done = run(WRITES, ["train"])
    assert done.returncode == -9
    err = done.stderr.decode()
    assert "constructor arguments in the object store" not in err, err
    assert REAL in err and "1024/3500\r" in err and "our line\n" in err


def test_verbose_keeps_every_native_line() -> None:
    for args in (["-v", "train"], ["--verbose", "train"]):
        assert NOISE in run(WRITES, args).stderr.decode()
    # an option of the command itself is not the global --verbose
    assert NOISE not in run(WRITES, ["train", "-v"]).stderr.decode()


def test_python_output_still_goes_straight_to_the_terminal() -> None:
    """Rich, our lines and progress bars decide how to render from `isatty`: the filter must not change it."""
    main, replica = os.openpty()
    try:
        done = run("import os\nprint(sys.stderr.isatty(), os.isatty(2))", ["train"], stderr=replica)
    finally:
        os.close(replica)
        os.close(main)
    assert done.stdout.decode().split() == ["True", "False"]  # sys.stderr on the terminal, descriptor 2 on the pipe


def test_rays_own_actor_restart_line_is_dropped() -> None:
    """Ray's driver writes the line itself: here to its log file, and no longer to the command's stderr."""
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths live under it
    try:
        done = run(
            f"""
            import ray
            ray.init(num_cpus=1, include_dashboard=False, _temp_dir={temp!r}, log_to_driver=False)

            @ray.remote(max_restarts=1)
            class Holder:
                def __init__(self, value):
                    self.value = value

                def get(self):
                    return len(self.value)

            big = ray.put(b"x" * 200_000)  # passed by reference: the condition Ray warns about
            print(ray.get(Holder.remote(big).get.remote()))
            ray.shutdown()
            """,
            ["train"],
        )
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        assert done.stdout.split()[-1] == b"200000"
        driver_logs = "".join(p.read_text() for p in Path(temp).glob("session_*/logs/python-core-driver-*.log"))
        assert "has constructor arguments in the object store" in driver_logs  # Ray did write it
        assert b"has constructor arguments in the object store" not in done.stderr, done.stderr.decode()
    finally:
        shutil.rmtree(temp, ignore_errors=True)
