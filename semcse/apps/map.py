"""`map`: the literature explorer page (`GET /map/`) and the map API behind it.

The page (`static/explorer.html`, which loads the stylesheet and the ES modules beside it: no library, no
CDN) searches, reads papers and their neighbours through the search app (at `search_route`, the same
origin) and draws, places and explains through this one; `semcse/apps/static/explorer.js`, its entry
module, says which module does what.

- `GET /`: the page, asked for afresh on every load (`no-cache`), so it always names the files'
  current version. `GET /static/<version>/<file>`: those files, cached for good (`immutable`): a
  version is a hash of their contents, so new files come under a new URL. The page's URLs are
  relative, so it works at whatever route the app is deployed at (the root without its slash is
  redirected to it: see `common.Guard`).

The API is stateless so any replica can answer any request: every call carries the aspect weights,
and a replica lays the corpus out once per weighting (a small LRU cache) with a fixed seed, so all
replicas agree on the layout. New texts are placed client-side state: the page keeps them and asks
`/place` again after a re-layout.

- `GET /points`: the saved layout, by column (ids, x, y, labels: 40k points are one small JSON
  document, not 40k objects); `POST /layout {weights}`: the corpus laid out under other weights.
- `POST /place {text, weights}`: where a new abstract falls on that layout.
- `POST /explain {x, y, weights}`: an embedding reconstructed for that position, decoded to text.
- `POST /reload`: serve the map's current version now. A pipeline map is a versioned root; when
  `semcse pipeline --add` places new papers into it, the app moves to the grown map on the next
  request after a second without dropping a request (`semcse/apps/live.py`), and lays out other
  weightings of the grown corpus afresh. `/health` says which version is served.
"""

# No `from __future__ import annotations`: FastAPI needs the real request-model classes (see embed.py).
import asyncio
import hashlib
import html
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
from fastapi.responses import HTMLResponse, Response
from pydantic import Field
from ray import serve
from ray.serve.deployment import Application

from semcse.apps.common import (
    ApiError,
    RequestBody,
    bad_request,
    configure,
    create_api,
    json_body,
    node_id,
    place_model,
    required,
    settings_from,
)
from semcse.apps.decode import Decoders
from semcse.apps.live import Live
from semcse.core.config import ServeConfig

api = create_api("semcse map")


STATIC = Path(__file__).parent / "static"
STATIC_TYPES = {".js": "text/javascript", ".css": "text/css"}  # Starlette adds "; charset=utf-8"
STATIC_CACHE = "public, max-age=31536000, immutable"
LAYOUTS_KEPT = 8  # re-weighted layouts a replica keeps (least recently used goes): each cost a t-SNE run of seconds


class ExplorerFiles:
    """The explorer's page and the files it loads (`static/*.js`, `*.css`), read once: `version` hashes the
    files, and the page names them under it, with the search app's route filled in."""

    def __init__(self, search_route: str) -> None:
        self.files = {p.name: p.read_bytes() for p in sorted(STATIC.iterdir()) if p.suffix in STATIC_TYPES}
        digest = hashlib.sha256()
        for name, content in self.files.items():
            digest.update(f"{name}\0{len(content)}\0".encode() + content)
        self.version = digest.hexdigest()[:16]
        page = (STATIC / "explorer.html").read_text(encoding="utf-8")
        self.page = page.replace("{{SEARCH_ROUTE}}", html.escape(search_route, quote=True)).replace(
            "{{VERSION}}", self.version
        )

    def file(self, version: str, name: str) -> Response:
        if version != self.version or name not in self.files:
            raise ApiError(404, f"the explorer has no file {version}/{name}: reload the page", "not_found_error")
        return Response(
            self.files[name], media_type=STATIC_TYPES[Path(name).suffix], headers={"Cache-Control": STATIC_CACHE}
        )


class Weighted(RequestBody):
    weights: dict[str, float] | None = None


class PlaceRequest(Weighted):
    text: str = Field(min_length=1)


EXPLAIN_OFF = (
    "explain is disabled: this map was served without a decoder; train one with `semcse train-decoder` "
    "and serve the map with --decoder"
)


class ExplainRequest(Weighted):
    x: float
    y: float


@serve.deployment
@serve.ingress(api)
class MapExplorer:
    def __init__(self, settings: ServeConfig) -> None:
        from semcse.models.unified import load_encoder
        from semcse.stages.maps import SemanticMap

        configure(api, settings)
        self.settings = settings
        self.live = Live(required(settings, "map", "map"), SemanticMap.load)
        self.maps: OrderedDict[tuple[str | None, tuple[tuple[str, float], ...]], Any] = OrderedDict()
        self.encoder = place_model(load_encoder(required(settings, "encoder", "map")), settings)
        # the decoder is optional: without one the map is served and only "explain" is off
        self.decoders = Decoders(settings, "map") if settings.decoders else None
        self.explorer = ExplorerFiles(settings.search_route)

    def _key(self, weights: dict[str, float]) -> tuple[tuple[str, float], ...]:
        total = sum(weights.values()) or 1.0
        return tuple(sorted((a, round(w / total, 3)) for a, w in weights.items() if w > 0))

    async def _map(self, weights: dict[str, float] | None) -> Any:
        """The saved layout, or the layout for other weights: cached per map version, else a new t-SNE run
        (in a thread: it takes seconds)."""
        from semcse.models.aspects import aspect_weights

        saved = await self.live.get()
        with bad_request(ValueError):
            alpha = aspect_weights(weights or saved.weights, saved.aspects)
        if self._key(alpha) == self._key(saved.weights):
            return saved
        key = (self.live.version, self._key(alpha))
        if key not in self.maps:
            iterations = self.settings.layout_iterations
            self.maps[key] = await asyncio.to_thread(saved.relayout, alpha, iterations)
            while len(self.maps) > LAYOUTS_KEPT:
                self.maps.popitem(last=False)
        self.maps.move_to_end(key)
        return self.maps[key]

    @staticmethod
    def _points(semantic_map: Any) -> Response:
        """The layout by column; coordinates as float32, which is all a screen needs, at its shortest digits."""
        return json_body(
            {
                "aspects": semantic_map.aspects,
                "weights": semantic_map.weights,
                "ids": semantic_map.ids,
                "x": semantic_map.coords[:, 0].astype(np.float32),
                "y": semantic_map.coords[:, 1].astype(np.float32),
                "labels": semantic_map.labels,
            }
        )

    @api.get("/")
    async def page(self) -> HTMLResponse:
        return HTMLResponse(self.explorer.page, headers={"Cache-Control": "no-cache"})

    @api.get("/static/{version}/{name}")
    async def static(self, version: str, name: str) -> Response:
        return self.explorer.file(version, name)

    @api.get("/points")
    async def points(self) -> Response:
        return self._points(await self._map(None))

    @api.post("/layout")
    async def layout(self, body: Weighted) -> Response:
        return self._points(await self._map(body.weights))

    @api.post("/place")
    async def place(self, body: PlaceRequest) -> dict[str, Any]:
        from semcse.models.aspects import encode_aspects

        if len(body.text) > self.settings.max_chars:
            raise ApiError(400, f"text has {len(body.text):,} characters; the limit is {self.settings.max_chars:,}")
        semantic_map = await self._map(body.weights)
        vectors = await asyncio.to_thread(encode_aspects, self.encoder, [body.text])
        with bad_request(ValueError):
            (x, y), *_ = await asyncio.to_thread(semantic_map.place, vectors)
        return {"x": float(x), "y": float(y)}

    @api.post("/explain")
    async def explain(self, body: ExplainRequest) -> dict[str, Any]:
        if self.decoders is None:
            raise ApiError(503, EXPLAIN_OFF, "service_unavailable")
        semantic_map = await self._map(body.weights)
        with bad_request(ValueError):
            embeddings = await asyncio.to_thread(semantic_map.explain, (body.x, body.y))
        decodable = [a for a in embeddings if a in self.decoders.by_aspect]
        if not decodable:
            raise ApiError(400, f"no decoder for the weighted aspects {sorted(embeddings)}")
        texts = {a: await self.decoders.decode(a, embeddings[a]) for a in decodable}
        return {"x": body.x, "y": body.y, "texts": texts}

    @api.post("/reload")
    async def reload(self) -> dict[str, Any]:
        """Serve the map's current version now (a no-op when it is already served)."""
        try:
            version = await self.live.reload()
        except (OSError, ValueError) as exc:
            raise ApiError(503, f"the new map version could not be loaded: {exc}", "service_unavailable") from exc
        return {"version": version, "points": len(self.live.value)}

    async def check_health(self) -> None:
        """Serve's periodic probe: the served map has points at finite positions."""
        saved = self.live.value
        if len(saved) == 0 or not np.isfinite(saved.coords).all():
            raise RuntimeError("the served map has no points, or points at non-finite positions")

    @api.get("/health")
    async def health(self) -> dict[str, Any]:
        explain = self.decoders is not None
        saved = await self.live.get()
        status = {"status": "ok", "points": len(saved), "version": self.live.version, "explain": explain}
        status["node"] = node_id()
        return status | {"layouts_cached": len(self.maps)} | ({} if explain else {"explain_disabled": EXPLAIN_OFF})


def app(args: dict[str, Any]) -> Application:
    """Builder for `serve deploy` / `semcse serve`: needs `map` and `encoder`; `decoders` turns on "explain"."""
    return MapExplorer.bind(  # type: ignore[attr-defined]  # @serve.deployment made it a Deployment
        settings_from(args)
    )
