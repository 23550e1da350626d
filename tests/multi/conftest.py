"""A synthetic corpus whose aspect summaries carry two independent attributes: species and method.

Every abstract mentions one species group and one method (balanced and independent of each other);
its `aspect:species` summaries describe only the species, its `aspect:method` summaries only the
method, and some abstracts have "Not applicable." for an aspect. A model that isolates aspects puts
same-species abstracts together under its species head and same-method ones under its method head.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SPECIES = ("freshwater fish", "songbirds", "grassland plants", "soil beetles")
METHODS = ("field survey", "laboratory experiment", "computer simulation", "genetic sequencing")
FILLERS = (
    "Results were consistent across sites.",
    "The data cover several years.",
    "Effects were strongest in spring.",
    "Sample sizes were modest.",
    "Findings inform local management.",
)
SPECIES_TEMPLATES = ("The organisms studied are {}.", "This work concerns {}.", "The focal group is {}.")
METHOD_TEMPLATES = ("The approach is a {}.", "Evidence comes from a {}.", "The study design is a {}.")
N_ABSTRACTS = 64


def attributes(n: int = N_ABSTRACTS) -> pd.DataFrame:
    """id, species, method: every (species, method) combination equally often."""
    return pd.DataFrame(
        {
            "id": [f"p{i:03d}" for i in range(n)],
            "species": [SPECIES[i % 4] for i in range(n)],
            "method": [METHODS[(i // 4) % 4] for i in range(n)],
        }
    )


def corpus_frame(attrs: pd.DataFrame) -> pd.DataFrame:
    abstracts = [
        f"We examined {s} with a {m}. {FILLERS[i % len(FILLERS)]} {FILLERS[(i + 2) % len(FILLERS)]}"
        for i, (s, m) in enumerate(zip(attrs["species"], attrs["method"]))
    ]
    return pd.DataFrame(
        {"id": attrs["id"], "title": [f"Report {i}" for i in range(len(attrs))], "abstract": abstracts}
    )


def texts_frame(attrs: pd.DataFrame) -> pd.DataFrame:
    """The DESIGN texts contract; every 9th abstract's method and every 11th's species are not applicable."""
    rows = []
    for i, (pid, species, method) in enumerate(zip(attrs["id"], attrs["species"], attrs["method"])):
        for aspect, value, templates, absent in (
            ("species", species, SPECIES_TEMPLATES, i % 11 == 5),
            ("method", method, METHOD_TEMPLATES, i % 9 == 4),
        ):
            for sample, template in enumerate(templates):
                rows.append(
                    {
                        "id": pid,
                        "kind": f"aspect:{aspect}",
                        "prompt_id": aspect,
                        "sample": sample,
                        "text": "Not applicable." if absent else template.format(value),
                        "applicable": not absent,
                        "model": "synthetic",
                        "engine": "test",
                    }
                )
    return pd.DataFrame(rows)


def same_attribute_precision(vectors: np.ndarray, labels: np.ndarray, k: int = 5) -> float:
    """Mean share of each item's k nearest others (cosine) that share its label."""
    from semcse.index import nearest

    neighbours = nearest(vectors, vectors, k + 1, metric="cosine")[:, 1:]
    return float((labels[neighbours] == labels[:, None]).mean())


@pytest.fixture(scope="session")
def multi_data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """corpus.parquet, texts/ (generated texts), judgements.parquet (5 same attribute, 1 otherwise), a tiny encoder."""
    from semcse.models.tiny import build_tiny_encoder

    root = tmp_path_factory.mktemp("multi-data")
    attrs = attributes()
    corpus = corpus_frame(attrs)
    corpus.to_parquet(root / "corpus.parquet", index=False)
    from semcse.data.generated import write_generated

    texts = texts_frame(attrs)
    write_generated(root / "texts", texts, {"task": "aspects", "model": "synthetic"})
    attrs.to_parquet(root / "attributes.parquet", index=False)
    ids = attrs["id"].tolist()
    judgements = [
        {"a": ids[a], "b": ids[b], "aspect": aspect, "score": 5 if attrs[aspect][a] == attrs[aspect][b] else 1}
        for aspect in ("species", "method")
        for a in range(len(ids))
        for b in range(a + 1, len(ids))
    ]
    pd.DataFrame(judgements).to_parquet(root / "judgements.parquet", index=False)
    encoder = build_tiny_encoder(root / "tiny", [*corpus["abstract"], *texts["text"]], vocab_size=400)
    return {
        "root": root,
        "corpus": root / "corpus.parquet",
        "texts": root / "texts",
        "judgements": root / "judgements.parquet",
        "attributes": root / "attributes.parquet",
        "encoder": encoder,
    }
