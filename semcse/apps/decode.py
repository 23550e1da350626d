"""`decode`: embedding → text with the trained decoder of that embedding's aspect (`POST /decode`).

Decoders are a few megabytes on top of their base LM, so one replica holds every configured aspect's
decoder; generation runs in a worker thread so health checks stay responsive while it works.
"""

# No `from __future__ import annotations`: FastAPI needs the real request-model classes (see embed.py).
import asyncio
from typing import Any

from pydantic import Field
from ray import serve
from ray.serve.deployment import Application

from semcse.apps.common import ApiError, RequestBody, bad_request, configure, create_api, required, settings_from
from semcse.core.config import ServeConfig

api = create_api("semcse decode")


class DecodeRequest(RequestBody):
    embedding: list[float] = Field(min_length=1)
    aspect: str | None = None


class Decoders:
    """The decoders of one app, by aspect; shared by the decode and map apps."""

    def __init__(self, settings: ServeConfig, app: str) -> None:
        from semcse.models.decoder import EmbeddingDecoder

        self.settings = settings
        refs = required(settings, "decoders", app)
        self.by_aspect = {aspect: EmbeddingDecoder.load(ref) for aspect, ref in refs.items()}

    def pick(self, aspect: str | None) -> str:
        if aspect is None and len(self.by_aspect) == 1:
            return next(iter(self.by_aspect))
        if aspect is None or aspect not in self.by_aspect:
            raise ApiError(400, f"no decoder for aspect {aspect!r}; this service decodes {sorted(self.by_aspect)}")
        return aspect

    def dim(self, aspect: str) -> int:
        return self.by_aspect[aspect].spec.embedding_dim

    async def decode(self, aspect: str, embedding: Any) -> str:
        decoder = self.by_aspect[aspect]
        with bad_request(ValueError):
            vectors = decoder.check_embeddings(embedding)
        settings = self.settings
        texts = await asyncio.to_thread(
            decoder.decode, vectors, max_new_tokens=settings.max_new_tokens, temperature=settings.temperature, seed=0
        )
        return texts[0]


@serve.deployment
@serve.ingress(api)
class Decoder:
    def __init__(self, settings: ServeConfig) -> None:
        configure(api, settings)
        self.decoders = Decoders(settings, "decode")

    @api.post("/")
    async def decode(self, body: DecodeRequest) -> dict[str, Any]:
        aspect = self.decoders.pick(body.aspect)
        return {"aspect": aspect, "text": await self.decoders.decode(aspect, body.embedding)}

    @api.get("/health")
    async def health(self) -> dict[str, Any]:
        return {"status": "ok", "aspects": {a: self.decoders.dim(a) for a in self.decoders.by_aspect}}

    async def check_health(self) -> None:
        """Serve's periodic probe: every configured aspect still has its decoder."""
        if not self.decoders.by_aspect:
            raise RuntimeError("no decoder is loaded")


def app(args: dict[str, Any]) -> Application:
    """Builder for `serve deploy` / `semcse serve`: needs `decoders` ({aspect: ref}, or one ref)."""
    return Decoder.bind(  # type: ignore[attr-defined]  # @serve.deployment made it a Deployment
        settings_from(args)
    )
