"""`ray job submit` entry point for ablation studies (also runs as plain `python tune/run.py`).

    ray job submit --working-dir . -- python tune/run.py --study semcse-objective \
        --set training.texts=runs/demo/texts --set training.base_model=/models/all-MiniLM-L6-v2

The same options and output as `semcse tune`. Inside a job Ray is already reachable, so the study
joins that cluster; run directly it starts a local one. Rerunning an interrupted study restores it
and finishes only the missing trials. Exit status 2 means a study, configuration or data problem,
reported before any trial started.
"""

from __future__ import annotations

import sys

from semcse.cli import app

if __name__ == "__main__":
    sys.exit(app(["tune", *sys.argv[1:]]))
