"""The embeddings app over real HTTP: OpenAI compatibility, limits, API key, batching under a burst."""

from __future__ import annotations

import base64
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import pytest

from tests.fixtures.serving import API_KEY
from tests.paths import REPO

TEXTS = ["Graph neural networks for molecules.", "A short one.", "Coral reef bleaching under heat stress events."]


def test_openai_client_returns_the_library_vectors(embed_url: str, tiny_encoder_dir: Path) -> None:
    from openai import OpenAI

    from semcse.models.encoder import TextEncoder

    client = OpenAI(base_url=f"{embed_url}/v1", api_key=API_KEY)
    response = client.embeddings.create(model="semcse-encoder", input=TEXTS)
    served = np.array([item.embedding for item in sorted(response.data, key=lambda d: d.index)])
    expected = TextEncoder.load(tiny_encoder_dir).encode(TEXTS)
    np.testing.assert_allclose(served, expected, rtol=1e-4, atol=1e-5)
    assert response.usage.prompt_tokens > len(TEXTS)
    short = client.embeddings.create(model="semcse-encoder", input=TEXTS[0], dimensions=8)
    np.testing.assert_allclose(short.data[0].embedding, expected[0, :8], rtol=1e-4, atol=1e-5)
    # the client asks for base64 unless told otherwise; floats must give the same vectors
    floats = client.embeddings.create(model="semcse-encoder", input=TEXTS, encoding_format="float")
    np.testing.assert_allclose([item.embedding for item in floats.data], expected, rtol=1e-4, atol=1e-5)
    from openai import BadRequestError

    with pytest.raises(BadRequestError, match="token ids is not supported"):
        client.embeddings.create(model="semcse-encoder", input=[[101, 2023, 102]])


def test_texts_dealt_out_to_lanes_come_back_in_input_order(
    embed_url: str, client: httpx.Client, tiny_encoder_dir: Path
) -> None:
    """The app has three lanes: eleven texts of mixed lengths (one repeated) are split three ways by length."""
    from semcse.models.encoder import TextEncoder

    texts = [f"{'long ' * (n * 7 % 11)}text number {n}" for n in range(10)] + ["text number 3"]
    body = client.post(f"{embed_url}/v1/embeddings", json={"input": texts, "encoding_format": "float"}).json()
    served = np.array([item["embedding"] for item in body["data"]])
    expected = TextEncoder.load(tiny_encoder_dir).encode(texts)
    np.testing.assert_allclose(served, expected, rtol=1e-4, atol=1e-5)


def test_float_format_models_and_health(embed_url: str, client: httpx.Client, tiny_encoder_dir: Path) -> None:
    body = client.post(f"{embed_url}/v1/embeddings", json={"input": TEXTS, "encoding_format": "float"}).json()
    assert [item["index"] for item in body["data"]] == [0, 1, 2]
    assert {item["aspect"] for item in body["data"]} == {""}
    same = client.post(f"{embed_url}/v1/embeddings", json={"input": TEXTS[1], "aspects": [""]}).json()
    np.testing.assert_allclose(same["data"][0]["embedding"], body["data"][1]["embedding"], rtol=1e-5)
    # floats are written at float32's shortest digits: they read back as exactly the base64 float32 bits
    packed = client.post(f"{embed_url}/v1/embeddings", json={"input": TEXTS, "encoding_format": "base64"}).json()
    exact = np.stack([np.frombuffer(base64.b64decode(item["embedding"]), dtype="<f4") for item in packed["data"]])
    np.testing.assert_array_equal(np.array([item["embedding"] for item in body["data"]], dtype=np.float32), exact)
    models = client.get(f"{embed_url}/v1/models").json()["data"]
    assert models[0]["id"] == "semcse-encoder" and models[0]["aspects"] == [""]
    health = httpx.get(f"{embed_url}/health").json()  # no key needed
    assert health["status"] == "ok" and len(health["node"]) == 56, health


@pytest.mark.parametrize(
    ("payload", "status", "words"),
    [
        ({"input": []}, 400, "empty"),
        ({"input": ""}, 400, "empty"),
        ({"input": ["x"] * 10_000}, 400, "limit is 64"),
        ({"input": "a" * 1_000_000}, 400, "limit is 2,000"),
        ({"input": "a", "dimensions": 4096}, 400, "dimensions"),
        ({"input": "a", "aspects": ["species"]}, 400, "unknown aspect"),
        ({"input": "a", "model": "gpt-9"}, 404, "not served"),
        ({"input": [1, 2, 3]}, 400, "token ids is not supported"),
        ({"input": [[1, 2], [3]]}, 400, "send the text itself"),
        ({"input": ["a", 1]}, 422, "input"),
        ({"inputs": "a"}, 422, "input"),
        ({"input": "a", "encoding_format": "int8"}, 422, "encoding_format"),
    ],
)
def test_bad_requests_get_a_4xx_with_a_message(embed_url, client, payload, status, words) -> None:
    response = client.post(f"{embed_url}/v1/embeddings", json=payload)
    assert response.status_code == status, response.text
    assert words in response.json()["error"]["message"]


def test_malformed_json_oversize_body_and_api_key(embed_url: str, client: httpx.Client) -> None:
    url = f"{embed_url}/v1/embeddings"
    broken = client.post(url, content=b'{"input": ["a",', headers={"Content-Type": "application/json"})
    assert broken.status_code == 400 and "malformed JSON" in broken.json()["error"]["message"]
    huge = client.post(url, content=b"x" * 9_000_000, headers={"Content-Type": "application/json"})
    assert huge.status_code == 413 and "limit" in huge.json()["error"]["message"]
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"X-API-Key": "wrong"}):
        denied = httpx.post(url, json={"input": "a"}, headers=headers, timeout=30)
        assert denied.status_code == 401 and "API key" in denied.json()["error"]["message"]
    assert httpx.get(f"{embed_url}/v1/models", headers={"X-API-Key": API_KEY}, timeout=30).status_code == 200


def test_a_burst_of_concurrent_requests_has_no_5xx(embed_url: str, client: httpx.Client) -> None:
    def one(i: int) -> tuple[int, int]:
        texts = [f"request {i} text {j} " * (1 + (i + j) % 7) for j in range(1 + i % 4)]
        response = client.post(f"{embed_url}/v1/embeddings", json={"input": texts})
        return response.status_code, len(response.json().get("data", [])) - len(texts)

    with ThreadPoolExecutor(max_workers=16) as pool:
        outcomes = list(pool.map(one, range(50)))
    assert outcomes == [(200, 0)] * 50


def test_replicas_use_a_gpu_only_when_they_have_one(tiny_encoder_dir: Path) -> None:
    import torch

    from semcse.apps.common import place_model
    from semcse.core.config import ServeConfig
    from semcse.models.encoder import TextEncoder

    model = TextEncoder.load(tiny_encoder_dir)
    placed = place_model(model, ServeConfig(dtype="float16"))
    if not torch.cuda.is_available():  # CPU replicas stay float32 whatever dtype asks for
        assert next(placed.parameters()).dtype == torch.float32
        with pytest.raises(RuntimeError, match="num_gpus"):
            place_model(model, ServeConfig(device="cuda"))
    else:
        assert next(placed.parameters()).dtype == torch.float16 and next(placed.parameters()).is_cuda


def test_the_serving_guide_client_snippet_works_against_a_directory_served_encoder(embed_url: str) -> None:
    """docs/serve.md serves `--encoder runs/…` (a directory) and its client asks for the registered name."""
    import re

    guide = (REPO / "docs" / "serve.md").read_text()
    assert re.search(r"semcse serve --app embed .*--encoder runs/", guide)
    snippet = re.search(r"```python\n(from openai import OpenAI\n.*?)```", guide, re.S).group(1)
    code = snippet.replace('"http://localhost:8000/v1", api_key="none"', f'"{embed_url}/v1", api_key="{API_KEY}"')
    assert code != snippet, "docs/serve.md's client snippet changed; update this test's substitution"
    namespace: dict = {}
    exec(code, namespace)
    assert len(namespace["vectors"]) == 1 and len(namespace["vectors"][0].embedding) > 0
