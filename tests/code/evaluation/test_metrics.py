"""Every metric against values worked out by hand on arrays small enough to check on paper."""

from __future__ import annotations

import math

import numpy as np
import pytest

from semcse.stages.evaluation import metrics


def test_average_rank():
    # candidates on the unit circle; query i's true match is candidate i
    candidates = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    # q0 points at c0 (rank 1); q1 is closest to c0 (cos .8), then c1 (.6), then c2 (-.8) -> rank 2;
    # q2 is closest to c1 (.8), then c2 (.6) -> rank 2
    queries = np.array([[1.0, 0.0], [0.8, 0.6], [-0.6, 0.8]])
    assert metrics.average_rank(queries, candidates) == pytest.approx((1 + 2 + 2) / 3)


def test_euclidean_ranks_differ_from_cosine():
    # q=(1,0); c0=(10,0) is the same direction but far, c1=(0.9,0.1) is near -> Euclidean prefers c1
    q, c = np.array([[1.0, 0.0]]), np.array([[10.0, 0.0], [0.9, 0.1]])
    assert metrics.average_rank(q, c, np.array([0]), similarity="cosine") == 1
    assert metrics.average_rank(q, c, np.array([0]), similarity="euclidean") == 2


def test_smooth_ranks_count_each_rival_by_how_close_it_comes():
    # cosine scores of one query: its true match 0.9, rivals 0.8 and 0.9 (a tie), softness 0.1
    scores = np.array([[0.9, 0.8, 0.9]])
    expected = 1 + 1 / (1 + math.e) + 0.5  # σ(-1) for the rival 0.1 behind, σ(0) for the tie
    assert metrics.ranks_of_true(scores, np.array([0]), softness=0.1) == pytest.approx([expected])
    assert metrics.ranks_of_true(scores, np.array([0])).tolist() == [2]  # hard: the tie counts against
    # first either way, but pulled further ahead of its rival: the hard rank cannot tell, the smooth one can
    near, far = np.array([[0.9, 0.85]]), np.array([[0.9, 0.5]])
    assert metrics.ranks_of_true(near, np.array([0])) == metrics.ranks_of_true(far, np.array([0])) == [1]
    assert 1 < metrics.ranks_of_true(far, np.array([0]), 0.05)[0] < metrics.ranks_of_true(near, np.array([0]), 0.05)[0]
    assert metrics.ranks_of_true(near, np.array([0]), 1e-6) == pytest.approx([1.0])  # → hard rank as softness → 0


def test_label_agreement_and_knn_accuracy():
    neighbours = np.array([["a", "a", "b", "b", "b"], ["b", "a", "a", "c", "c"]])
    labels = np.array(["a", "c"])
    # row 0: 2 of 5 are 'a' = .4; row 1: 2 of 5 are 'c' = .4
    assert metrics.label_agreement(neighbours, labels) == pytest.approx(0.4)
    # votes: row 0 -> b (3 votes); row 1 -> a and c tie at 2, 'a' is seen nearer -> a; both wrong
    assert metrics.majority_vote(neighbours).tolist() == ["b", "a"]
    assert metrics.knn_accuracy(neighbours, labels) == 0.0
    assert metrics.knn_accuracy(neighbours, np.array(["b", "a"])) == 1.0
    with pytest.raises(ValueError, match="neighbour labels"):
        metrics.knn_accuracy(neighbours, np.array(["a"]))


def test_v_measure_hand_computed():
    # labels [0,0,1,1], clusters [0,0,0,1] (entropies in bits, the ratios are base-free)
    # H(C)=1; H(C|K) = 3/4 * H(2/3,1/3) = 3/4 * 0.918296 = 0.688722 -> homogeneity h = 0.311278
    # H(K)=H(3/4,1/4)=0.811278; H(K|C) = 1/2 * H(1/2,1/2) = 0.5 -> completeness c = 1 - 0.5/0.811278 = 0.383689
    # V = 2hc/(h+c) = 0.343711
    h = 1 - 0.75 * (-(2 / 3) * math.log2(2 / 3) - (1 / 3) * math.log2(1 / 3))
    c = 1 - 0.5 / (-(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25)))
    assert metrics.v_measure([0, 0, 1, 1], [0, 0, 0, 1]) == pytest.approx(2 * h * c / (h + c))
    assert metrics.v_measure([0, 0, 1, 1], [0, 0, 0, 1]) == pytest.approx(0.343711, abs=1e-6)


def test_v_measure_equals_scikit_learns_on_any_draw_and_averages_clusterings():
    from sklearn.metrics import v_measure_score

    rng = np.random.default_rng(0)
    for items, labels_, clusters_ in [(10, 2, 3), (300, 23, 23), (400, 1, 4), (50, 5, 1)]:
        labels = rng.integers(0, labels_, items).astype(str)  # any label type, coded once
        runs = [rng.integers(0, clusters_, items) for _ in range(3)]
        scores = metrics.VMeasure(labels, runs)
        draw = rng.integers(0, items, items)  # a bootstrap draw: repeats and gaps
        assert scores() == pytest.approx(np.mean([v_measure_score(labels, c) for c in runs]), abs=1e-12)
        expected = np.mean([v_measure_score(labels[draw], c[draw]) for c in runs])
        assert scores(draw) == pytest.approx(expected, abs=1e-12)
    with pytest.raises(ValueError, match="4 labels but 3"):
        metrics.VMeasure(np.arange(4), [np.arange(3)])


def test_mteb_clusterings_separated_and_mixed():
    rng = np.random.default_rng(0)
    centres = np.array([[10.0, 0, 0], [0, 10.0, 0], [0, 0, 10.0]])
    labels = np.repeat([0, 1, 2], 20)
    vectors = centres[labels] + rng.normal(scale=0.1, size=(60, 3))
    runs = metrics.mteb_clusterings(vectors, 3, seed=0, runs=3)
    assert len(runs) == 3
    assert all(metrics.v_measure(labels, clusters) == pytest.approx(1.0) for clusters in runs)
    # labels unrelated to the geometry score far lower
    assert all(metrics.v_measure(np.tile([0, 1, 2], 20), clusters) < 0.2 for clusters in runs)
    with pytest.raises(ValueError, match="two distinct labels"):
        metrics.mteb_clusterings(vectors, 1)


def test_per_item_values_average_to_the_figures():
    neighbours = np.array([["a", "a", "b"], ["b", "b", "b"], ["a", "b", "b"]])
    labels = np.array(["a", "b", "a"])
    assert metrics.knn_hits(neighbours, labels).tolist() == [1.0, 1.0, 0.0]
    assert metrics.label_agreements(neighbours, labels) == pytest.approx([2 / 3, 1.0, 1 / 3])
    assert metrics.knn_accuracy(neighbours, labels) == pytest.approx(2 / 3)
    queries = np.eye(3)
    candidates = np.array([[1.0, 0, 0], [1.0, 0.1, 0], [0, 0, 1.0]])
    assert metrics.true_ranks(queries, candidates).tolist() == [1, 1, 1]
    # swapped: q0 finds the other first; q1 (cosine 0 to its own) also ties with the orthogonal one: rank 3
    assert metrics.true_ranks(queries, candidates[[1, 0, 2]]).tolist() == [2, 3, 1]


def _entries(sims: np.ndarray, judged: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Square matrices (NaN: not judged; the diagonal never counts) as the per-pair entries the metrics take."""
    rows, partners = np.nonzero(np.isfinite(judged) & ~np.eye(len(judged), dtype=bool))
    return rows, sims[rows, partners], judged[rows, partners], len(judged)


def test_rowwise_spearman_skips_constant_rows():
    nan = np.nan
    sims = np.array(
        [
            [1.0, 0.9, 0.5, 0.1],
            [0.9, 1.0, 0.2, 0.3],
            [0.5, 0.2, 1.0, 0.4],
            [0.1, 0.3, 0.4, 1.0],
        ]
    )
    judged = np.array(
        [
            [nan, 3.0, 2.0, 1.0],  # row 0: sims .9,.5,.1 vs 3,2,1 -> same order, rho = 1
            [3.0, nan, 1.0, 2.0],  # row 1: sims .9,.2,.3 vs 3,1,2 -> same order, rho = 1
            [2.0, 1.0, nan, 1.0],  # row 2: sims .5,.2,.4 -> ranks 3,1,2; judged 2,1,1 -> ranks 3,1.5,1.5
            [1.0, 1.0, 1.0, nan],  # row 3: constant judgements -> skipped
        ]
    )
    # row 2: d = (0, -0.5, 0.5) after centring ranks: x=(1,-1,0), y=(1,-.5,-.5) -> rho = 1.5/sqrt(2*1.5) = 0.866025
    expected = (1 + 1 + 1.5 / math.sqrt(2 * 1.5)) / 3
    assert metrics.rowwise_spearman(*_entries(sims, judged)) == pytest.approx(expected)
    per_row = metrics.rowwise_spearmans(*_entries(sims, judged))
    assert per_row[:3] == pytest.approx([1, 1, 1.5 / math.sqrt(2 * 1.5)]) and np.isnan(per_row[3])
    with pytest.raises(ValueError, match="constant"):
        metrics.rowwise_spearman(*_entries(sims, np.ones((4, 4))))


def test_rowwise_spearman_agrees_with_scipy_on_random_entries():
    from scipy.stats import spearmanr

    rng = np.random.default_rng(0)
    rows = rng.integers(0, 30, 600)
    sims, judged = rng.normal(size=600), rng.integers(1, 6, 600).astype(float)  # judged scores tie a lot
    expected = [spearmanr(sims[rows == i], judged[rows == i]).statistic for i in range(30)]
    assert metrics.rowwise_spearmans(rows, sims, judged, 31)[:30] == pytest.approx(expected)
    assert np.isnan(metrics.rowwise_spearmans(rows, sims, judged, 31)[30]), "an item without entries"


def test_pair_similarities_are_the_matrix_entries():
    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(20, 8))
    rows, partners = rng.integers(0, 20, 50), rng.integers(0, 20, 50)
    for similarity in ("cosine", "dot", "euclidean"):
        full = metrics.similarity_matrix(vectors, vectors, similarity)
        pairs = metrics.pair_similarities(vectors, rows, partners, similarity, chunk=7)
        assert pairs == pytest.approx(full[rows, partners], abs=1e-6)


def test_top_k_overlap_counts_ties_fractionally():
    nan = np.nan
    # item 0 against items 1..4, k=2; embedding top-2 = items 1, 2
    sims = np.zeros((5, 5))
    sims[0, 1:] = [0.9, 0.8, 0.2, 0.1]
    judged = np.full((5, 5), nan)
    judged[0, 1:] = [3, 1, 3, 1]  # judged top-2 = items 1, 3 exactly -> overlap 1/2
    assert metrics.top_k_overlap(*_entries(sims, judged), k=2) == pytest.approx(0.5)
    judged[0, 1:] = [3, 2, 2, 2]  # item 1 sure; one slot left for 3 tied items -> item 2 counts 1/3
    assert metrics.top_k_overlap(*_entries(sims, judged), k=2) == pytest.approx((1 + 1 / 3) / 2)
    assert np.isnan(metrics.top_k_overlaps(*_entries(sims, judged), k=2)[1:]).all(), "no partners judged"


def test_anisotropy_and_pca_curve():
    # points (+-3,0,0), (0,+-1,0): population variances 4.5 (x), 0.5 (y), 0 (z) -> first PC 4.5/5 = .9
    x = np.array([[3.0, 0, 0], [-3.0, 0, 0], [0, 1.0, 0], [0, -1.0, 0]])
    assert metrics.pca_variance_curve(x).tolist() == pytest.approx([0.9, 1.0, 1.0])
    assert metrics.anisotropy(x, components=1) == pytest.approx(0.9)
    assert metrics.anisotropy(x) == pytest.approx(1.0)


def test_normalised_scores_best_median_floor():
    # higher is better: best 10 -> 1, median 6 -> .5, 4 -> .5 + .5*(4-6)/(10-6) = .25, 0 -> floored at 0
    scores = metrics.normalised_scores({"a": 10, "b": 6, "c": 4, "d": 0, "e": 8})
    assert scores == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.25, "d": 0.0, "e": 0.75})
    # lower is better (average rank): best 1 -> 1, median 2 -> .5, 3 -> 0
    assert metrics.normalised_scores({"x": 1, "y": 2, "z": 3}, higher_is_better=False) == pytest.approx(
        {"x": 1.0, "y": 0.5, "z": 0.0}
    )
    assert metrics.normalised_scores({"only": 3.0}) == {"only": 1.0}
    # every column of a [models, draws] matrix is normalised like a table of its own
    columns = np.array([[10.0, 1.0], [6.0, 1.0], [4.0, 0.0]])
    assert metrics.normalised_columns(columns).tolist() == [[1.0, 1.0], [0.5, 1.0], [0.25, 0.0]]


def test_every_paper_asks_every_other_and_an_exact_copy_still_counts() -> None:
    from semcse.stages.evaluation.knn import reference_neighbours

    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])  # rows 0 and 1 are copies
    everything = np.ones(4, dtype=bool)
    nearest = reference_neighbours(vectors, everything, everything, 1, "cosine", 200_000)
    assert nearest[:2, 0].tolist() == [1, 0]  # never itself; its copy is its nearest other paper
    assert nearest[2, 0] in (0, 1) and nearest[3, 0] == 2
    queries = np.array([True, False, False, False])
    apart = reference_neighbours(vectors, queries, ~queries, 2, "cosine", 200_000)
    assert apart.tolist() == [[0, 1]]  # positions among the references (rows 1 and 2)
