"""Search and map apps move to a newly published index/map version over real HTTP, without failing a query."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import pytest

from semcse.core import versions
from tests.fixtures.serving import ACTOR_OPTIONS, API_KEY, KEY_ENV

FIRST = 30  # the first 30 sample papers are served first; the other 10 are published while queries run


@contextmanager
def _deploy(serve_base: str, name: str, deployment, **args) -> Iterator[str]:
    from ray import serve

    from semcse.core.config import ServeConfig

    app = deployment.options(ray_actor_options=ACTOR_OPTIONS).bind(ServeConfig(api_key_env=KEY_ENV, **args))
    serve.run(app, name=name, route_prefix=f"/{name}")
    try:
        yield f"{serve_base}/{name}"
    finally:
        serve.delete(name)


@pytest.fixture(scope="module")
def corpus(sample_records: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(sample_records)


@pytest.fixture(scope="module")
def encoder(tiny_encoder_dir: Path):
    from semcse.models.encoder import TextEncoder

    return TextEncoder.load(tiny_encoder_dir)


@pytest.fixture(scope="module")
def index_root(tmp_path_factory, corpus, encoder, tiny_encoder_dir: Path) -> Path:
    from semcse.stages.search import build_from_corpus

    root = tmp_path_factory.mktemp("live") / "index"
    from semcse.core.config import EvaluationConfig

    embeddings = str(tmp_path_factory.mktemp("embeddings"))
    index = build_from_corpus(corpus.head(FIRST), str(tiny_encoder_dir), EvaluationConfig(), embeddings, model=encoder)
    versions.publish(root, "build", index.save)
    return root


@pytest.fixture(scope="module")
def search_url(serve_base: str, index_root: Path) -> Iterator[str]:
    from semcse.apps.search import Searcher

    with _deploy(serve_base, "t-live-search", Searcher, index=str(index_root)) as url:
        yield url


class Load:
    """Queries sent back to back from a few threads while the index changes; every answer is recorded."""

    def __init__(self, url: str, body: dict, threads: int = 3) -> None:
        self.url, self.body = url, body
        self.statuses: list[int] = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run) for _ in range(threads)]

    def _run(self) -> None:
        with httpx.Client(headers={"Authorization": f"Bearer {API_KEY}"}, timeout=60) as http:
            while not self.stop.is_set():
                self.statuses.append(http.post(self.url, json=self.body).status_code)

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()


def test_search_moves_to_a_grown_index_without_failing_a_query(
    search_url: str, client: httpx.Client, index_root: Path, corpus: pd.DataFrame, encoder, tiny_encoder_dir: Path
) -> None:
    from semcse.core.data.schema import paper_text
    from semcse.stages.search import SearchIndex

    health = client.get(f"{search_url}/health").json()
    assert (health["papers"], health["version"]) == (FIRST, versions.current(index_root))
    late = corpus.iloc[FIRST:]
    with Load(search_url, {"query": "invasive species on islands", "k": 5}) as load:
        while len(load.statuses) < 5:
            time.sleep(0.05)
        grown = SearchIndex.load(index_root)
        grown.add(late["id"].tolist(), late["title"].tolist(), {"": encoder.encode(paper_text(late).tolist())})
        version, _ = versions.publish(index_root, "add-late", grown.save)
        reloaded = client.post(f"{search_url}/reload").json()
        sent = len(load.statuses)
        while len(load.statuses) < sent + 5:
            time.sleep(0.05)
    assert reloaded == {"version": version, "papers": len(corpus)}
    assert load.statuses and set(load.statuses) == {200}, "no query failed while the index changed"
    newcomer = late.iloc[0]
    by_text = client.post(search_url, json={"query": f"{newcomer['title']} {newcomer['abstract']}", "k": 1}).json()
    assert by_text["results"][0]["id"] == newcomer["id"]
    assert client.post(search_url, json={"id": newcomer["id"], "k": 3}).status_code == 200


def test_search_notices_a_new_version_by_itself_and_survives_a_broken_one(
    search_url: str, client: httpx.Client, index_root: Path
) -> None:
    from semcse.stages.search import SearchIndex

    smaller = SearchIndex.load(index_root)
    gone = str(smaller.papers["id"].iat[0])
    smaller.remove([gone])
    version, _ = versions.publish(index_root, "drop-one", smaller.save)
    deadline = time.time() + 60
    while client.get(f"{search_url}/health").json()["version"] != version:
        assert time.time() < deadline, "the app did not pick up the new version on its own"
        time.sleep(0.5)
    assert client.post(search_url, json={"id": gone}).status_code == 400

    pointer = index_root / versions.POINTER
    good = pointer.read_text()
    pointer.write_text('{"version": "9999-missing"}')
    try:
        broken = client.post(f"{search_url}/reload")
        assert broken.status_code == 503 and "could not be loaded" in broken.json()["error"]["message"]
        assert client.get(f"{search_url}/health").json()["version"] == version, "the old version is still served"
    finally:
        pointer.write_text(good)


def _points(client: httpx.Client, url: str) -> dict[str, tuple[float, float]]:
    """The served layout (by column) as id → position."""
    layout = client.get(f"{url}/points").json()
    return {i: (x, y) for i, x, y in zip(layout["ids"], layout["x"], layout["y"])}


def test_map_moves_to_a_grown_map_and_keeps_every_old_point(
    serve_base: str, client: httpx.Client, tmp_path: Path, corpus: pd.DataFrame, encoder, tiny_encoder_dir: Path
) -> None:
    from semcse.apps.map import MapExplorer
    from semcse.core.data.schema import paper_text
    from semcse.stages.maps import SemanticMap, layout

    first, late = corpus.head(FIRST), corpus.iloc[FIRST:]
    root = tmp_path / "map"
    vectors = encoder.encode(paper_text(first).tolist())
    versions.publish(root, "build", layout(first["id"].tolist(), vectors, perplexity=5, iterations=100).save)
    with _deploy(serve_base, "t-live-map", MapExplorer, map=str(root), encoder=str(tiny_encoder_dir)) as url:
        before = _points(client, url)
        with Load(f"{url}/place", {"text": "rats on islands"}) as load:
            while len(load.statuses) < 3:
                time.sleep(0.05)
            saved = SemanticMap.load(root)
            new_vectors = encoder.encode(paper_text(late).tolist())
            grown = saved.append(late["id"].tolist(), new_vectors, saved.place(new_vectors))
            version, _ = versions.publish(root, "add-late", grown.save)
            assert client.post(f"{url}/reload").json() == {"version": version, "points": len(corpus)}
        assert load.statuses and set(load.statuses) == {200}
        after = _points(client, url)
        assert len(after) == len(corpus)
        np.testing.assert_allclose([after[i] for i in before], [before[i] for i in before], rtol=0, atol=1e-9)
        assert client.get(f"{url}/health").json()["points"] == len(corpus)
