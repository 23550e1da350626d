"""What every Serve app shares: settings from builder args, the API-key and body-size guard, and errors.

Every error leaves as `{"error": {"message", "type"}}` (the OpenAI shape, so the official client
shows the message) with a 4xx status when the request was at fault: malformed JSON is a 400, a
body that does not fit the schema a 422, a missing key a 401, a body over the size limit a 413.
Only our own bugs are 500s.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from semcse.core.config import ServeConfig, TrainingConfig, format_validation_error
from semcse.orchestration.serving import KEY_DIGEST_ENV, key_digest

HEALTH_PATH = "/health"


class ApiError(Exception):
    """A request the service refuses, with the status and the message the client sees."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status, self.message, self.kind = status, message, kind


class RequestBody(BaseModel):
    """Every request body: an unknown field (a typo) or a non-finite number (NaN, ±Infinity, which JSON
    parsers accept) is refused with a 422 that names the field, before any model sees it."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class _BodyTooLarge(Exception):
    pass


def json_body(payload: dict[str, Any]) -> Response:
    """A JSON response written by orjson; NumPy float32 arrays are written as float32's shortest exact digits.

    FastAPI would first walk a returned dict with `jsonable_encoder`, one Python call per value, and `json.dumps`
    would write each float32 widened to 17 float64 digits: both cost more than the encoding itself for small
    requests (docs/BENCHMARKS.md, the serving row). Each number reads back as exactly the model's float32.
    """
    return Response(orjson.dumps(payload, option=orjson.OPT_SERIALIZE_NUMPY), media_type="application/json")


def error_body(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind}}


def node_id() -> str:
    """The Ray node this replica runs on (in `/health`, so an operator sees where an answer came from)."""
    import ray

    return str(ray.get_runtime_context().get_node_id())


def settings_from(args: dict[str, Any] | ServeConfig) -> ServeConfig:
    """Builder args → validated settings; a typo in config.yaml fails the deploy with its key path."""
    if isinstance(args, ServeConfig):
        return args
    try:
        return ServeConfig.model_validate(args)
    except ValidationError as exc:
        raise ValueError(f"invalid app arguments:\n{format_validation_error(exc)}") from exc


def required(settings: ServeConfig, field: str, app: str) -> Any:
    value = getattr(settings, field)
    if not value:
        raise ValueError(f"the {app} app needs `{field}` in its args (semcse/apps/config.yaml or `semcse serve`)")
    return value


def model_id(ref: str) -> str:
    """The name clients pass as `model`: a registry reference's model name (alias or version dropped), else
    the name `semcse train` registers encoders under, so one client snippet works against a trained
    directory and against the registry alike (`serve.model_name` overrides it)."""
    if ref.startswith("models:/"):
        spec = ref[len("models:/") :]
        return spec.split("@", 1)[0].split("/", 1)[0]
    return TrainingConfig.model_fields["register_name"].default


def place_model(model: Any, settings: ServeConfig) -> Any:
    """The model in eval mode on the replica's device, in the configured precision on a GPU (float32 on a CPU).

    Eval mode is set once here, for good: `encode` flips a model left in training mode to eval and
    back around each call, and with several lanes encoding at once one lane's flip back would turn
    dropout on under another lane's forward pass.
    """
    import torch

    cuda = settings.device == "cuda" or (settings.device == "auto" and torch.cuda.is_available())
    if settings.device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("serve.device=cuda but this replica sees no GPU: give it num_gpus in ray_actor_options")
    model.eval()
    if not cuda:
        return model
    return model.to(device="cuda", dtype=getattr(torch, settings.dtype))


def set_torch_threads(settings: ServeConfig) -> None:
    """Ray pins a replica's OpenMP threads to its num_cpus; this lets a config give torch more (or fewer)."""
    if settings.torch_threads:
        import torch

        torch.set_num_threads(settings.torch_threads)


def encode_lanes(settings: ServeConfig, on_gpu: bool) -> int:
    """How many lanes share a replica's pooled batches (`encode_lanes`; see ServeConfig).

    On a CPU the replica's torch threads are shared out equally between the lanes; call it after
    `set_torch_threads` and before any lane thread starts, since threads take torch's count at birth.
    """
    import torch

    if on_gpu:
        return settings.encode_lanes or 1
    threads = torch.get_num_threads()
    lanes = settings.encode_lanes or threads
    torch.set_num_threads(max(1, threads // lanes))
    return lanes


@contextmanager
def bad_request(*kinds: type[Exception]) -> Iterator[None]:
    """Turn the library's input errors (a ValueError naming the problem) into a 400 with that message."""
    try:
        yield
    except kinds as exc:
        raise ApiError(400, str(exc)) from exc


class Guard:
    """ASGI middleware: API key on every route but health, a cap on the body size, the app root without a slash
    (redirected to it for GET, served for POST).

    It reads its settings from `app.state` at request time because Serve builds the FastAPI app at
    import, before the replica knows its arguments; `configure` fills them in from `__init__`.
    """

    def __init__(self, app: ASGIApp, api: FastAPI) -> None:
        self.app, self.api = app, api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == scope.get("root_path") != "":
            if scope["method"] in ("GET", "HEAD"):
                # `GET /map` is the explorer: the page's relative URLs need the slash, so go there
                await _to_root(scope, receive, send)
                return
            # `POST /search` is the app's root: serve it, not a 307 redirect (which drops POST bodies).
            scope = {**scope, "path": scope["path"] + "/", "raw_path": scope["path"].encode() + b"/"}
        key: str | None = getattr(self.api.state, "api_key_sha256", None)
        limit: int = getattr(self.api.state, "max_request_bytes", ServeConfig().max_request_bytes)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if key and not scope["path"].endswith(HEALTH_PATH) and not _key_matches(headers, key):
            message = "missing or wrong API key: send it as 'Authorization: Bearer <key>' or 'X-API-Key: <key>'"
            await _reply(scope, receive, send, 401, message, "authentication_error")
            return
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _reply(scope, receive, send, 413, _too_large(limit), "invalid_request_error")
            return
        seen = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:
                raise _BodyTooLarge
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except _BodyTooLarge:
            if not started:
                await _reply(scope, receive, send, 413, _too_large(limit), "invalid_request_error")


def _key_matches(headers: dict[str, str], key_sha256: str) -> bool:
    given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ").strip()
    return hmac.compare_digest(key_digest(given), key_sha256)


def _too_large(limit: int) -> str:
    return f"request body is larger than the limit of {limit:,} bytes"


async def _to_root(scope: Scope, receive: Receive, send: Send) -> None:
    """Redirect to the app's root with its slash, by a relative URL (right behind a proxy that moves the app)."""
    query = scope.get("query_string", b"").decode("latin-1")
    target = scope["path"].rsplit("/", 1)[-1] + "/" + (f"?{query}" if query else "")
    await RedirectResponse(target, status_code=307)(scope, receive, send)


async def _reply(scope: Scope, receive: Receive, send: Send, status: int, message: str, kind: str) -> None:
    await JSONResponse(error_body(message, kind), status_code=status)(scope, receive, send)


def create_api(title: str) -> FastAPI:
    """A FastAPI app with the guard and the shared error format installed."""
    api = FastAPI(title=title, docs_url=None, redoc_url=None, openapi_url=None)
    api.add_middleware(Guard, api=api)

    @api.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.message, exc.kind), status_code=exc.status)

    @api.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = exc.errors()
        if any(p.get("type") == "json_invalid" for p in problems):
            detail = "; ".join(str(p.get("ctx", {}).get("error", p["msg"])) for p in problems)
            return JSONResponse(error_body(f"malformed JSON body: {detail}", "invalid_request_error"), 400)
        lines = [f"{'.'.join(str(part) for part in p['loc'])}: {p['msg']}" for p in problems]
        return JSONResponse(error_body("; ".join(lines), "invalid_request_error"), status_code=422)

    @api.exception_handler(HTTPException)
    async def _http(_: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse(error_body(str(exc.detail), "invalid_request_error"), status_code=exc.status_code)

    return api


def configure(api: FastAPI, settings: ServeConfig) -> None:
    """Give the guard this replica's limits and key: the key's SHA-256 from this replica's environment
    (`KEY_DIGEST_ENV`, what `semcse serve` sends to replicas on every node), else the key there (`api_key_env`)."""
    api.state.max_request_bytes = settings.max_request_bytes
    own = os.environ.get(settings.api_key_env)
    api.state.api_key_sha256 = os.environ.get(KEY_DIGEST_ENV) or (key_digest(own) if own else None)
