"""Distil aspect encoders into the unified SemCSE-Multi model, as a job: the same options as `semcse distill`.

    ray job submit --working-dir . -- python jobs/distill.py --config invasion-biology-multi

Inside a job RAY_ADDRESS is set, so the stage joins that cluster; run as plain
`python jobs/distill.py` it starts a local one. Exit status 2: a configuration or data problem,
reported before any work started.
"""

from __future__ import annotations

import sys

from semcse.cli import entry_point

if __name__ == "__main__":
    entry_point(["distill", *sys.argv[1:]])
