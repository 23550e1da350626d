"""PNG plots of embedding spaces: a t-SNE map per model coloured by label, and PCA variance curves.

The map shows at a glance whether labels form regions (what kNN scores summarise); the variance
curve shows how many directions a model really uses (a curve that saturates early = anisotropic).
Large sets are subsampled by a stable hash so the same points are drawn every run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from semcse.stages.evaluation.results import SuiteResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def tsne_map(
    vectors: np.ndarray, labels: np.ndarray, path: str | Path, title: str, max_points: int = 2000, seed: int = 0
) -> Path:
    """t-SNE of (at most `max_points`) vectors, one colour per label, legend outside the axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.manifold import TSNE

    keep = np.sort(np.random.default_rng(seed).permutation(len(vectors))[:max_points])
    x, y = np.asarray(vectors, dtype=np.float64)[keep], np.asarray(labels)[keep]
    perplexity = float(min(30, max(2, (len(x) - 1) // 3)))
    points = TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(x)
    figure, axes = plt.subplots(figsize=(7, 6))
    names = sorted(set(y.tolist()))
    colours = plt.get_cmap("tab20" if len(names) > 10 else "tab10")
    for i, name in enumerate(names):
        mask = y == name
        axes.scatter(points[mask, 0], points[mask, 1], s=6, color=colours(i % colours.N), label=str(name))
    axes.set_title(title)
    axes.set_xticks([])
    axes.set_yticks([])
    axes.legend(loc="center left", bbox_to_anchor=(1, 0.5), fontsize=7, markerscale=2, frameon=False)
    return _save(figure, path)


def pca_variance_plot(curves: dict[str, np.ndarray], path: str | Path, title: str) -> Path:
    """Cumulative explained variance against the number of principal components, one line per model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    for name, curve in curves.items():
        axes.plot(np.arange(1, len(curve) + 1), curve, label=name)
    axes.set_xlabel("principal components")
    axes.set_ylabel("cumulative explained variance")
    axes.set_ylim(0, 1.01)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return _save(figure, path)


def write_plots(result: SuiteResult, directory: str | Path, max_points: int = 2000, seed: int = 0) -> list[Path]:
    """Every plot a suite result supports, into `directory` (t-SNE per model, one PCA curve plot)."""
    from semcse.stages.evaluation.report import safe_name

    directory = Path(directory)
    paths = [
        tsne_map(
            space.vectors,
            space.labels,
            directory / f"tsne_{safe_name(model)}.png",
            f"{model} ({result.name})",
            max_points,
            seed,
        )
        for model, space in result.spaces.items()
    ]
    if result.pca_curves:
        paths.append(
            pca_variance_plot(result.pca_curves, directory / "pca_variance.png", f"PCA variance ({result.name})")
        )
    return paths


def _save(figure: Figure, path: str | Path) -> Path:
    import matplotlib.pyplot as plt

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    return path
