"""The embedding → text decoder, as a job: the same options as `semcse train-decoder`.

    ray job submit --working-dir . -- python jobs/train_decoder.py --config invasion-biology-multi \\
        --aspect aspect:species

Inside a job RAY_ADDRESS is set, so the stage joins that cluster; run as plain
`python jobs/train_decoder.py` it starts a local one. Exit status 2: a configuration or data problem,
reported before any work started.
"""

from __future__ import annotations

import sys

from semcse.cli import entry_point

if __name__ == "__main__":
    entry_point(["train-decoder", *sys.argv[1:]])
