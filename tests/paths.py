"""Where the suite finds the repository, the shipped sample corpus and the real corpora (SEMCSE_DATA)."""

from __future__ import annotations

from pathlib import Path

from semcse.resources import data_dir

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO / data_dir()).resolve()  # the data setting (SEMCSE_DATA), from the repository root
SAMPLE_CORPUS = REPO / "examples" / "sample_corpus.jsonl"
