"""The map itself: an aspect-weighted t-SNE layout (`layout`) on which points are placed, explained, added and removed.

openTSNE lays out affinities we compute (`affinities`), because placing and explaining need every map point's
precision β_j and row normaliser S_j, which a library keeps private. How each operation works: docs/maps.md.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch

from semcse.models.aspects import aspect_weights
from semcse.stages.maps import affinities, store

log = logging.getLogger(__name__)

MIN_POINTS = 4
# [new points × map points] entries per block when placing or updating many points (float64 intermediates)
_BLOCK_ENTRIES = 2_000_000


@dataclass
class Pca:
    """The top principal directions of one aspect's embedding space (rows of `components` are orthonormal)."""

    mean: np.ndarray
    components: np.ndarray

    @classmethod
    def fit(cls, x: np.ndarray, k: int) -> Pca:
        mean = x.mean(0)
        _, _, vt = np.linalg.svd(x - mean, full_matrices=False)
        return cls(mean.astype(np.float32), vt[: min(k, len(vt))].astype(np.float32))


@dataclass
class SemanticMap:
    """A laid-out corpus plus everything needed to place new points and explain positions later."""

    ids: list[str]
    embeddings: dict[str, np.ndarray]
    weights: dict[str, float]
    coords: np.ndarray
    perplexity: float
    betas: np.ndarray
    row_sums: np.ndarray
    row_kl: np.ndarray
    z_sum: float
    pca: dict[str, Pca]
    labels: list[str] | None = None
    neighbours: int = 5
    units: dict[str, np.ndarray] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.units = {a: affinities.unit(e) for a, e in self.embeddings.items()}

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def aspects(self) -> list[str]:
        return list(self.embeddings)

    @property
    def active(self) -> dict[str, float]:
        return {a: w for a, w in self.weights.items() if w > 0}

    @property
    def k(self) -> int:
        """Neighbours used for affinities: 3 × perplexity, as in openTSNE / Barnes-Hut t-SNE."""
        return min(len(self) - 1, int(3 * self.perplexity))

    # ----- input checks -----------------------------------------------------------------------------------

    def as_aspects(self, embeddings: Mapping[str, Any] | np.ndarray) -> dict[str, np.ndarray]:
        """Per-aspect [m, d] float32 arrays for the active aspects, or a ValueError naming the mismatch."""
        if not isinstance(embeddings, Mapping):
            if len(self.active) != 1:
                raise ValueError(f"this map weights aspects {sorted(self.active)}: pass a dict of embeddings")
            embeddings = {next(iter(self.active)): embeddings}
        out = {}
        for aspect in self.active:
            if aspect not in embeddings:
                raise ValueError(f"missing embeddings for aspect {aspect!r} (map weights {self.active})")
            x = np.asarray(embeddings[aspect], dtype=np.float32)
            x = x[None] if x.ndim == 1 else x
            dim = self.embeddings[aspect].shape[1]
            if x.ndim != 2 or x.shape[1] != dim:
                raise ValueError(f"aspect {aspect!r}: expected embeddings of dimension {dim}, got shape {x.shape}")
            if not np.isfinite(x).all():
                raise ValueError(f"aspect {aspect!r}: embeddings contain NaN or infinite values")
            out[aspect] = x
        return out

    def check_point(self, point: Any, margin: float = 0.1) -> np.ndarray:
        """A 2-D point inside the map's bounding box (plus `margin` of its span), or a ValueError."""
        y = np.asarray(point, dtype=np.float64).reshape(-1)
        if y.shape != (2,) or not np.isfinite(y).all():
            raise ValueError(f"a map position is two finite numbers (x, y), got {point!r}")
        low, high = self.coords.min(0), self.coords.max(0)
        pad = margin * (high - low)
        if (y < low - pad).any() or (y > high + pad).any():
            raise ValueError(
                f"point ({y[0]:.3g}, {y[1]:.3g}) lies far outside the map, which spans x ∈ [{low[0]:.3g}, "
                f"{high[0]:.3g}], y ∈ [{low[1]:.3g}, {high[1]:.3g}] (±{margin:.0%}); nothing there can be explained"
            )
        return y

    # ----- place ------------------------------------------------------------------------------------------

    def _block(self) -> int:
        """How many new points to handle at once so that [points × map] arrays stay around `_BLOCK_ENTRIES`."""
        return max(1, _BLOCK_ENTRIES // max(len(self), 1))

    def place(
        self, embeddings: Mapping[str, Any] | np.ndarray, steps: int = 100, init: np.ndarray | None = None
    ) -> np.ndarray:
        """2-D coordinates [m, 2] for new points, each placed against the fixed map (`affinities.place_loss`).

        Each starts at the mean position of its `neighbours` nearest map points in embedding space. Blocks of points
        share one L-BFGS run (a sum of independent per-point terms), so memory stays bounded on a large map.
        """
        query = self.as_aspects(embeddings)
        m = len(next(iter(query.values())))
        block = self._block()
        if m > block:
            starts = range(0, m, block)
            return np.concatenate(
                [
                    self.place(
                        {a: q[i : i + block] for a, q in query.items()},
                        steps,
                        None if init is None else np.asarray(init).reshape(-1, 2)[i : i + block],
                    )
                    for i in starts
                ]
            )
        dist = affinities.distances(query, self.units, self.active)
        if init is None:
            nearest = np.argpartition(dist, min(self.neighbours, len(self)) - 1, axis=1)[:, : self.neighbours]
            init = self.coords[nearest].mean(1)
        sq = torch.as_tensor(dist, dtype=torch.float64) ** 2
        p, _ = affinities.new_point_affinities(sq, self.betas, self.row_sums, self.perplexity, self.k)
        fixed = torch.as_tensor(self.coords, dtype=torch.float64)
        y = torch.tensor(np.asarray(init, dtype=np.float64).reshape(-1, 2), requires_grad=True)
        _minimise([y], lambda: affinities.place_loss(y, p, fixed, self.z_sum), steps)
        return y.detach().numpy().astype(np.float32)

    # ----- explain ----------------------------------------------------------------------------------------

    def explain(
        self,
        point: Any,
        steps: int = 100,
        init: Mapping[str, np.ndarray] | None = None,
        margin: float = 0.1,
    ) -> dict[str, np.ndarray]:
        """An embedding per active aspect whose t-SNE affinities put it at `point` (A.10, inside the top PCs).

        It starts at the mean embedding of the `neighbours` map points nearest to `point`.
        """
        objective = self.explain_objective(point, margin)
        y = self.check_point(point, margin)
        if init is None:
            nearest = np.argsort(((self.coords - y) ** 2).sum(1))[: self.neighbours]
            init = {a: self.embeddings[a][nearest].mean(0) for a in self.active}
        init = self.as_aspects(init)
        z = {}
        for aspect in self.active:
            pca = self.pca[aspect]
            start = (np.asarray(init[aspect][0], dtype=np.float64) - pca.mean) @ pca.components.T
            z[aspect] = torch.tensor(start, dtype=torch.float64, requires_grad=True)
        _minimise(list(z.values()), lambda: objective(z), steps)
        return {
            a: (self.pca[a].mean + z[a].detach().numpy() @ self.pca[a].components).astype(np.float32)
            for a in self.active
        }

    def explain_objective(self, point: Any, margin: float = 0.1) -> Any:
        """The objective `explain` minimises, as a function of each active aspect's PCA coordinates.

        `affinities.explain_loss` of a new point at `point` whose embedding is `mean + z @ basis` per aspect
        (its β re-calibrated, and differentiated, for every z).
        """
        y = self.check_point(point, margin)
        fixed = torch.as_tensor(self.coords, dtype=torch.float64)
        w = 1.0 / (1.0 + ((torch.as_tensor(y)[None] - fixed) ** 2).sum(-1))
        log_q = torch.log(w / (self.z_sum + 2 * w.sum()))
        spaces = {
            a: (
                torch.as_tensor(self.pca[a].mean, dtype=torch.float64),
                torch.as_tensor(self.pca[a].components, dtype=torch.float64),
                torch.as_tensor(self.units[a], dtype=torch.float64),
            )
            for a in self.active
        }
        row_weight = torch.as_tensor(self.row_kl + 1.0, dtype=torch.float64) / (len(self) + 1)

        def objective(z: Mapping[str, torch.Tensor]) -> torch.Tensor:
            dist = torch.zeros((), dtype=torch.float64)
            for aspect, (mean, basis, units) in spaces.items():
                e = mean + z[aspect] @ basis
                dist = dist + self.active[aspect] * (1.0 - units @ e / e.norm().clamp_min(affinities.EPS))
            sq = (dist.clamp_min(0.0) ** 2)[None]
            p, p_given_new = affinities.new_point_affinities(sq, self.betas, self.row_sums, self.perplexity, self.k)
            return affinities.explain_loss(p[0], p_given_new[0], log_q, row_weight)

        return objective

    # ----- variants, growth -------------------------------------------------------------------------------

    def relayout(self, weights: Mapping[str, float], iterations: int = 750, seed: int = 0) -> SemanticMap:
        """The same corpus laid out under other aspect weights (a new t-SNE run)."""
        return layout(
            self.ids,
            self.embeddings,
            weights,
            labels=self.labels,
            perplexity=self.perplexity,
            iterations=iterations,
            seed=seed,
            pca_components=next(iter(self.pca.values())).components.shape[0],
            neighbours=self.neighbours,
        )

    def without(self, index: int) -> SemanticMap:
        """This map with one point removed and the others kept in place (affinity statistics recomputed)."""
        keep = np.delete(np.arange(len(self)), index)
        units = {a: u[keep] for a, u in self.units.items()}
        betas, row_sums, conditional = affinities.conditionals(
            units, self.active, self.perplexity, min(len(keep) - 1, self.k)
        )
        return replace(
            self,
            ids=[self.ids[i] for i in keep],
            labels=None if self.labels is None else [self.labels[i] for i in keep],
            embeddings={a: e[keep] for a, e in self.embeddings.items()},
            coords=self.coords[keep],
            betas=betas,
            row_sums=row_sums,
            **affinities.layout_stats(conditional, self.coords[keep]),
        )

    def append(
        self,
        ids: list[str],
        embeddings: Mapping[str, Any] | np.ndarray,
        coords: np.ndarray,
        labels: list[str] | None = None,
    ) -> SemanticMap:
        """This map plus placed points (`coords` from `place`); every existing point stays where it was.

        Each new point's β and S are calibrated on its nearest map points, and its row_kl is its own
        row's term of the layout's KL, so later points are placed against it like against any other.
        """
        ids = [str(i) for i in ids]
        clash = sorted(set(ids) & set(self.ids))
        if clash or len(set(ids)) != len(ids):
            raise ValueError(f"map points must be unique: {clash[:5] or 'repeated ids'} given again")
        if not isinstance(embeddings, Mapping) and len(self.aspects) == 1:
            embeddings = {self.aspects[0]: embeddings}
        missing = [a for a in self.aspects if not isinstance(embeddings, Mapping) or a not in embeddings]
        if missing:
            raise ValueError(f"missing embeddings for aspect(s) {missing}: the map stores every aspect")
        query = self.as_aspects(embeddings)
        stored = {a: np.asarray(embeddings[a], dtype=np.float32).reshape(len(ids), -1) for a in self.aspects}
        wrong = [a for a in self.aspects if stored[a].shape[1] != self.embeddings[a].shape[1]]
        if wrong:
            raise ValueError(f"aspect(s) {wrong}: embeddings of another dimension than the map's")
        y = np.asarray(coords, dtype=np.float64).reshape(-1, 2)
        if len(y) != len(ids) or any(len(q) != len(ids) for q in query.values()):
            raise ValueError(f"{len(ids)} ids, {len(y)} coordinates and embeddings of other lengths")
        z_sum = self.z_sum + 2 * affinities.kernel_to(y, self.coords, self._block()) + affinities.kernel_sum(y)
        betas: list[np.ndarray] = []
        row_sums: list[np.ndarray] = []
        row_kl: list[np.ndarray] = []
        for start in range(0, len(ids), self._block()):
            rows = slice(start, start + self._block())
            block = {a: q[rows] for a, q in query.items()}
            sq = affinities.distances(block, self.units, self.active).astype(np.float64) ** 2
            stats = affinities.new_point_stats(
                sq, y[rows], self.coords, self.betas, self.row_sums, self.perplexity, self.k, z_sum
            )
            for out, values in zip((betas, row_sums, row_kl), stats):
                out.append(values)
        if self.labels is None and labels is not None:
            raise ValueError("this map has no labels, so new points cannot bring any")
        new_labels = None if self.labels is None else [*self.labels, *(labels or [""] * len(ids))]
        return replace(
            self,
            ids=[*self.ids, *ids],
            labels=new_labels,
            embeddings={a: np.concatenate([e, stored[a]]) for a, e in self.embeddings.items()},
            coords=np.concatenate([self.coords, y]),
            betas=np.concatenate([self.betas, *betas]),
            row_sums=np.concatenate([self.row_sums, *row_sums]),
            row_kl=np.concatenate([self.row_kl, *row_kl]),
            z_sum=float(z_sum),
        )

    def remove(self, ids: list[str]) -> SemanticMap:
        """This map without some points; the rest keep their coordinates and statistics, Z loses their terms.

        `without` recomputes every point's statistics instead (exact, and O(n²) on the corpus).
        """
        position = {i: row for row, i in enumerate(self.ids)}
        unknown = [i for i in ids if i not in position]
        if unknown:
            raise ValueError(f"not on this map: {unknown[:5]}")
        rows = np.asarray(sorted(position[i] for i in set(ids)), dtype=np.int64)
        keep = np.delete(np.arange(len(self)), rows)
        gone = self.coords[rows]
        smaller = replace(
            self,
            ids=[self.ids[i] for i in keep],
            labels=None if self.labels is None else [self.labels[i] for i in keep],
            embeddings={a: e[keep] for a, e in self.embeddings.items()},
            coords=self.coords[keep],
            betas=self.betas[keep],
            row_sums=self.row_sums[keep],
            row_kl=self.row_kl[keep],
        )
        smaller.z_sum = float(
            self.z_sum - 2 * affinities.kernel_to(gone, smaller.coords, smaller._block()) - affinities.kernel_sum(gone)
        )
        return smaller

    def grow(
        self,
        ids: list[str],
        embeddings: Mapping[str, Any] | np.ndarray,
        steps: int,
        labels: list[str] | None = None,
        replaced: Sequence[str] = (),
    ) -> SemanticMap:
        """This map less the `replaced` points it has, plus the points `ids` placed (`place`) and appended (with
        their `labels` where the map has labels)."""
        gone = [p for p in replaced if p in set(self.ids)]
        semantic_map = self.remove(gone) if gone else self
        log.info("placing %d papers into the map of %d", len(ids), len(semantic_map))
        coords = semantic_map.place(embeddings, steps=steps)
        return semantic_map.append(ids, embeddings, coords, labels if semantic_map.labels is not None else None)

    def nearest(self, coords: np.ndarray, k: int, among: np.ndarray | None = None) -> np.ndarray:
        """Rows [m, k] of the map points (only rows `among`, if given) nearest to each 2-D position, nearest first."""
        y = np.asarray(coords, dtype=np.float64).reshape(-1, 2)
        rows = np.arange(len(self)) if among is None else np.asarray(among, dtype=np.int64)
        k = min(k, len(rows))
        out = np.zeros((len(y), k), dtype=np.int64)
        if k == 0:
            return out
        candidates = self.coords[rows]
        for start in range(0, len(y), self._block()):
            block = y[start : start + self._block()]
            sq = ((block[:, None, :] - candidates[None]) ** 2).sum(-1)
            part = np.argpartition(sq, k - 1, axis=1)[:, :k]
            order = np.argsort(np.take_along_axis(sq, part, 1), axis=1, kind="stable")
            out[start : start + len(block)] = rows[np.take_along_axis(part, order, 1)]
        return out

    # the file format and versioned publishing live in `store`
    save = store.save
    manifest = staticmethod(store.manifest)
    load = staticmethod(store.load)
    publish_grown = staticmethod(store.publish_grown)


def _minimise(params: list[torch.Tensor], objective: Any, steps: int) -> None:
    """L-BFGS: the place/explain problems have 2 to ~20 variables per point and smooth objectives."""
    optimizer = torch.optim.LBFGS(params, lr=1.0, max_iter=steps, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        value = objective()
        value.backward()
        return value

    optimizer.step(closure)


def _pca_init(units: Mapping[str, np.ndarray], alpha: Mapping[str, float]) -> np.ndarray:
    """PCA of the weighted concatenation `[√α_a û_a]` (whose squared distances are 2d), scaled as openTSNE advises.

    Spectral initialisation collapses to a line when the affinity graph has disconnected clusters.
    """
    from openTSNE.initialization import rescale

    stacked = np.concatenate([np.sqrt(w) * units[a] for a, w in alpha.items() if w > 0], axis=1)
    centred = stacked - stacked.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return rescale(centred @ vt[:2].T)


def layout(
    ids: list[str],
    embeddings: Mapping[str, np.ndarray] | np.ndarray,
    weights: Mapping[str, float] | None = None,
    labels: list[str] | None = None,
    perplexity: float = 30.0,
    iterations: int = 750,
    seed: int = 0,
    pca_components: int = 20,
    neighbours: int = 5,
) -> SemanticMap:
    """Lay out a corpus with t-SNE over `d = Σ_a α_a (1 − cos_a)`; perplexity is clipped for tiny corpora."""
    from openTSNE import TSNE
    from openTSNE.affinity import PrecomputedAffinities

    embeddings = {"": embeddings} if not isinstance(embeddings, Mapping) else dict(embeddings)
    n = len(ids)
    if n == 0:
        raise ValueError("cannot lay out an empty corpus: no points were given")
    if n < MIN_POINTS:
        raise ValueError(f"a map needs at least {MIN_POINTS} points, got {n}")
    if len(set(ids)) != n:
        raise ValueError("map ids must be unique")
    if not embeddings:
        raise ValueError("no embeddings were given")
    arrays = {a: np.asarray(e, dtype=np.float32) for a, e in embeddings.items()}
    for aspect, array in arrays.items():
        if array.ndim != 2 or len(array) != n:
            raise ValueError(f"aspect {aspect!r}: expected {n} embeddings (one per id), got shape {array.shape}")
        if not np.isfinite(array).all():
            raise ValueError(f"aspect {aspect!r}: embeddings contain NaN or infinite values")
    if labels is not None and len(labels) != n:
        raise ValueError(f"{len(labels)} labels for {n} points")
    alpha = aspect_weights(weights, list(arrays))
    perplexity = float(min(perplexity, (n - 1) / 3))
    units = {a: affinities.unit(e) for a, e in arrays.items()}
    betas, row_sums, conditional = affinities.conditionals(
        units, {a: w for a, w in alpha.items() if w > 0}, perplexity, min(n - 1, int(3 * perplexity))
    )
    tsne = TSNE(n_components=2, n_iter=iterations, random_state=seed, n_jobs=1)
    start = _pca_init(units, alpha)
    coords = np.asarray(
        tsne.fit(affinities=PrecomputedAffinities(affinities.joint(conditional)), initialization=start),
        dtype=np.float64,
    )
    return SemanticMap(
        ids=[str(i) for i in ids],
        embeddings=arrays,
        weights=alpha,
        coords=coords,
        perplexity=perplexity,
        betas=betas,
        row_sums=row_sums,
        pca={a: Pca.fit(e, pca_components) for a, e in arrays.items()},
        labels=None if labels is None else [str(x) for x in labels],
        neighbours=neighbours,
        **affinities.layout_stats(conditional, coords),
    )
