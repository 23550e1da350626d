"""Layout, placing, explaining, persistence and input checks of semantic maps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from semcse.models.aspects import aspect_weights, parse_weights
from semcse.stages.maps import SemanticMap, layout

pytestmark = pytest.mark.usefixtures("single_threaded_torch")


def _nearest_on_map(semantic_map: SemanticMap, point: np.ndarray, k: int) -> np.ndarray:
    return np.argsort(((semantic_map.coords - point) ** 2).sum(1))[:k]


def _cosine_neighbours(embeddings: np.ndarray, vector: np.ndarray, k: int) -> np.ndarray:
    unit = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    return np.argsort(-(unit @ (vector / np.linalg.norm(vector))))[:k]


def test_layout_separates_the_weighted_aspect(topic_map, clustered):
    topic = clustered["topic"][1:]
    for i in range(0, len(topic_map), 9):
        assert (topic[_nearest_on_map(topic_map, topic_map.coords[i], 6)[1:]] == topic[i]).all()


def test_weights_choose_which_aspect_shapes_the_map(topic_map, clustered):
    method_map = topic_map.relayout({"method": 1.0}, iterations=300)
    method = clustered["method"][1:]
    agree = [
        (method[_nearest_on_map(method_map, method_map.coords[i], 6)[1:]] == method[i]).mean() for i in range(0, 80, 8)
    ]
    assert np.mean(agree) > 0.9
    assert method_map.weights == {"topic": 0.0, "method": 1.0}


@pytest.mark.parametrize("start", ["neighbours", "other cluster"])
def test_placing_a_held_out_point_lands_among_its_true_neighbours(topic_map, clustered, start):
    point = {a: e[0] for a, e in clustered["embeddings"].items()}
    topic = clustered["topic"][1:]
    init = None if start == "neighbours" else topic_map.coords[topic != clustered["topic"][0]].mean(0)
    placed = topic_map.place(point, init=init)[0]
    assert (topic[_nearest_on_map(topic_map, placed, 5)] == clustered["topic"][0]).all()


def test_explaining_an_occupied_position_recovers_its_neighbourhood(topic_map, clustered):
    embeddings = clustered["embeddings"]["topic"][1:]
    topic = clustered["topic"][1:]
    default, distant = [], []
    for target in range(0, len(topic_map), 7):
        position = topic_map.coords[target]
        around = set(_nearest_on_map(topic_map, position, 10))
        vector = topic_map.explain(position)["topic"]
        assert vector.shape == (24,)
        default.append(len(around & set(_cosine_neighbours(embeddings, vector, 5))))
        # start from the same-topic point farthest away on the map: only the optimisation can find the place
        same = np.flatnonzero(topic == topic[target])
        farthest = same[np.argmax(((topic_map.coords[same] - position) ** 2).sum(1))]
        vector = topic_map.explain(position, init={"topic": embeddings[farthest]})["topic"]
        distant.append(len(around & set(_cosine_neighbours(embeddings, vector, 5))))
    assert min(default) >= 3, default
    assert np.mean(np.array(distant) >= 3) >= 0.7, distant


def test_explained_embedding_places_back_near_its_position(topic_map):
    position = topic_map.coords[[12, 13]].mean(0)
    vector = topic_map.explain(position)
    placed = topic_map.place(vector)[0]
    spread = np.ptp(topic_map.coords, axis=0).max()
    assert np.linalg.norm(placed - position) < 0.1 * spread


def test_save_and_load_round_trip(topic_map, clustered, tmp_path):
    loaded = SemanticMap.load(topic_map.save(tmp_path / "map"))
    assert loaded.ids == topic_map.ids and loaded.labels == topic_map.labels
    assert loaded.weights == topic_map.weights
    point = {a: e[0] for a, e in clustered["embeddings"].items()}
    np.testing.assert_allclose(loaded.place(point), topic_map.place(point), atol=1e-5)


def test_without_keeps_the_other_points_in_place(topic_map):
    smaller = topic_map.without(3)
    assert len(smaller) == len(topic_map) - 1 and topic_map.ids[3] not in smaller.ids
    np.testing.assert_array_equal(smaller.coords, np.delete(topic_map.coords, 3, axis=0))


def test_render_writes_a_png_with_highlights(topic_map, tmp_path):
    from semcse.stages.maps import render

    out = render(topic_map, tmp_path / "map.png", highlights=[(topic_map.coords[0], "placed text")])
    assert Path(out).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_point_far_outside_the_map_is_refused(topic_map):
    far = topic_map.coords.max(0) + 10 * np.ptp(topic_map.coords, axis=0)
    with pytest.raises(ValueError, match="far outside the map"):
        topic_map.explain(far)
    with pytest.raises(ValueError, match="two finite numbers"):
        topic_map.explain([np.nan, 0.0])


def test_wrong_embedding_dimension_is_refused(topic_map):
    with pytest.raises(ValueError, match="dimension 24"):
        topic_map.place({"topic": np.zeros(23)})
    with pytest.raises(ValueError, match="missing embeddings for aspect 'topic'"):
        topic_map.place({"method": np.zeros(12)})


def test_empty_or_inconsistent_corpus_is_refused():
    with pytest.raises(ValueError, match="empty corpus"):
        layout([], np.zeros((0, 8)))
    with pytest.raises(ValueError, match="expected 5 embeddings"):
        layout([f"p{i}" for i in range(5)], np.zeros((4, 8)))
    with pytest.raises(ValueError, match="unknown aspect"):
        aspect_weights({"species": 1.0}, ["topic"])
    for weights in ({"topic": float("nan")}, {"topic": float("inf")}, {"topic": -1.0}, {"topic": 0.0}):
        with pytest.raises(ValueError, match="finite and non-negative with a positive sum"):
            aspect_weights(weights, ["topic"])


def test_equally_far_neighbours_get_uniform_affinities_not_nan():
    """One-hot embeddings: every point's neighbours are all at cosine distance 1, so no bandwidth reaches the
    perplexity (the entropy is log k for any β); the layout and a placed point must still come out finite."""
    ids = [f"p{i}" for i in range(31)]
    simplex = np.eye(32, dtype=np.float32)
    grid = layout(ids[:30], simplex[:30], perplexity=5, iterations=50)
    assert np.isfinite(grid.coords).all() and np.isfinite(grid.row_sums).all() and (grid.row_sums > 0).all()
    assert np.isfinite(grid.place(simplex[30:31], steps=10)).all()
    # nearly equal distances: β stops at its ceiling short of the perplexity, and a new point's bandwidth stays there
    # (a Newton step from the ceiling leapt 190,000-fold, with gradients of 1e7)
    import torch

    from semcse.stages.maps.affinities import calibrate, calibrated_beta

    sq = torch.tensor(1 + 1e-5 * np.random.default_rng(0).random((1, 15)), requires_grad=True)
    beta = calibrated_beta(sq, 5.0)
    beta.sum().backward()
    assert beta.item() == pytest.approx(calibrate(sq.detach().numpy(), 5.0)[0][0]) and sq.grad is not None
    assert torch.isfinite(sq.grad).all() and sq.grad.abs().max() < 1.0


def test_weights_read_the_same_as_one_list_or_as_repeated_items():
    """`--weights a=0.7,b=0.3` (search) and `--weight a=0.7 --weight b=0.3` (map layout) are one reading."""
    assert (
        parse_weights("topic=0.7, method=0.3")
        == parse_weights(["topic=0.7", "method=0.3"])
        == {
            "topic": 0.7,
            "method": 0.3,
        }
    )
    assert parse_weights(None) == parse_weights([]) == {}
    for bad in ("topic", "topic=much", "topic=0.7,method"):
        with pytest.raises(ValueError, match="must look like aspect=weight"):
            parse_weights(bad)


def test_affinity_gradients_include_the_bandwidth_calibration(topic_map):
    """Autograd through a new point's affinities equals finite differences: β follows the distances.

    With β calibrated on detached distances (as before), autograd misses dβ/dd and this check fails.
    """
    import torch

    from semcse.stages.maps.affinities import new_point_affinities

    rng = np.random.default_rng(0)
    sq = torch.tensor(rng.uniform(0.05, 1.0, size=(1, len(topic_map))), dtype=torch.float64, requires_grad=True)
    weights = torch.tensor(rng.normal(size=(1, len(topic_map))), dtype=torch.float64)

    def objective(x: torch.Tensor) -> torch.Tensor:
        p, p_given_new = new_point_affinities(
            x, topic_map.betas, topic_map.row_sums, topic_map.perplexity, topic_map.k
        )
        return (weights * p).sum() + (weights * p_given_new).sum()

    assert torch.autograd.gradcheck(objective, (sq,), eps=1e-7, atol=1e-8, rtol=1e-5)


def test_explain_objective_gradient_matches_finite_differences(topic_map):
    """The whole explain objective, in the PCA coordinates L-BFGS moves: analytic = numeric gradient."""
    import torch

    point = topic_map.coords[:5].mean(0)
    z = {a: torch.zeros(p.components.shape[0], dtype=torch.float64) for a, p in topic_map.pca.items()}
    for aspect in topic_map.active:
        z[aspect] = torch.tensor(np.random.default_rng(1).normal(size=z[aspect].shape), dtype=torch.float64)
    objective = topic_map.explain_objective(point)
    for aspect in topic_map.active:
        variable = z[aspect].clone().requires_grad_(True)

        def f(v: torch.Tensor, aspect: str = aspect) -> torch.Tensor:
            return objective({**z, aspect: v})

        assert torch.autograd.gradcheck(f, (variable,), eps=1e-6, atol=1e-6, rtol=1e-4)
