"""Where the suite finds the repository, the shipped sample corpus and the real data beside the checkout."""

from __future__ import annotations

from pathlib import Path

from semcse.resources import data_dir

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO / data_dir()).resolve()  # SEMCSE_DATA, else ../shared/data beside the checkout
SAMPLE_CORPUS = REPO / "examples" / "sample_corpus.jsonl"
