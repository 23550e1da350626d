"""Where the suite finds the repository, the shipped sample corpus and the real data beside the checkout."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
SAMPLE_CORPUS = REPO / "examples" / "sample_corpus.jsonl"
