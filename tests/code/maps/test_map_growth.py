"""A living map: placed points are appended without moving anyone, and carry what later placements need."""

from __future__ import annotations

import numpy as np
import pytest

from semcse.stages.maps import semantic_map as maps
from semcse.stages.maps.affinities import conditionals, kernel_sum

pytestmark = pytest.mark.usefixtures("single_threaded_torch")


@pytest.fixture
def grown(topic_map, clustered):
    """The topic map with its held-out point 0 placed and appended."""
    point = {a: e[:1] for a, e in clustered["embeddings"].items()}
    coords = topic_map.place(point)
    return topic_map.append([clustered["ids"][0]], point, coords, labels=[f"topic {clustered['topic'][0]}"])


def test_appending_keeps_every_old_point_and_updates_the_normaliser_exactly(topic_map, grown, clustered):
    n = len(topic_map)
    assert len(grown) == n + 1 and grown.ids[-1] == clustered["ids"][0] and grown.labels[-1].startswith("topic")
    np.testing.assert_array_equal(grown.coords[:n], topic_map.coords)
    for name in ("betas", "row_sums", "row_kl"):
        np.testing.assert_array_equal(getattr(grown, name)[:n], getattr(topic_map, name))
    assert grown.z_sum == pytest.approx(kernel_sum(grown.coords), rel=1e-9)
    assert all(np.isfinite(getattr(grown, name)[-1]) for name in ("betas", "row_sums", "row_kl"))


def test_a_new_points_bandwidth_is_the_one_a_layout_would_calibrate(topic_map, grown):
    """Its k nearest points are old ones, so its β and S equal those of a full calibration of the grown map."""
    betas, row_sums, _ = conditionals(grown.units, grown.active, grown.perplexity, topic_map.k)
    assert grown.betas[-1] == pytest.approx(betas[-1], rel=1e-4)  # float32 distances, computed in another order
    assert grown.row_sums[-1] == pytest.approx(row_sums[-1], rel=1e-4)


def test_a_later_point_is_placed_against_the_appended_one_too(grown, clustered):
    twin = {a: e[:1] + 1e-3 for a, e in clustered["embeddings"].items()}
    placed = grown.place(twin)[0]
    nearest = grown.nearest(placed[None], 3)[0]
    assert len(grown) - 1 in nearest, "the appended point is a neighbour like any other"


def test_removing_points_keeps_the_rest_in_place(grown, topic_map):
    smaller = grown.remove([grown.ids[-1], grown.ids[5]])
    keep = [i for i in range(len(topic_map)) if i != 5]
    np.testing.assert_array_equal(smaller.coords, topic_map.coords[keep])
    assert smaller.ids == [topic_map.ids[i] for i in keep]
    assert smaller.z_sum == pytest.approx(kernel_sum(smaller.coords), rel=1e-9)
    with pytest.raises(ValueError, match="not on this map"):
        grown.remove(["nobody"])


def test_appending_refuses_known_ids_and_missing_aspects(topic_map, clustered):
    point = {a: e[1:2] for a, e in clustered["embeddings"].items()}
    with pytest.raises(ValueError, match="unique"):
        topic_map.append([topic_map.ids[0]], point, np.zeros((1, 2)))
    with pytest.raises(ValueError, match="stores every aspect"):
        topic_map.append(["new"], {"topic": point["topic"]}, np.zeros((1, 2)))


def test_placing_in_blocks_lands_where_placing_together_does(topic_map, clustered, monkeypatch):
    points = {a: e[:3] + 0.05 for a, e in clustered["embeddings"].items()}
    together = topic_map.place(points)
    monkeypatch.setattr(maps, "_BLOCK_ENTRIES", len(topic_map))  # one point per block
    one_by_one = topic_map.place(points)
    span = np.ptp(topic_map.coords, axis=0).max()
    np.testing.assert_allclose(one_by_one, together, atol=0.02 * span)


def test_nearest_among_a_subset(topic_map):
    among = np.arange(10, 20)
    rows = topic_map.nearest(topic_map.coords[[0, 15]], 2, among=among)
    assert set(rows.ravel()) <= set(among) and rows[1, 0] == 15
