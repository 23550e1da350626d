"""The end-to-end pipeline as a job: `ray job submit --working-dir . -- python jobs/pipeline.py --config ...`.

Also runs as plain `python jobs/pipeline.py` (a local cluster). Same options as `semcse pipeline`.
"""

from __future__ import annotations

import sys

from semcse.cli import app

if __name__ == "__main__":
    sys.exit(app(["pipeline", *sys.argv[1:]]))
