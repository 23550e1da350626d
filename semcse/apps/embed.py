"""`embed`: an OpenAI-compatible embeddings API (`POST /v1/embeddings`, `GET /v1/models`, `GET /health`).

Texts from concurrent requests are pooled by `serve.batch` (size and wait from the app's args)
and each pooled batch is encoded at once; `TextEncoder.encode` sorts texts by length so short ones
are not padded to the longest. Forward passes run in worker threads ("lanes") so the replica keeps
accepting requests — and filling the next batch — while the model works. On a CPU each pooled
batch is dealt out to one single-threaded lane per torch thread (`encode_lanes`): the lanes meet
once per batch, where one multi-threaded pass waits at every operator's barrier for whichever of
its threads the OS preempted.

Beyond OpenAI: `aspects` picks the aspect vectors of a multi-aspect model (each returned item
names its `aspect`; items are ordered input-major). Single-vector models accept no aspects or `[""]`.
"""

# No `from __future__ import annotations` here: FastAPI must see the real request-model classes on the
# methods of a Serve ingress class (string annotations there are not resolved and become query params).
import asyncio
import base64
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import numpy as np
from fastapi.responses import Response
from pydantic import Field
from ray import serve
from ray.serve.deployment import Application

from semcse.apps.common import (
    ApiError,
    RequestBody,
    configure,
    create_api,
    encode_lanes,
    json_body,
    model_id,
    node_id,
    place_model,
    required,
    set_torch_threads,
    settings_from,
)
from semcse.core.config import ServeConfig

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


def encode_vector(vector: np.ndarray, encoding_format: str) -> np.ndarray | str:
    """The vector as sent: little-endian float32 bytes in base64, or the float32 array for `json_body` to write."""
    if encoding_format == "base64":
        return base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
    return np.ascontiguousarray(vector, dtype=np.float32)


def deal_by_length(texts: list[str], hands: int) -> list[list[int]]:
    """Indices of `texts` dealt round-robin in order of length into at most `hands` shares of equal work."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
    return [order[k::hands] for k in range(min(hands, len(texts)))]


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
        self.lanes = encode_lanes(settings, on_gpu=next(self.model.parameters()).is_cuda)
        # One pass before the lanes exist: the fast tokenizer stores its truncation setting on the
        # first call, and two lanes making that first call at once would collide ("Already borrowed").
        self._encode(["warm-up"], self.aspects)
        self._lane_threads = ThreadPoolExecutor(self.lanes, thread_name_prefix="encode")
        self._pooled = serve.batch(
            max_batch_size=settings.max_batch_size, batch_wait_timeout_s=settings.batch_wait_timeout_s
        )(self._encode_pooled)

    def _encode(self, texts: list[str], aspects: list[str]) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Each aspect's vectors of `texts`, and each text's token count after truncation."""
        batch = self.settings.inference_batch_size
        if aspects == [""]:
            single, tokens = self.model.encode_counted(texts, batch_size=batch)
            return {"": single}, tokens
        return self.model.encode_counted(texts, aspects=aspects, batch_size=batch)

    async def _encode_pooled(self, items: list[tuple[str, str]]) -> list[tuple[np.ndarray, int]]:
        """(vector, tokens after truncation) per (text, aspect) pair, pooled from any number of requests.

        The pooled texts are dealt out to the lanes by length, so every lane gets as much work and
        the batch is done when they all are; the event loop stays free meanwhile.
        """
        texts = list(dict.fromkeys(text for text, _ in items))
        aspects = list(dict.fromkeys(aspect for _, aspect in items))
        shares = deal_by_length(texts, self.lanes)
        loop = asyncio.get_running_loop()
        done = await asyncio.gather(
            *(
                loop.run_in_executor(self._lane_threads, self._encode, [texts[i] for i in share], aspects)
                for share in shares
            )
        )
        where = {texts[i]: (lane, j) for lane, share in enumerate(shares) for j, i in enumerate(share)}
        out = []
        for text, aspect in items:
            lane, j = where[text]
            vectors, tokens = done[lane]
            out.append((np.asarray(vectors[aspect][j], dtype=np.float32), int(tokens[j])))
        return out

    @api.post("/v1/embeddings")
    async def embeddings(self, body: EmbeddingRequest) -> Response:
        if body.model is not None and body.model != self.name:
            raise ApiError(404, f"model {body.model!r} is not served here; this server serves {self.name!r}")
        given = [body.input] if isinstance(body.input, str) else body.input
        texts = [text for text in given if isinstance(text, str)]
        if len(texts) != len(given):
            raise ApiError(400, TOKEN_IDS_REFUSED)
        check_texts(texts, self.settings)
        aspects = choose_aspects(body.aspects, self.aspects)
        if body.dimensions is not None and body.dimensions > self.model.dim:
            raise ApiError(
                400, f"dimensions={body.dimensions} but this model's vectors have {self.model.dim} dimensions"
            )
        keep = body.dimensions or self.model.dim
        results = await asyncio.gather(*(self._pooled((text, a)) for text in texts for a in aspects))
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
        return {"status": "ok", "node": node_id()}

    async def check_health(self) -> None:
        """Serve's periodic probe: one short text through a lane must come back as finite vectors.

        A wedged lane pool or a broken device (a CUDA error) fails here, and Serve replaces the replica.
        """
        loop = asyncio.get_running_loop()
        vectors, _ = await loop.run_in_executor(self._lane_threads, self._encode, ["health"], self.aspects)
        if not all(np.isfinite(v).all() for v in vectors.values()):
            raise RuntimeError("the model returned non-finite vectors for a health probe")


def app(args: dict[str, Any]) -> Application:
    """Builder for `serve deploy` / `semcse serve`: args are ServeConfig fields."""
    return Embedder.bind(  # type: ignore[attr-defined]  # @serve.deployment made it a Deployment
        settings_from(args)
    )
