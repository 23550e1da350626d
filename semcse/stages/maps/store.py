"""A map on disk (map.json, points.parquet, embeddings.npz, pca.npz) and its versions under a versioned root.

A pipeline's map is a versioned root (`semcse.core.versions`): `load` reads a plain directory or a root's live version,
and `publish_grown` publishes a grown map as the root's next version.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from semcse.core import storage, versions

if TYPE_CHECKING:
    from semcse.stages.maps.semantic_map import SemanticMap

FORMAT_VERSION = 1


def save(semantic_map: SemanticMap, location: str | Path) -> str:
    """A directory a web service can load at `location`, a path or a storage URI."""
    with storage.staged(location) as path:
        _write(semantic_map, path)
    return str(location)


def _write(semantic_map: SemanticMap, path: Path) -> None:
    import pandas as pd

    meta = {
        "format": FORMAT_VERSION,
        "aspects": semantic_map.aspects,
        "weights": semantic_map.weights,
        "perplexity": semantic_map.perplexity,
        "z_sum": semantic_map.z_sum,
        "neighbours": semantic_map.neighbours,
        "points": len(semantic_map),
    }
    (path / "map.json").write_text(json.dumps(meta, indent=2))
    labels = semantic_map.labels
    pd.DataFrame(
        {
            "id": semantic_map.ids,
            "label": labels if labels is not None else [None] * len(semantic_map),
            "x": semantic_map.coords[:, 0],
            "y": semantic_map.coords[:, 1],
            "beta": semantic_map.betas,
            "row_sum": semantic_map.row_sums,
            "row_kl": semantic_map.row_kl,
        }
    ).to_parquet(path / "points.parquet", index=False)
    aspects = semantic_map.aspects
    arrays: dict[str, Any] = {f"a{i}": semantic_map.embeddings[a] for i, a in enumerate(aspects)}
    np.savez(path / "embeddings.npz", **arrays)
    pcas: dict[str, Any] = {}
    for i, a in enumerate(aspects):
        pcas[f"mean{i}"], pcas[f"components{i}"] = semantic_map.pca[a].mean, semantic_map.pca[a].components
    np.savez(path / "pca.npz", **pcas)


def manifest(location: str | Path) -> dict[str, Any]:
    """A saved map's `map.json` (aspects, weights, number of points) without loading the map."""
    meta = storage.join(versions.resolve(location), "map.json")
    if not storage.is_file(meta):
        raise FileNotFoundError(f"{location} is not a saved map: map.json is missing")
    return dict(storage.read_json(meta))


def load(location: str | Path) -> SemanticMap:
    """A saved map (a directory or a storage URI, fetched once per node), or the current version of a root."""
    import pandas as pd

    from semcse.stages.maps.semantic_map import Pca, SemanticMap  # which reads and writes itself through this module

    resolved = versions.resolve(location)
    meta = manifest(resolved)
    path = storage.local_copy(resolved)
    if meta.get("format") != FORMAT_VERSION:
        raise ValueError(f"{path}: map format {meta.get('format')} is not supported (expected {FORMAT_VERSION})")
    points = pd.read_parquet(path / "points.parquet")
    stored = np.load(path / "embeddings.npz")
    pcas = np.load(path / "pca.npz")
    aspects = meta["aspects"]
    labels = points["label"]
    return SemanticMap(
        ids=[str(i) for i in points["id"]],
        embeddings={a: stored[f"a{i}"] for i, a in enumerate(aspects)},
        weights={a: float(w) for a, w in meta["weights"].items()},
        coords=np.array(points[["x", "y"]].to_numpy(np.float64)),
        perplexity=float(meta["perplexity"]),
        betas=points["beta"].to_numpy(np.float64, copy=True),
        row_sums=points["row_sum"].to_numpy(np.float64, copy=True),
        row_kl=points["row_kl"].to_numpy(np.float64, copy=True),
        z_sum=float(meta["z_sum"]),
        pca={a: Pca(pcas[f"mean{i}"], pcas[f"components{i}"]) for i, a in enumerate(aspects)},
        labels=None if labels.isna().all() else [str(x) for x in labels],
        neighbours=int(meta["neighbours"]),
    )


def publish_grown(
    root: str,
    tag: str,
    ids: list[str],
    vectors: Callable[[], Mapping[str, np.ndarray]],
    place_steps: int,
    labels: list[str] | None = None,
    replaced: Sequence[str] = (),
) -> tuple[str, SemanticMap]:
    """The live map of the versioned root `root` grown (`SemanticMap.grow`) and published as a version tagged `tag`:
    its name and the grown map. Once per tag: if that version is already current (a rerun), nothing is placed,
    `vectors` is not asked for, and the current map is returned."""
    done = versions.published(root, tag)
    if done is not None:
        return done, load(root)
    grown = load(root).grow(ids, vectors(), place_steps, labels, replaced)
    version, _ = versions.publish(root, tag, grown.save)
    return version, grown
