"""`search`: aspect-weighted nearest papers, by a query text or by a paper id (`POST /search`).

The index directory comes from `semcse index build`; query texts are embedded with the model the
index was built with (the app's `encoder` arg overrides it, e.g. to point at a local copy).
"""

# No `from __future__ import annotations`: FastAPI needs the real request-model classes (see embed.py).
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator
from ray import serve
from ray.serve.deployment import Application
from semcse.config import ServeConfig
from semcse.index import VectorIndexError

from serve_apps.common import ApiError, bad_request, configure, create_api, place_model, required, settings_from

api = create_api("semcse search")


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

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
        from semcse.models.unified import load_encoder
        from semcse.search import SearchIndex

        configure(api, settings)
        self.settings = settings
        self.index = SearchIndex.load(required(settings, "index", "search"))
        self.model = place_model(load_encoder(settings.encoder or self.index.model), settings)

    def _query_vectors(self, text: str) -> dict[str, np.ndarray]:
        from semcse.models.aspects import encode_aspects

        return encode_aspects(self.model, [text])

    @api.post("/")
    async def search(self, body: SearchRequest) -> dict[str, Any]:
        if body.k > self.settings.max_k:
            raise ApiError(400, f"k={body.k} is above the limit of {self.settings.max_k}")
        if body.query is not None and len(body.query) > self.settings.max_chars:
            raise ApiError(400, f"query has {len(body.query):,} characters; the limit is {self.settings.max_chars:,}")
        with bad_request(VectorIndexError):
            if body.id is not None:
                row = self.index.row_of(body.id)
                hits = self.index.search(self.index.stored(row), body.k, body.weights, exclude=row)
            else:
                hits = self.index.search(self._query_vectors(body.query or ""), body.k, body.weights)
        results = [{"id": h.id, "title": h.title, "score": h.score, "distances": h.distances} for h in hits]
        return {"results": results, "weights": self.index.weights(body.weights)}

    @api.get("/health")
    async def health(self) -> dict[str, Any]:
        return {"status": "ok", "papers": len(self.index.papers), "aspects": self.index.aspects}


def app(args: dict[str, Any]) -> Application:
    """Builder for `serve deploy` / `semcse serve`: needs `index` (and optionally `encoder`)."""
    return Searcher.bind(settings_from(args))
