"""Encoder training (Ray Train + DeepSpeed), as a job: the same options as `semcse train`.

    ray job submit --working-dir . -- python jobs/train.py --config demo \\
        --set training.pairs=crops --set training.base_model=/models/all-MiniLM-L6-v2

Inside a job RAY_ADDRESS is set, so the stage joins that cluster; run as plain
`python jobs/train.py` it starts a local one. Exit status 2: a configuration or data problem,
reported before any work started.
"""

from __future__ import annotations

import sys

from semcse.cli import entry_point

if __name__ == "__main__":
    entry_point(["train", *sys.argv[1:]])
