"""`embed`: an OpenAI-compatible embeddings API (`POST /v1/embeddings`, `GET /v1/models`, `GET /health`).

Texts from concurrent requests are pooled by `@serve.batch` (size and wait from the app's args)
and each pooled batch is encoded in one forward pass; `TextEncoder.encode` sorts a batch by length
so short texts are not padded to the longest. The forward pass runs in a worker thread so the
replica keeps accepting requests — and filling the next batch — while the model works.

Beyond OpenAI: `aspects` picks the aspect vectors of a multi-aspect model (each returned item
names its `aspect`; items are ordered input-major). Single-vector models accept no aspects or `[""]`.
"""

# No `from __future__ import annotations` here: FastAPI must see the real request-model classes on the
# methods of a Serve ingress class (string annotations there are not resolved and become query params).
import asyncio
import base64
from typing import Any, Literal

import numpy as np
from fastapi.responses import Response
from pydantic import Field
from ray import serve
from ray.serve.deployment import Application
from semcse.config import ServeConfig

from serve_apps.common import (
    ApiError,
    RequestBody,
    configure,
    create_api,
    json_body,
    model_id,
    place_model,
    required,
    set_torch_threads,
    settings_from,
)

api = create_api("semcse embeddings")


# OpenAI's API also takes token ids, and some clients send them by default (LangChain's
# OpenAIEmbeddings tokenizes with tiktoken first). Those ids belong to another tokenizer: read with
# ours they would be other words, so they are refused with the way out instead of embedded wrongly.
TOKEN_IDS_REFUSED = (
    "input as token ids is not supported: this server tokenizes text with its own model's tokenizer, and ids "
    "from another tokenizer (e.g. tiktoken's) would embed the wrong words; send the text itself "
    "(LangChain: OpenAIEmbeddings(check_embedding_ctx_length=False))"
)


class EmbeddingRequest(RequestBody):
    """The OpenAI request body, plus `aspects`; unknown fields are refused so typos do not pass silently."""

    input: str | list[str] | list[int] | list[list[int]]
    model: str | None = None
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(None, gt=0)
    aspects: list[str] | None = None
    user: str | None = None


def check_texts(texts: list[str], settings: ServeConfig) -> None:
    """Refuse empty inputs and inputs over the item/character limits, naming the offending item."""
    if not texts:
        raise ApiError(400, "input is empty: send a string or a non-empty list of strings")
    if len(texts) > settings.max_items:
        raise ApiError(400, f"input has {len(texts):,} items; the limit is {settings.max_items:,} per request")
    for i, text in enumerate(texts):
        if not text.strip():
            raise ApiError(400, f"input[{i}] is empty or whitespace only")
        if len(text) > settings.max_chars:
            raise ApiError(400, f"input[{i}] has {len(text):,} characters; the limit is {settings.max_chars:,}")


def choose_aspects(requested: list[str] | None, available: list[str]) -> list[str]:
    """The aspects to return: all of the model's when none are asked for, else the asked ones, in order."""
    if not requested or requested == [""]:
        return available
    unknown = [a for a in requested if a not in available]
    if unknown:
        have = 'a single vector per text: send no aspects (or [""])' if available == [""] else f"aspects {available}"
        raise ApiError(400, f"unknown aspect(s) {unknown}; this model has {have}")
    return list(dict.fromkeys(requested))


def encode_vector(vector: np.ndarray, encoding_format: str) -> list[float] | str:
    if encoding_format == "base64":
        return base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
    return vector.tolist()


@serve.deployment
@serve.ingress(api)
class Embedder:
    """One replica: one model, one batching queue."""

    def __init__(self, settings: ServeConfig) -> None:
        from semcse.models.aspects import aspects_of
        from semcse.models.unified import load_encoder

        configure(api, settings)
        set_torch_threads(settings)
        self.settings = settings
        ref = required(settings, "encoder", "embed")
        self.model = place_model(load_encoder(ref), settings)
        self.name = settings.model_name or model_id(ref)
        self.aspects = aspects_of(self.model)
        self._batched.set_max_batch_size(settings.max_batch_size)
        self._batched.set_batch_wait_timeout_s(settings.batch_wait_timeout_s)

    def _encode(self, items: list[tuple[str, str]]) -> list[tuple[np.ndarray, int]]:
        """(vector, tokens after truncation) per (text, aspect); one forward pass for the whole batch."""
        texts = list(dict.fromkeys(text for text, _ in items))
        row = {text: i for i, text in enumerate(texts)}
        aspects = list(dict.fromkeys(aspect for _, aspect in items))
        batch = self.settings.inference_batch_size
        if aspects == [""]:
            single, tokens = self.model.encode_counted(texts, batch_size=batch)
            vectors = {"": single}
        else:
            vectors, tokens = self.model.encode_counted(texts, aspects=aspects, batch_size=batch)
        return [(np.asarray(vectors[a][row[t]], dtype=np.float32), int(tokens[row[t]])) for t, a in items]

    @serve.batch(max_batch_size=32, batch_wait_timeout_s=0.01)
    async def _batched(self, items: list[tuple[str, str]]) -> list[tuple[np.ndarray, int]]:
        """(text, aspect) pairs from any number of requests, encoded off the event loop."""
        return await asyncio.to_thread(self._encode, items)

    @api.post("/v1/embeddings")
    async def embeddings(self, body: EmbeddingRequest) -> Response:
        if body.model is not None and body.model != self.name:
            raise ApiError(404, f"model {body.model!r} is not served here; this server serves {self.name!r}")
        texts = [body.input] if isinstance(body.input, str) else body.input
        if any(not isinstance(text, str) for text in texts):
            raise ApiError(400, TOKEN_IDS_REFUSED)
        check_texts(texts, self.settings)
        aspects = choose_aspects(body.aspects, self.aspects)
        if body.dimensions is not None and body.dimensions > self.model.dim:
            raise ApiError(
                400, f"dimensions={body.dimensions} but this model's vectors have {self.model.dim} dimensions"
            )
        keep = body.dimensions or self.model.dim
        results = await asyncio.gather(*(self._batched((text, a)) for text in texts for a in aspects))
        data = [
            {
                "object": "embedding",
                "index": n // len(aspects),
                "aspect": aspects[n % len(aspects)],
                "embedding": encode_vector(vector[:keep], body.encoding_format),
            }
            for n, (vector, _) in enumerate(results)
        ]
        tokens = sum(count for _, count in results[:: len(aspects)])
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return json_body({"object": "list", "data": data, "model": self.name, "usage": usage})

    @api.get("/v1/models")
    async def models(self) -> dict[str, Any]:
        entry = {"id": self.name, "object": "model", "created": 0, "owned_by": "semcse"}
        return {"object": "list", "data": [entry | {"dimensions": self.model.dim, "aspects": self.aspects}]}

    @api.get("/health")
    async def health(self) -> dict[str, str]:
        return {"status": "ok"}


def app(args: dict[str, Any]) -> Application:
    """Builder for `serve deploy` / `semcse serve`: args are ServeConfig fields."""
    return Embedder.bind(settings_from(args))
