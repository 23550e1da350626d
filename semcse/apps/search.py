"""`search`: aspect-weighted nearest papers, by a query text or by a paper id (`POST /search`).

The index directory comes from `semcse index build` or the pipeline; query texts are embedded with
the model the index was built with (the app's `encoder` arg overrides it, e.g. to point at a local
copy). A pipeline index is a versioned root: when `semcse pipeline --add` publishes a grown version
the app moves to it without dropping a request (`semcse/apps/live.py`), on the next request after a
second or at once on `POST /search/reload`; `/health` says which version is served.
"""

# No `from __future__ import annotations`: FastAPI needs the real request-model classes (see embed.py).
from typing import Any

import numpy as np
from pydantic import Field, model_validator
from ray import serve
from ray.serve.deployment import Application

from semcse.apps.common import (
    ApiError,
    RequestBody,
    bad_request,
    configure,
    create_api,
    node_id,
    place_model,
    required,
    settings_from,
)
from semcse.apps.live import Live
from semcse.config import ServeConfig
from semcse.index import VectorIndexError

api = create_api("semcse search")


class SearchRequest(RequestBody):
    query: str | None = Field(None, min_length=1)
    id: str | None = Field(None, min_length=1)
    k: int = Field(10, gt=0)
    weights: dict[str, float] | None = None

    @model_validator(mode="after")
    def _one_target(self) -> "SearchRequest":
        if (self.query is None) == (self.id is None):
            raise ValueError("send exactly one of `query` (a text) or `id` (a paper in the index)")
        return self


@serve.deployment
@serve.ingress(api)
class Searcher:
    def __init__(self, settings: ServeConfig) -> None:
        configure(api, settings)
        self.settings = settings
        self._encoder: tuple[str, Any] | None = None
        self.live = Live(required(settings, "index", "search"), self._load)

    def _load(self, path: Any) -> tuple[Any, Any]:
        """(index, encoder) of one index version, ready to answer: its search matrix is built before the swap."""
        from semcse.models.unified import load_encoder
        from semcse.search import SearchIndex

        index = SearchIndex.load(path)
        index.stacked()
        ref = self.settings.encoder or index.model
        if self._encoder is None or self._encoder[0] != ref:
            self._encoder = (ref, place_model(load_encoder(ref), self.settings))
        return index, self._encoder[1]

    @api.post("/")
    async def search(self, body: SearchRequest) -> dict[str, Any]:
        from semcse.models.aspects import encode_aspects

        if body.k > self.settings.max_k:
            raise ApiError(400, f"k={body.k} is above the limit of {self.settings.max_k}")
        if body.query is not None and len(body.query) > self.settings.max_chars:
            raise ApiError(400, f"query has {len(body.query):,} characters; the limit is {self.settings.max_chars:,}")
        index, model = await self.live.get()
        with bad_request(VectorIndexError):
            if body.id is not None:
                row = index.row_of(body.id)
                hits = index.search(index.stored(row), body.k, body.weights, exclude=row)
            else:
                query: dict[str, np.ndarray] = encode_aspects(model, [body.query or ""])
                hits = index.search(query, body.k, body.weights)
        results = [{"id": h.id, "title": h.title, "score": h.score, "distances": h.distances} for h in hits]
        return {"results": results, "weights": index.weights(body.weights)}

    @api.post("/reload")
    async def reload(self) -> dict[str, Any]:
        """Serve the index's current version now (a no-op when it is already served)."""
        try:
            version = await self.live.reload()
        except (OSError, ValueError) as exc:
            raise ApiError(503, f"the new index version could not be loaded: {exc}", "service_unavailable") from exc
        return {"version": version, "papers": len(self.live.value[0].papers)}

    @api.get("/health")
    async def health(self) -> dict[str, Any]:
        index = (await self.live.get())[0]
        return {
            "status": "ok",
            "papers": len(index.papers),
            "aspects": index.aspects,
            "version": self.live.version,
            "node": node_id(),
        }

    async def check_health(self) -> None:
        """Serve's periodic probe: the first paper, searched by its own vectors, must find itself first."""
        index = self.live.value[0]
        if len(index.papers) == 0:
            raise RuntimeError("the served index holds no papers")
        hits = index.search(index.stored(0), 1)
        if not hits or hits[0].id != str(index.papers["id"].iat[0]):
            raise RuntimeError("the served index does not find a paper by its own vectors")


def app(args: dict[str, Any]) -> Application:
    """Builder for `serve deploy` / `semcse serve`: needs `index` (and optionally `encoder`)."""
    return Searcher.bind(  # type: ignore[attr-defined]  # @serve.deployment made it a Deployment
        settings_from(args)
    )
