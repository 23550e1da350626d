"""The end-to-end pipeline as a job: `ray job submit --working-dir . -- python jobs/pipeline.py --config ...`.

Also runs as plain `python jobs/pipeline.py` (a local cluster). Same options as `semcse pipeline`,
including `--add NEW [--replace] [--retrain]` to grow a built run (`... -- python jobs/pipeline.py
--config C --add new_abstracts.parquet`; the file travels with the working directory).
"""

from __future__ import annotations

import sys

from semcse.cli import entry_point

if __name__ == "__main__":
    entry_point(["pipeline", *sys.argv[1:]])
