"""`search`: aspect-weighted nearest papers (`POST /search`) and the papers themselves, for the explorer page.

The index directory comes from `semcse index build` or the pipeline; query texts are embedded with
the model the index was built with (the app's `encoder` arg overrides it, e.g. to point at a local
copy). A pipeline index is a versioned root: when `semcse pipeline --add` publishes a grown version
the app moves to it without dropping a request (`semcse/apps/live.py`), on the next request after a
second or at once on `POST /search/reload`; `/health` says which version is served.

- `POST /search {query | id, k, weights, filter}`: ranked papers with a snippet of each abstract, the weighted
  score, the distance on each weighted aspect and the similarity on every aspect. By `id` these are
  the paper's neighbours under those weights (itself left out). `filter` ranks only the papers whose corpus
  column is in a range (`{column, min, max}`) or one of some values (`{column, values}`).
- `GET /search/papers`: every paper's id and title, and each corpus column encoded for colouring a
  map (categories with codes, or numbers), in one response written once per index version.
- `GET /search/papers/{id}`: one paper to read: title, abstract, its corpus columns and, when the
  app was given the run's generated texts (`texts`), its summaries by kind.
- `POST /search/export {ids, format}`: those papers as one CSV, BibTeX or RIS file (`data/citations.py`), for a
  reference manager.

An id that validation merged into another paper finds that paper everywhere.
"""

# No `from __future__ import annotations`: FastAPI needs the real request-model classes (see embed.py).
import logging
import re
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import orjson
import pandas as pd
from fastapi.responses import Response
from pydantic import Field, model_validator
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
from semcse.apps.live import Live
from semcse.core.config import ServeConfig
from semcse.core.data.citations import MEDIA_TYPES, citations
from semcse.core.vector_index import VectorIndexError

log = logging.getLogger("semcse.serve")
api = create_api("semcse search")

SNIPPET_CHARS = 240
MAX_CATEGORIES = 20  # a column with more distinct values is coloured by its most frequent ones, the rest "other"
SHOWN_ELSEWHERE = ("id", "title", "abstract")
NO_TEXTS = (
    "no generated texts were given to this service: serve it with --texts (a pipeline run passes the texts "
    "it generated when generation.model is set)"
)
MAX_EXPORT = 10_000  # papers in one export: a search's hits or a selection, not the corpus
_WORD = re.compile(r"\w{3,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class PaperFilter(RequestBody):
    """The papers a ranking may return: `column` within [`min`, `max`] (a number column; either bound may be
    left out), or `column` one of `values`."""

    column: str = Field(min_length=1)
    min: float | None = None
    max: float | None = None
    values: list[str] | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _one_kind(self) -> "PaperFilter":
        bounded = self.min is not None or self.max is not None
        if bounded == (self.values is not None):
            raise ValueError("a filter has either `min` and/or `max` (a range of numbers) or `values`")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"the filter's min ({self.min:g}) is above its max ({self.max:g})")
        return self


class SearchRequest(RequestBody):
    query: str | None = Field(None, min_length=1)
    id: str | None = Field(None, min_length=1)
    k: int = Field(10, gt=0)
    weights: dict[str, float] | None = None
    filter: PaperFilter | None = None

    @model_validator(mode="after")
    def _one_target(self) -> "SearchRequest":
        if (self.query is None) == (self.id is None):
            raise ValueError("send exactly one of `query` (a text) or `id` (a paper in the index)")
        return self


class ExportRequest(RequestBody):
    ids: list[str] = Field(min_length=1, max_length=MAX_EXPORT)
    format: Literal["csv", "bibtex", "ris"]


@dataclass
class Served:
    """One index version as the app answers from it: the index, its encoder, the paper listing (serialised
    once, since the page asks for all of it), and the summaries by kind and paper (None: none given, `why`)."""

    index: Any
    encoder: Any
    listing: bytes
    summaries: dict[str, dict[str, list[str]]] | None
    why_no_summaries: str | None


def snippet(abstract: str, query: str | None, width: int = SNIPPET_CHARS) -> str:
    """The abstract from its sentence sharing the most words with the query (the first one on a tie, or
    without a query), cut at a word boundary: the part of a hit that says why it matched."""
    sentences = [s for s in _SENTENCE_END.split(abstract.strip()) if s]
    if not sentences:
        return ""
    terms = {w.lower() for w in _WORD.findall(query or "")}
    overlap = [len(terms & {w.lower() for w in _WORD.findall(s)}) for s in sentences]
    best = int(np.argmax(overlap))
    text = ("… " if best else "") + " ".join(sentences[best:])
    return text if len(text) <= width else text[:width].rsplit(" ", 1)[0] + " …"


def column_for_colour(values: pd.Series) -> dict[str, Any]:
    """A corpus column as the page colours by it: numbers as they are (null where missing), anything else as
    category codes into its most frequent values (-1: missing; with `other`, the last category holds the rest)."""
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        numbers = values.astype(np.float64).to_numpy()
        return {"kind": "number", "values": [None if np.isnan(v) else float(v) for v in numbers]}
    present = values.notna().to_numpy()
    text = values[present].map(str)
    counts = text.value_counts()
    categories = [str(c) for c in counts.index[:MAX_CATEGORIES]]
    position = {c: i for i, c in enumerate(categories)}
    codes = np.full(len(values), -1, dtype=np.int32)
    codes[present] = [position.get(v, len(categories)) for v in text]
    other = len(counts) > MAX_CATEGORIES
    return {"kind": "category", "categories": categories + ["other"] * other, "codes": codes, "other": other}


def listing(papers: pd.DataFrame) -> bytes:
    """`GET /papers`: ids, titles and every other stored column but the abstract, ready for colouring."""
    columns = {str(c): column_for_colour(papers[c]) for c in papers.columns if c not in SHOWN_ELSEWHERE}
    body = {"ids": papers["id"].astype(str).tolist(), "titles": papers["title"].astype(str).tolist()}
    return orjson.dumps(body | {"columns": columns}, option=orjson.OPT_SERIALIZE_NUMPY)


def _abstract(index: Any, paper_id: str) -> str:
    """A paper's stored abstract, or "" when it has none (an index built without abstracts, or a paper added
    to one)."""
    if "abstract" not in index.papers:
        return ""
    value = index.papers["abstract"].iat[index.row_of(paper_id)]
    return value if isinstance(value, str) else ""


def _plain(value: Any) -> Any:
    """A stored cell as JSON can carry it (NumPy scalars and arrays, timestamps)."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, int, float, bool, list, dict)) or value is None:
        return value
    return str(value)


def read_summaries(texts: str) -> dict[str, dict[str, list[str]]]:
    """kind → paper id → texts (summaries first), through the generated-texts contract's own reader (outputs of
    several generation settings are all shown, so they are combined)."""
    from semcse.core.data.generated import read_texts, summaries_by_id

    frame = read_texts(texts, combine=True)
    kinds = sorted(map(str, frame["kind"].unique()), key=lambda kind: (kind != "summary", kind))
    return {kind: summaries_by_id(frame, kind) for kind in kinds}


@serve.deployment
@serve.ingress(api)
class Searcher:
    def __init__(self, settings: ServeConfig) -> None:
        configure(api, settings)
        self.settings = settings
        self._encoder: tuple[str, Any] | None = None
        self.live = Live(required(settings, "index", "search"), self._load)

    def _load(self, path: Any) -> Served:
        """One index version, ready to answer: its search matrix, listing and summaries are built before the swap.

        The generated texts are read again with each version, since an update generates for its new papers
        before it publishes the index that holds them.
        """
        from semcse.core.data.generated import GeneratedDataError
        from semcse.models.unified import load_encoder
        from semcse.stages.search import SearchIndex

        index = SearchIndex.load(path)
        index.stacked()
        ref = self.settings.encoder or index.model
        if self._encoder is None or self._encoder[0] != ref:
            self._encoder = (ref, place_model(load_encoder(ref), self.settings))
        summaries: dict[str, dict[str, list[str]]] | None = None
        why: str | None = NO_TEXTS
        if self.settings.texts:
            try:
                summaries, why = read_summaries(self.settings.texts), None
            except (GeneratedDataError, OSError) as exc:
                why = f"the generated texts at {self.settings.texts} could not be read: {exc}"
                log.warning(why)
        return Served(index, self._encoder[1], listing(index.papers), summaries, why)

    @api.post("/")
    async def search(self, body: SearchRequest) -> Response:
        from semcse.models.aspects import encode_aspects

        if body.k > self.settings.max_k:
            raise ApiError(400, f"k={body.k} is above the limit of {self.settings.max_k}")
        if body.query is not None and len(body.query) > self.settings.max_chars:
            raise ApiError(400, f"query has {len(body.query):,} characters; the limit is {self.settings.max_chars:,}")
        served: Served = await self.live.get()
        index = served.index
        with bad_request(VectorIndexError):
            where = body.filter
            among = None if where is None else index.rows_where(where.column, where.min, where.max, where.values)
            if body.id is not None:
                hits = index.neighbours(body.id, body.k, body.weights, among)
            else:
                query: dict[str, np.ndarray] = encode_aspects(served.encoder, [body.query or ""])
                hits = index.search(query, body.k, body.weights, among=among)
        results = [
            {
                "id": h.id,
                "title": h.title,
                "snippet": snippet(_abstract(index, h.id), body.query),
                "score": h.score,
                "distances": h.distances,
                "similarities": h.similarities,
            }
            for h in hits
        ]
        return json_body({"results": results, "weights": index.weights(body.weights)})

    @api.get("/papers")
    async def papers(self) -> Response:
        served: Served = await self.live.get()
        return Response(served.listing, media_type="application/json")

    @api.get("/papers/{paper_id:path}")
    async def paper(self, paper_id: str) -> Response:
        served: Served = await self.live.get()
        try:
            stored = served.index.paper(paper_id)
        except VectorIndexError as exc:
            raise ApiError(404, str(exc), "not_found_error") from exc
        columns = {k: _plain(v) for k, v in stored.items() if k not in SHOWN_ELSEWHERE and v is not None}
        summaries, kept = None, str(stored["id"])  # `paper_id` may be an id merged into this paper
        if served.summaries is not None:
            summaries = {kind: by_id[kept] for kind, by_id in served.summaries.items() if kept in by_id}
        return json_body(
            {
                "id": stored["id"],
                "title": stored["title"],
                "abstract": stored.get("abstract"),
                "columns": columns,
                "summaries": summaries,
            }
        )

    @api.post("/export")
    async def export(self, body: ExportRequest) -> Response:
        served: Served = await self.live.get()
        with bad_request(VectorIndexError):
            papers = {str(paper["id"]): paper for paper in map(served.index.paper, body.ids)}
        media_type, suffix = MEDIA_TYPES[body.format]
        return Response(
            citations([{k: _plain(v) for k, v in paper.items()} for paper in papers.values()], body.format),
            media_type=media_type,
            headers={"Content-Disposition": f'attachment; filename="papers.{suffix}"'},
        )

    @api.post("/reload")
    async def reload(self) -> dict[str, Any]:
        """Serve the index's current version now (a no-op when it is already served)."""
        try:
            version = await self.live.reload()
        except (OSError, ValueError) as exc:
            raise ApiError(503, f"the new index version could not be loaded: {exc}", "service_unavailable") from exc
        return {"version": version, "papers": len(self.live.value.index.papers)}

    @api.get("/health")
    async def health(self) -> dict[str, Any]:
        served: Served = await self.live.get()
        status = {
            "status": "ok",
            "papers": len(served.index.papers),
            "aspects": served.index.aspects,
            "version": self.live.version,
            "summaries": served.summaries is not None,
            "node": node_id(),
        }
        return status | ({"summaries_disabled": served.why_no_summaries} if served.summaries is None else {})

    async def check_health(self) -> None:
        """Serve's periodic probe: the first paper, searched by its own vectors, must find itself first."""
        index = self.live.value.index
        if len(index.papers) == 0:
            raise RuntimeError("the served index holds no papers")
        hits = index.search(index.stored(0), 1)
        if not hits or hits[0].id != str(index.papers["id"].iat[0]):
            raise RuntimeError("the served index does not find a paper by its own vectors")


def app(args: dict[str, Any]) -> Application:
    """Builder for `serve deploy` / `semcse serve`: needs `index` (optionally `encoder`, and `texts` for summaries)."""
    return Searcher.bind(  # type: ignore[attr-defined]  # @serve.deployment made it a Deployment
        settings_from(args)
    )
