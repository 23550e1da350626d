"""Synthetic corpora with known neighbourhoods: well-separated clusters in two aspect spaces."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from tests.decoder.conftest import one_thread


@pytest.fixture(autouse=True)
def _single_threaded_torch() -> Iterator[None]:
    with one_thread():
        yield


@pytest.fixture(scope="session")
def clustered() -> dict:
    """81 points; aspect `topic` has 3 clusters of 27, aspect `method` an unrelated 3-cluster labelling."""
    rng = np.random.default_rng(0)
    n = 81
    topic = np.repeat(np.arange(3), 27)
    method = np.tile(np.arange(3), 27)
    centres_t, centres_m = rng.normal(size=(3, 24)), rng.normal(size=(3, 12))
    return {
        "ids": [f"p{i:03d}" for i in range(n)],
        "topic": topic,
        "method": method,
        "embeddings": {
            "topic": (centres_t[topic] + 0.3 * rng.normal(size=(n, 24))).astype(np.float32),
            "method": (centres_m[method] + 0.3 * rng.normal(size=(n, 12))).astype(np.float32),
        },
    }


@pytest.fixture(scope="session")
def topic_map(clustered):
    """A map weighted entirely on `topic`, with point 0 held out."""
    from semcse.maps import layout

    with one_thread():
        return layout(
            clustered["ids"][1:],
            {a: e[1:] for a, e in clustered["embeddings"].items()},
            weights={"topic": 1.0},
            labels=[f"topic {t}" for t in clustered["topic"][1:]],
            perplexity=10,
            iterations=400,
        )
