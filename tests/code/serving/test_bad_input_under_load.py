"""Every route of every app, valid and invalid requests mixed in one concurrent burst: each gets its own answer.

Bad input (empty, oversize, wrong types, non-finite numbers, unknown aspect, wrong dimensions, wrong
or missing key, malformed or non-object bodies) must be answered with the 4xx it gets when sent
alone and a message, while valid requests beside it still succeed, and nothing is a 5xx.
"""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.fixtures.serving import API_KEY

NAN, INF = float("nan"), float("inf")


@dataclass(frozen=True)
class Call:
    method: str
    path: str  # appended to the app's URL
    status: int
    json: Any = None
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=lambda: {"Authorization": f"Bearer {API_KEY}"})


NO_KEY: dict[str, str] = {}
WRONG_KEY = {"X-API-Key": "not-the-key"}
JSON = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}


def embed_calls() -> list[Call]:
    url = "/v1/embeddings"
    return [
        Call("POST", url, 200, {"input": ["coral reefs", "graph networks for molecules"]}),
        Call("POST", url, 200, {"input": "one text", "dimensions": 4, "encoding_format": "base64"}),
        Call("GET", "/v1/models", 200),
        Call("GET", "/health", 200, headers=NO_KEY),
        Call("POST", url, 400, {"input": []}),
        Call("POST", url, 400, {"input": "   "}),
        Call("POST", url, 400, {"input": ["x"] * 65}),
        Call("POST", url, 400, {"input": "a" * 2001}),
        Call("POST", url, 400, {"input": "a", "aspects": ["species"]}),
        Call("POST", url, 400, {"input": "a", "dimensions": 4096}),
        Call("POST", url, 400, {"input": [101, 2023]}),
        Call("POST", url, 404, {"input": "a", "model": "gpt-9"}),
        Call("POST", url, 422, {"input": 5}),
        Call("POST", url, 422, {"input": {"text": "a"}}),
        Call("POST", url, 422, {"input": "a", "dimensions": 0}),
        Call("POST", url, 422, {"input": "a", "dimensions": NAN}),
        Call("POST", url, 422, {"input": "a", "dimensions": 2.5}),
        Call("POST", url, 422, {"input": [["a"]]}),
        Call("POST", url, 422, {"input": "a", "encoding_format": "int8"}),
        Call("POST", url, 422, {"input": "a", "colour": "blue"}),
        Call("POST", url, 422, ["a", "b"]),
        Call("POST", url, 400, content=b'{"input": ["a",', headers=JSON),
        Call("POST", url, 413, content=b"x" * 9_000_000, headers=JSON),
        Call("POST", url, 401, {"input": "a"}, headers=NO_KEY),
        Call("POST", url, 401, {"input": "a"}, headers=WRONG_KEY),
        Call("GET", "/v1/models", 401, headers=WRONG_KEY),
        Call("POST", "/v1/models", 405),
        Call("GET", "/v1/nowhere", 404),
    ]


def search_calls(paper_id: str) -> list[Call]:
    return [
        Call("POST", "", 200, {"query": "coral reef bleaching", "k": 3}),
        Call("POST", "", 200, {"id": paper_id, "k": 2, "weights": {"": 1.0}}),
        Call("GET", "/health", 200, headers=NO_KEY),
        Call("POST", "", 400, {"id": "no-such-paper"}),
        Call("POST", "", 400, {"query": "x", "k": 500}),
        Call("POST", "", 400, {"query": "x" * 20_001}),
        Call("POST", "", 400, {"query": "x", "weights": {"species": 1}}),
        Call("POST", "", 400, {"query": "x", "weights": {"": -1}}),
        Call("POST", "", 400, {"query": "x", "weights": {"": 0}}),
        Call("POST", "", 422, {"query": "x", "weights": {"": NAN}}),
        Call("POST", "", 422, {"query": "x", "weights": {"": INF}}),
        Call("POST", "", 422, {"query": "x", "weights": {"": "heavy"}}),
        Call("POST", "", 422, {"query": ""}),
        Call("POST", "", 422, {"query": 7}),
        Call("POST", "", 422, {"query": "x", "id": paper_id}),
        Call("POST", "", 422, {"k": 3}),
        Call("POST", "", 422, {"query": "x", "k": 0}),
        Call("POST", "", 422, {"query": "x", "k": 2.5}),
        Call("POST", "", 401, {"query": "x"}, headers=NO_KEY),
        Call("POST", "", 401, {"query": "x"}, headers=WRONG_KEY),
    ]


def decode_calls(vector: list[float]) -> list[Call]:
    return [
        Call("POST", "", 200, {"embedding": vector}),
        Call("GET", "/health", 200, headers=NO_KEY),
        Call("POST", "", 400, {"embedding": vector + [0.0]}),
        Call("POST", "", 400, {"embedding": vector[:-1]}),
        Call("POST", "", 400, {"embedding": vector, "aspect": "species"}),
        Call("POST", "", 422, {"embedding": [NAN] * len(vector)}),
        Call("POST", "", 422, {"embedding": [INF] + vector[1:]}),
        Call("POST", "", 422, {"embedding": []}),
        Call("POST", "", 422, {"embedding": ["a"] * len(vector)}),
        Call("POST", "", 422, {"embedding": [vector]}),
        Call("POST", "", 422, {"vector": vector}),
        Call("POST", "", 401, {"embedding": vector}, headers=NO_KEY),
    ]


def map_calls(text: str) -> list[Call]:
    return [
        Call("GET", "/points", 200),
        Call("POST", "/layout", 200, {"weights": {"": 0.5}}),
        Call("POST", "/place", 200, {"text": text}),
        Call("POST", "/explain", 200, {"x": 0.0, "y": 0.0}),
        Call("GET", "/health", 200, headers=NO_KEY),
        Call("POST", "/place", 422, {"text": ""}),
        Call("POST", "/place", 400, {"text": "a" * 20_001}),
        Call("POST", "/place", 400, {"text": "abc", "weights": {"species": 1}}),
        Call("POST", "/place", 422, {"text": "abc", "weights": {"": NAN}}),
        Call("POST", "/place", 422, {"text": ["abc"]}),
        Call("POST", "/explain", 400, {"x": 1e6, "y": 0.0}),
        Call("POST", "/explain", 422, {"x": NAN, "y": 0.0}),
        Call("POST", "/explain", 422, {"x": INF, "y": 0.0}),
        Call("POST", "/explain", 422, {"x": "left", "y": 0.0}),
        Call("POST", "/explain", 422, {"x": 0.0}),
        Call("POST", "/layout", 400, {"weights": {"species": 1}}),
        Call("POST", "/layout", 400, {"weights": {"": -1}}),
        Call("POST", "/layout", 422, {"weights": [1, 2]}),
        Call("GET", "/points", 401, headers=NO_KEY),
        Call("POST", "/layout", 401, {"weights": {"": 1}}, headers=WRONG_KEY),
    ]


def send(http: httpx.Client, base: str, call: Call) -> httpx.Response:
    """Bodies are serialised by hand: httpx refuses NaN and Infinity, which a client can still send."""
    if call.json is None:
        return http.request(call.method, base + call.path, content=call.content, headers=call.headers)
    body = json.dumps(call.json).encode()
    headers = call.headers | {"Content-Type": "application/json"}
    return http.request(call.method, base + call.path, content=body, headers=headers)


def verdict(call: Call, response: httpx.Response) -> str | None:
    """Why this answer is wrong (None when it is right): the status, and a message with every 4xx."""
    if response.status_code != call.status:
        return f"expected {call.status}, got {response.status_code}: {response.text[:200]}"
    if call.status >= 400:
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            return f"{call.status} without an error message: {response.text[:200]}"
        if not isinstance(message, str) or not message.strip():
            return f"{call.status} with an empty message"
    return None


def test_a_mixed_burst_of_good_and_bad_requests_to_every_route_gets_no_5xx(
    apps: dict[str, str], sample_records: list[dict], tiny_encoder_dir: Path
) -> None:
    from semcse.models.encoder import TextEncoder

    vector = TextEncoder.load(tiny_encoder_dir).encode(["coral reefs"])[0].tolist()
    calls = (
        [(apps["embed"], c) for c in embed_calls()]
        + [(apps["search"], c) for c in search_calls(sample_records[0]["id"])]
        + [(apps["decode"], c) for c in decode_calls(vector)]
        + [(apps["map"], c) for c in map_calls(sample_records[1]["abstract"])]
    )
    burst = calls * 2
    random.Random(0).shuffle(burst)
    with httpx.Client(timeout=120) as http, ThreadPoolExecutor(max_workers=24) as pool:
        responses = list(pool.map(lambda item: send(http, *item), burst))
    wrong = [
        f"{call.method} {base.rsplit('/', 1)[-1]}{call.path} {str(call.json or call.content)[:60]}: {why}"
        for (base, call), response in zip(burst, responses)
        if (why := verdict(call, response))
    ]
    server_errors = [r.status_code for r in responses if r.status_code >= 500]
    assert not wrong, f"{len(wrong)} of {len(burst)} answers wrong ({len(server_errors)} 5xx):\n" + "\n".join(wrong)
    assert {c.status for _, c in calls} >= {200, 400, 401, 404, 405, 413, 422}
