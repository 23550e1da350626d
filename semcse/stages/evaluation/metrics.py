"""Evaluation metrics, each a pure function of arrays (unit-tested against hand-computed values).

Ranks are 1-based: a true match that scores highest among its candidates has rank 1.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from scipy import special

Similarity = Literal["cosine", "euclidean", "dot"]
SIMILARITIES: tuple[Similarity, ...] = ("cosine", "euclidean", "dot")


def as_similarity(name: str) -> Similarity:
    """`name` checked to be a similarity the metrics know."""
    for known in SIMILARITIES:
        if name == known:
            return known
    raise ValueError(f"unknown similarity {name!r}; expected one of {', '.join(SIMILARITIES)}")


def similarity_matrix(queries: np.ndarray, candidates: np.ndarray, similarity: Similarity = "cosine") -> np.ndarray:
    """Scores where higher means more similar: cosine, dot product, or negative Euclidean distance."""
    q = np.asarray(queries, dtype=np.float64)
    c = np.asarray(candidates, dtype=np.float64)
    if similarity == "cosine":
        q = q / np.clip(np.linalg.norm(q, axis=1, keepdims=True), 1e-12, None)
        c = c / np.clip(np.linalg.norm(c, axis=1, keepdims=True), 1e-12, None)
        return q @ c.T
    if similarity == "dot":
        return q @ c.T
    if similarity == "euclidean":
        sq = (q**2).sum(1)[:, None] + (c**2).sum(1)[None, :] - 2 * q @ c.T
        return -np.sqrt(np.clip(sq, 0, None))
    raise ValueError(f"unknown similarity {similarity!r}; expected cosine, euclidean or dot")


def ranks_of_true(scores: np.ndarray, true_index: np.ndarray, softness: float = 0.0) -> np.ndarray:
    """Rank of each row's true candidate; ties count against the true match (pessimistic).

    With `softness` > 0, the smooth rank `1 + Σ_{j ≠ true} σ((s_j − s_true) / softness)` (in the scores' units):
    each other candidate counts by how close it comes to the true one, so the rank still moves when the true
    match is already first, as it is for most queries of a strong model on a few hundred candidates. It tends
    to the hard rank as `softness` → 0 (a tie then counts a half).
    """
    scores = np.asarray(scores, dtype=np.float64)
    true_index = np.asarray(true_index)
    true_scores = scores[np.arange(len(scores)), true_index]
    if softness <= 0:
        return (scores >= true_scores[:, None]).sum(1)
    # σ(0) = ½ for the true candidate itself: replaced by the 1 it counts as
    return 0.5 + special.expit((scores - true_scores[:, None]) / softness).sum(1)


def average_rank(
    queries: np.ndarray,
    candidates: np.ndarray,
    true_index: np.ndarray | None = None,
    similarity: Similarity = "cosine",
    chunk: int = 2048,
) -> float:
    """Mean rank of each query's true candidate among all candidates (default: the i-th matches the i-th).

    Chunked over queries so memory stays O(chunk × candidates) for large pools.
    """
    return float(np.mean(true_ranks(queries, candidates, true_index, similarity, chunk)))


def true_ranks(
    queries: np.ndarray,
    candidates: np.ndarray,
    true_index: np.ndarray | None = None,
    similarity: Similarity = "cosine",
    chunk: int = 2048,
    softness: float = 0.0,
) -> np.ndarray:
    """Each query's rank of its true candidate (smooth with `softness` > 0, see `ranks_of_true`): the per-query
    values behind the average rank."""
    true_index = np.arange(len(queries)) if true_index is None else np.asarray(true_index)
    if len(queries) != len(true_index):
        raise ValueError(f"{len(queries)} queries but {len(true_index)} true indices")
    if len(queries) == 0:
        raise ValueError("no queries to rank")
    out = []
    for start in range(0, len(queries), chunk):
        scores = similarity_matrix(queries[start : start + chunk], candidates, similarity)
        out.append(ranks_of_true(scores, true_index[start : start + chunk], softness))
    return np.concatenate(out).astype(np.float64)


def nearest_others(
    vectors: np.ndarray, k: int, similarity: Similarity = "cosine", queries: int | None = None
) -> np.ndarray:
    """Each row's k nearest other rows of `vectors` (leave-one-out), nearest first; ties keep row order. With
    `queries`, only the first `queries` rows ask (the others are neighbours only)."""
    queries = len(vectors) if queries is None else queries
    scores = similarity_matrix(vectors[:queries], vectors, similarity)
    scores[np.arange(queries), np.arange(queries)] = -np.inf
    return np.argsort(-scores, axis=1, kind="stable")[:, :k]


def label_agreement(neighbour_labels: np.ndarray, labels: np.ndarray) -> float:
    """SemCSE's clustering score: the share of each query's neighbours that carry the query's label, averaged.

    `neighbour_labels` is [queries, k] (nearest first), e.g. the labels of the 5 nearest training papers.
    """
    return float(np.mean(label_agreements(neighbour_labels, labels)))


def label_agreements(neighbour_labels: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per query: the share of its neighbours with its label."""
    neighbour_labels, labels = _neighbour_arrays(neighbour_labels, labels)
    return np.mean(neighbour_labels == labels[:, None], axis=1)


def majority_vote(neighbour_labels: np.ndarray) -> np.ndarray:
    """The most frequent label among each row's neighbours; a tie goes to the tied label seen nearest.

    Deterministic tie-breaking (instead of e.g. lexical order) keeps kNN accuracy independent of label names.
    """
    votes = []
    for row in np.asarray(neighbour_labels):
        values, first, counts = np.unique(row, return_index=True, return_counts=True)
        tied = counts == counts.max()
        votes.append(values[tied][np.argmin(first[tied])])
    return np.asarray(votes)


def knn_accuracy(neighbour_labels: np.ndarray, labels: np.ndarray) -> float:
    """kNN classification accuracy: the majority label of the k nearest neighbours against the true label."""
    return float(np.mean(knn_hits(neighbour_labels, labels)))


def knn_hits(neighbour_labels: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per query: 1.0 when the majority label of its neighbours is its label, else 0.0."""
    neighbour_labels, labels = _neighbour_arrays(neighbour_labels, labels)
    return (majority_vote(neighbour_labels) == labels).astype(np.float64)


def _neighbour_arrays(neighbour_labels: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    neighbour_labels, labels = np.asarray(neighbour_labels), np.asarray(labels)
    if neighbour_labels.ndim != 2 or len(neighbour_labels) != len(labels) or len(labels) == 0:
        raise ValueError(f"need [queries, k] neighbour labels for {len(labels)} queries, got {neighbour_labels.shape}")
    return neighbour_labels, labels


def v_measure(labels: np.ndarray, clusters: np.ndarray) -> float:
    """Harmonic mean of homogeneity and completeness (Rosenberg & Hirschberg 2007)."""
    return VMeasure(labels, [clusters])()


class VMeasure:
    """The V-measure of fixed clusterings against labels, averaged over the clusterings, on all items or on any
    draw of them (indices, repeats allowed).

    A bootstrap recomputes it on every draw for every clustering: the labels and clusters are coded once here,
    and a call costs one contingency table (a `bincount`) per clustering, where scikit-learn's
    `v_measure_score` sorts both arrays again on every call.
    """

    def __init__(self, labels: np.ndarray, clusterings: list[np.ndarray]) -> None:
        label_codes = np.unique(np.asarray(labels), return_inverse=True)[1].ravel()
        self._tables: list[tuple[np.ndarray, int, int]] = []
        for clusters in clusterings:
            cluster_codes = np.unique(np.asarray(clusters), return_inverse=True)[1].ravel()
            if len(cluster_codes) != len(label_codes):
                raise ValueError(f"{len(label_codes)} labels but {len(cluster_codes)} cluster assignments")
            rows, columns = int(label_codes.max()) + 1, int(cluster_codes.max()) + 1
            self._tables.append((label_codes * columns + cluster_codes, rows, columns))

    def __call__(self, indices: np.ndarray | None = None) -> float:
        tables = (
            np.bincount(codes if indices is None else codes[indices], minlength=rows * columns).reshape(rows, columns)
            for codes, rows, columns in self._tables
        )
        return float(np.mean([_v_measure_table(table.astype(np.float64)) for table in tables]))


def _v_measure_table(table: np.ndarray) -> float:
    """V-measure from a labels × clusters contingency table; scikit-learn's conventions for empty entropies."""
    n = table.sum()
    label_sizes, cluster_sizes = table.sum(axis=1), table.sum(axis=0)
    cells = table > 0
    joint = table[cells] / n
    label_of = np.broadcast_to(label_sizes[:, None], table.shape)[cells]
    cluster_of = np.broadcast_to(cluster_sizes[None, :], table.shape)[cells]
    h_labels, h_clusters = _entropy(label_sizes / n), _entropy(cluster_sizes / n)
    h_labels_given_clusters = float(-(joint * np.log(table[cells] / cluster_of)).sum())
    h_clusters_given_labels = float(-(joint * np.log(table[cells] / label_of)).sum())
    # clipped at 0 as scikit-learn clips the mutual information: independent labelings give −2e-16, not 0, unclipped
    homogeneity = 1.0 if h_labels == 0 else max(0.0, 1.0 - h_labels_given_clusters / h_labels)
    completeness = 1.0 if h_clusters == 0 else max(0.0, 1.0 - h_clusters_given_labels / h_clusters)
    if homogeneity + completeness == 0:
        return 0.0
    return 2 * homogeneity * completeness / (homogeneity + completeness)


def _entropy(shares: np.ndarray) -> float:
    shares = shares[shares > 0]
    return float(-(shares * np.log(shares)).sum())


def mteb_clusterings(vectors: np.ndarray, clusters: int, seed: int = 0, runs: int = 5) -> list[np.ndarray]:
    """Cluster assignments of `runs` seeded runs of MTEB's clustering protocol.

    MTEB's clustering evaluator fits scikit-learn's MiniBatchKMeans (batch 500, k = number of labels)
    on the raw embeddings and scores the V-measure; the runs differ only in their seed, and the
    figure is their average, so one unlucky initialisation does not decide a comparison.
    """
    from sklearn.cluster import MiniBatchKMeans

    if clusters < 2:
        raise ValueError("V-measure needs at least two distinct labels")
    x = np.asarray(vectors, dtype=np.float64)
    return [
        MiniBatchKMeans(n_clusters=clusters, batch_size=500, n_init="auto", random_state=seed + run).fit_predict(x)
        for run in range(runs)
    ]


def pair_similarities(
    vectors: np.ndarray,
    rows: np.ndarray,
    partners: np.ndarray,
    similarity: Similarity = "cosine",
    chunk: int = 8192,
) -> np.ndarray:
    """The similarity of each (row, partner) pair of `vectors` (as `similarity_matrix` scores it), pair by pair.

    Only the pairs asked for, in chunks: memory O(chunk × dimensions), where a similarity matrix
    would need O(n²) (11.6 GB in float64 at 38k abstracts).
    """
    rows, partners = np.asarray(rows, dtype=np.int64), np.asarray(partners, dtype=np.int64)
    if rows.shape != partners.shape:
        raise ValueError(f"{len(rows)} rows but {len(partners)} partners")
    out = np.empty(len(rows))
    for start in range(0, len(rows), chunk):
        a = np.asarray(vectors[rows[start : start + chunk]], dtype=np.float64)
        b = np.asarray(vectors[partners[start : start + chunk]], dtype=np.float64)
        if similarity == "cosine":
            a = a / np.clip(np.linalg.norm(a, axis=1, keepdims=True), 1e-12, None)
            b = b / np.clip(np.linalg.norm(b, axis=1, keepdims=True), 1e-12, None)
            out[start : start + chunk] = np.einsum("ij,ij->i", a, b)
        elif similarity == "dot":
            out[start : start + chunk] = np.einsum("ij,ij->i", a, b)
        elif similarity == "euclidean":
            out[start : start + chunk] = -np.linalg.norm(a - b, axis=1)
        else:
            raise ValueError(f"unknown similarity {similarity!r}; expected cosine, euclidean or dot")
    return out


def grouped_ranks(groups: np.ndarray, values: np.ndarray) -> np.ndarray:
    """1-based ranks of `values` within each group, ties given their average rank (as Spearman's ρ ranks them)."""
    groups, values = np.asarray(groups), np.asarray(values, dtype=np.float64)
    order = np.lexsort((values, groups))
    g, v = groups[order], values[order]
    n = len(v)
    starts = np.r_[True, g[1:] != g[:-1]] if n else np.zeros(0, dtype=bool)
    position = np.arange(n) - np.maximum.accumulate(np.where(starts, np.arange(n), 0)) + 1
    blocks = np.cumsum(np.r_[True, (g[1:] != g[:-1]) | (v[1:] != v[:-1])] if n else np.zeros(0, dtype=bool)) - 1
    average = np.bincount(blocks, weights=position) / np.bincount(blocks)
    ranks = np.empty(n)
    ranks[order] = average[blocks]
    return ranks


def rowwise_spearman(rows: np.ndarray, similarities: np.ndarray, judgements: np.ndarray, items: int) -> float:
    """Per-item Spearman correlation of embedding similarities with judged scores, averaged over items.

    The input is one entry per judged pair and direction: the item (`rows`), the embedding
    similarity to its partner and the judged score. An item whose judgements (or similarities) are
    constant has no ranking to agree with and is skipped, as in SemCSE-Multi's aspect-correlation
    protocol.
    """
    values = rowwise_spearmans(rows, similarities, judgements, items)
    if np.isnan(values).all():
        raise ValueError("every row has constant judgements or fewer than two judged pairs; Spearman is undefined")
    return float(np.nanmean(values))


def rowwise_spearmans(rows: np.ndarray, similarities: np.ndarray, judgements: np.ndarray, items: int) -> np.ndarray:
    """Per item 0..items-1: the Spearman correlation of `rowwise_spearman`, NaN for an item it skips.

    All items at once, on the entries alone (ranks within each item, then Pearson's r of the ranks):
    memory O(judged pairs), never O(items²).
    """
    rows = np.asarray(rows, dtype=np.int64)
    x = grouped_ranks(rows, similarities)
    y = grouped_ranks(rows, judgements)
    count = np.bincount(rows, minlength=items).astype(np.float64)

    def total(weights: np.ndarray) -> np.ndarray:
        return np.bincount(rows, weights=weights, minlength=items)

    with np.errstate(invalid="ignore", divide="ignore"):
        sx, sy = total(x), total(y)
        vx = total(x * x) - sx * sx / count
        vy = total(y * y) - sy * sy / count
        cov = total(x * y) - sx * sy / count
        rho = cov / np.sqrt(vx * vy)
    defined = (count >= 2) & (vx > 1e-9) & (vy > 1e-9)
    return np.where(defined, np.clip(rho, -1.0, 1.0), np.nan)


def top_k_overlap(
    rows: np.ndarray, similarities: np.ndarray, judgements: np.ndarray, items: int, k: int = 10
) -> float:
    """Share of each item's k most similar partners (by embedding) that are among its k best judged, averaged.

    Entries as in `rowwise_spearman`. Judged scores are coarse integers, so the judged top-k is
    often tied at its boundary; tied partners count fractionally (slots left / partners tied), i.e.
    the expected overlap under random tie-breaking, which is deterministic and neither rewards nor
    punishes an arbitrary order.
    """
    values = top_k_overlaps(rows, similarities, judgements, items, k)
    if np.isnan(values).all():
        raise ValueError(f"no item has {k} judged partners; top-{k} overlap is undefined")
    return float(np.nanmean(values))


def top_k_overlaps(
    rows: np.ndarray, similarities: np.ndarray, judgements: np.ndarray, items: int, k: int = 10
) -> np.ndarray:
    """Per item: the overlap of `top_k_overlap`, NaN for an item with fewer than k judged partners."""
    rows = np.asarray(rows, dtype=np.int64)
    sims, judged = np.asarray(similarities, dtype=np.float64), np.asarray(judgements, dtype=np.float64)
    order = np.argsort(rows, kind="stable")
    ends = np.cumsum(np.bincount(rows, minlength=items))
    starts = ends - np.bincount(rows, minlength=items)
    values = np.full(items, np.nan)
    for item in range(items):
        entries = order[starts[item] : ends[item]]
        if len(entries) < k:
            continue
        scores = judged[entries]
        boundary = np.sort(scores)[::-1][k - 1]
        above = scores > boundary
        weight = np.where(above, 1.0, np.where(scores == boundary, (k - above.sum()) / (scores == boundary).sum(), 0))
        top = np.argsort(-sims[entries], kind="stable")[:k]
        values[item] = weight[top].sum() / k
    return values


def pca_variance_curve(vectors: np.ndarray, components: int | None = None) -> np.ndarray:
    """Cumulative share of variance explained by the first 1..components principal components (scikit-learn PCA)."""
    from sklearn.decomposition import PCA

    x = np.asarray(vectors, dtype=np.float64)
    if np.allclose(x, x[0]):
        raise ValueError("all vectors are identical; explained variance is undefined")
    solver = "covariance_eigh" if x.shape[0] > x.shape[1] else "full"  # eigh of d × d: fast for many vectors
    ratios = PCA(n_components=min(x.shape), svd_solver=solver).fit(x).explained_variance_ratio_
    return np.minimum(np.cumsum(ratios)[: components or len(ratios)], 1.0)


def anisotropy(vectors: np.ndarray, components: int = 50) -> float:
    """Share of variance in the first `components` principal components: near 1 = a few directions dominate."""
    curve = pca_variance_curve(vectors, components)
    return float(curve[-1])


def normalised_scores(values: dict[str, float], higher_is_better: bool = True) -> dict[str, float]:
    """SemCSE's per-task score: best model 1, median model 0.5, linear through both, floored at 0.

    With the best equal to the median the line is undefined: models at the best get 1, the rest 0.
    """
    names = list(values)
    x = np.array([[values[n]] for n in names], dtype=np.float64)
    return dict(zip(names, normalised_columns(x, higher_is_better)[:, 0].tolist()))


def normalised_columns(x: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """`normalised_scores` of every column of [models, columns] at once (e.g. one column per bootstrap draw)."""
    x = np.asarray(x, dtype=np.float64) * (1 if higher_is_better else -1)
    best, median = x.max(axis=0), np.median(x, axis=0)
    spread = best - median
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = np.clip(0.5 + 0.5 * (x - median) / spread, 0.0, 1.0)
    return np.where(spread == 0, np.where(x == best, 1.0, 0.0), scaled)
