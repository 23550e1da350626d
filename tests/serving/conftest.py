"""Serve apps on the session Ray cluster: Serve starts once on a free loopback port, each app once.

Apps run with tiny models, zero logical CPUs (so they never starve the other tests' actors), and an
API key handed to the replicas through their runtime environment.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

API_KEY = "test-key-0123"
KEY_ENV = "SEMCSE_TEST_API_KEY"
ACTOR_OPTIONS = {"num_cpus": 0, "runtime_env": {"env_vars": {KEY_ENV: API_KEY}}}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def serve_base(ray_cluster) -> Iterator[str]:
    from ray import serve

    port = free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    yield f"http://127.0.0.1:{port}"
    serve.shutdown()


@pytest.fixture(scope="session")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(headers={"Authorization": f"Bearer {API_KEY}"}, timeout=120) as http:
        yield http


@pytest.fixture(scope="session")
def search_dir(tmp_path_factory: pytest.TempPathFactory, tiny_encoder_dir: Path, sample_records: list[dict]) -> Path:
    import pandas as pd
    from semcse.models.encoder import TextEncoder
    from semcse.search import build_from_corpus

    corpus = pd.DataFrame(sample_records)
    index = build_from_corpus(corpus, str(tiny_encoder_dir), TextEncoder.load(tiny_encoder_dir))
    return index.save(tmp_path_factory.mktemp("search"))


@pytest.fixture(scope="session")
def decoder_dir(tmp_path_factory: pytest.TempPathFactory, tiny_encoder_dir: Path, tiny_causal_lm_dir: Path) -> Path:
    """An untrained decoder: its texts are gibberish, but the service path is the real one."""
    from semcse.models.decoder import EmbeddingDecoder
    from semcse.models.encoder import TextEncoder

    dim = TextEncoder.load(tiny_encoder_dir).dim
    return EmbeddingDecoder.create(tiny_causal_lm_dir, dim, hidden_dim=16).save(tmp_path_factory.mktemp("decoder"))


@pytest.fixture(scope="session")
def map_dir(tmp_path_factory: pytest.TempPathFactory, tiny_encoder_dir: Path, sample_records: list[dict]) -> Path:
    from semcse.maps import layout
    from semcse.models.encoder import TextEncoder

    texts = [f"{r['title']} {r['abstract']}" for r in sample_records]
    vectors = TextEncoder.load(tiny_encoder_dir).encode(texts)
    labels = [r["topic"] for r in sample_records]
    semantic_map = layout([r["id"] for r in sample_records], vectors, labels=labels, perplexity=8, iterations=150)
    return semantic_map.save(tmp_path_factory.mktemp("map"))


@pytest.fixture(scope="session")
def apps(
    serve_base: str, tiny_encoder_dir: Path, search_dir: Path, decoder_dir: Path, map_dir: Path
) -> dict[str, str]:
    """All four apps and a map without a decoder, deployed together (replicas start in parallel); name → URL."""
    from ray import serve
    from semcse.config import ServeConfig

    from serve_apps.decode import Decoder
    from serve_apps.embed import Embedder
    from serve_apps.map import MapExplorer
    from serve_apps.search import Searcher

    encoder = str(tiny_encoder_dir)
    settings = {
        "t-embed": (Embedder, {"encoder": encoder, "max_items": 64, "max_chars": 2000}),
        "t-search": (Searcher, {"index": str(search_dir), "max_k": 20}),
        "t-decode": (Decoder, {"decoders": str(decoder_dir), "max_new_tokens": 8}),
        "t-map": (
            MapExplorer,
            {
                "map": str(map_dir),
                "encoder": encoder,
                "decoders": str(decoder_dir),
                "max_new_tokens": 8,
                "layout_iterations": 100,
            },
        ),
        # what `semcse serve --app map` deploys before any decoder exists
        "t-bare-map": (MapExplorer, {"map": str(map_dir), "encoder": encoder, "layout_iterations": 100}),
    }
    targets = [
        serve.RunTarget(
            deployment.options(ray_actor_options=ACTOR_OPTIONS).bind(ServeConfig(api_key_env=KEY_ENV, **args)),
            name=name,
            route_prefix=f"/{name}",
        )
        for name, (deployment, args) in settings.items()
    ]
    serve.run_many(targets)
    return {name.removeprefix("t-"): f"{serve_base}/{name}" for name in settings}


@pytest.fixture(scope="session")
def embed_url(apps: dict[str, str]) -> str:
    return apps["embed"]
