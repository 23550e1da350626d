"""A saved map as a picture: a PNG for reports and the command line (the explorer draws its own)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from semcse.core import storage
from semcse.stages.maps.semantic_map import SemanticMap


def render(
    semantic_map: SemanticMap,
    path: str | Path,
    highlights: list[tuple[Any, str]] | None = None,
    title: str | None = None,
    max_legend: int = 20,
) -> str:
    """A PNG of the map: points coloured by label (with a legend), highlighted positions annotated."""
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 7), dpi=120)
    labels = semantic_map.labels or ["points"] * len(semantic_map)
    names = sorted(set(labels))
    colours = plt.get_cmap("tab20" if len(names) > 10 else "tab10")
    for i, name in enumerate(names):
        rows = np.array([label == name for label in labels])
        shown = name if i < max_legend else None
        xs, ys = semantic_map.coords[rows].T
        ax.scatter(xs, ys, s=9, color=colours(i % colours.N), label=shown, alpha=0.8)
    for point, text in highlights or []:
        x, y = np.asarray(point, dtype=float).reshape(-1)[:2]
        ax.scatter([x], [y], marker="*", s=220, color="black", edgecolor="white", zorder=3)
        ax.annotate(
            textwrap.fill(text, 40),
            (x, y),
            xytext=(8, 8),
            textcoords="offset points",
            fontsize=8,
            bbox={"boxstyle": "round", "fc": "white", "alpha": 0.85},
        )
    weights = ", ".join(f"{a or 'embedding'}={w:.2f}" for a, w in semantic_map.active.items())
    ax.set_title(title or f"{len(semantic_map):,} points · {weights}")
    ax.set_xticks([])
    ax.set_yticks([])
    if semantic_map.labels:
        ax.legend(loc="best", fontsize=8, markerscale=2, frameon=True)
    fig.tight_layout()
    with tempfile.TemporaryDirectory() as tmp:
        fig.savefig(Path(tmp) / "map.png")
        plt.close(fig)
        return storage.upload(Path(tmp) / "map.png", path)
