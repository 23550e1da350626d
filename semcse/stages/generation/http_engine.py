"""The `http` engine: a Ray Data actor that keeps an OpenAI-compatible server busy and never dies of its errors.

Each actor holds one connection pool and sends the requests of a batch concurrently, at most
`generation.http.max_in_flight` at a time, within the global `qps` (shared evenly by the actors).
Overload and transient failures (429, 5xx, timeouts, dropped connections) are retried with
exponential backoff; what still fails, or fails for good (another 4xx, a body that is not an
OpenAI response), comes back as an `error` row carrying the status and the body. The pipeline
leaves the units of such rows unfinished (counted by reason), writes the rest, and the run goes on:
one bad request, or a server that misbehaves for an hour, never ends a run of 350k abstracts and
never loses a unit, since the next run retries exactly the unfinished ones. Each choice's
`finish_reason` comes back with its text, so answers cut off by `max_tokens` can be told apart.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from typing import Any

import pandas as pd

from semcse.core.config import GenerationConfig
from semcse.core.data.schema import records
from semcse.stages.generation.stages import request_meta

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
BODY_CHARS = 500


def http_headers(cfg: GenerationConfig) -> dict[str, str]:
    key = os.environ.get(cfg.http.api_key_env)
    return {"Authorization": f"Bearer {key}"} if key else {}


def http_url(cfg: GenerationConfig, chat: bool) -> str:
    return cfg.http.base_url.rstrip("/") + ("/chat/completions" if chat else "/completions")


def request_body(row: dict[str, Any], model: str, sampling: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI request of one prompt; its samples are one request with `n`, seeded by the request's seed."""
    body: dict[str, Any] = {"model": model, "n": len(row["samples"]), **sampling, "seed": int(row["seed"])}
    if row["chat"]:
        messages = [{"role": "system", "content": row["system"]}] if row["system"] else []
        body["messages"] = [*messages, {"role": "user", "content": row["prompt"]}]
    else:
        body["prompt"] = row["prompt"]
    return body


def parse_response(row: dict[str, Any], response: Any, attempts: int) -> dict[str, Any]:
    """OpenAI response → raws and finish reasons in choice order; token counts from `usage` (what the server did)."""
    wanted = len(row["samples"])
    if not isinstance(response, dict):
        return failure(row, f"not an OpenAI response: {str(response)[:BODY_CHARS]}", attempts)
    choices = sorted(response.get("choices") or [], key=lambda c: c.get("index", 0))
    raws = [_choice_text(c, bool(row["chat"])) for c in choices]
    finished = [str(c.get("finish_reason") or "") for c in choices]
    usage = response.get("usage") or {}
    error = "" if len(raws) >= wanted else f"server returned {len(raws)} of {wanted} choices: {str(response)[:300]}"
    return {
        **request_meta(row),
        "raws": raws[:wanted],
        "finish_reasons": finished[:wanted],
        "attempts": [attempts] * wanted,
        "prompt_tokens": int(usage.get("prompt_tokens") or 0),
        "generated_tokens": int(usage.get("completion_tokens") or 0),
        "error": error,
    }


def failure(row: dict[str, Any], error: str, attempts: int) -> dict[str, Any]:
    wanted = len(row["samples"])
    return {
        **request_meta(row),
        "raws": [""] * wanted,
        "finish_reasons": [""] * wanted,
        "attempts": [attempts] * wanted,
        "prompt_tokens": 0,
        "generated_tokens": 0,
        "error": error,
    }


def _choice_text(choice: dict[str, Any], chat: bool) -> str:
    if chat:
        return (choice.get("message") or {}).get("content") or ""
    return choice.get("text") or ""


class HttpGenerator:
    """Ray Data actor UDF: request rows → one result row per request (samples still grouped).

    A private event loop lives as long as the actor, so its connection pool is reused across
    batches; `__call__` stays synchronous, which every Ray Data version supports.
    """

    def __init__(self, cfg: GenerationConfig, model: str, sampling: dict[str, Any], chat: bool, actors: int) -> None:
        import httpx

        settings = cfg.http
        self.url = http_url(cfg, chat)
        self.headers = http_headers(cfg)
        self.model = model
        self.sampling = sampling
        self.max_retries = settings.max_retries
        self.backoff_s = settings.backoff_s
        self.max_backoff_s = settings.max_backoff_s
        self.interval_s = actors / settings.qps if settings.qps else 0.0
        self.next_send = 0.0
        self.loop = asyncio.new_event_loop()
        self.semaphore = asyncio.Semaphore(settings.max_in_flight)
        limits = httpx.Limits(max_connections=settings.max_in_flight, max_keepalive_connections=settings.max_in_flight)
        self.client = httpx.AsyncClient(timeout=settings.timeout_s, limits=limits)

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame(self.loop.run_until_complete(self._send_all(records(batch))))

    async def _send_all(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(self._send(row) for row in rows)))

    async def _pace(self) -> None:
        """Space requests `interval_s` apart (this actor's share of the global qps)."""
        if not self.interval_s:
            return
        now = time.monotonic()
        self.next_send = max(self.next_send, now) + self.interval_s
        await asyncio.sleep(max(0.0, self.next_send - self.interval_s - now))

    async def _send(self, row: dict[str, Any]) -> dict[str, Any]:
        import httpx

        body = request_body(row, self.model, self.sampling)
        error = ""
        for attempt in range(1, self.max_retries + 2):
            async with self.semaphore:
                await self._pace()
                try:
                    response = await self.client.post(self.url, json=body, headers=self.headers)
                except httpx.HTTPError as exc:
                    error = f"{type(exc).__name__}: {str(exc)[:BODY_CHARS]}"
                else:
                    if response.status_code < 400:
                        try:
                            return parse_response(row, response.json(), attempt)
                        except json.JSONDecodeError:
                            return failure(row, f"http {response.status_code}, not JSON: {_body(response)}", attempt)
                    error = f"http {response.status_code}: {_body(response)}"
                    if response.status_code not in RETRYABLE_STATUS:
                        return failure(row, error, attempt)
            if attempt <= self.max_retries:
                delay = min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1))
                await asyncio.sleep(delay * (0.5 + random.random() / 2))  # jitter: retries do not arrive in step
        return failure(row, f"gave up after {self.max_retries + 1} attempts: {error}", self.max_retries + 1)


def _body(response: Any) -> str:
    return " ".join(response.text.split())[:BODY_CHARS]
