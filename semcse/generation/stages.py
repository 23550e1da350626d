"""The engine-independent Ray Data stages around the LLM: units → requests, and requests → one row per sample.

Every engine consumes the same request rows and its output is reduced to the same per-sample
rows, which is what makes the three engines interchangeable (and their outputs identical in
shape).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pandas as pd

from semcse.data.schema import records
from semcse.generation.tasks import UNIT, Task
from semcse.generation.tokens import TokenCounter

SHARD = "shard"
ONLY = "only"
REQUEST_META = (SHARD, UNIT, "prompt_id", "samples", "truncated")
SAMPLE_COLUMNS = (
    SHARD,
    UNIT,
    "prompt_id",
    "sample",
    "raw",
    "attempts",
    "prompt_tokens",
    "generated_tokens",
    "truncated",
    "error",
)


@functools.lru_cache(maxsize=4)
def token_counter(tokenizer_path: str | None) -> TokenCounter:
    """One tokenizer per worker process: Ray reuses task workers, so it loads once per worker, not per batch."""
    return TokenCounter(tokenizer_path)


def build_requests(
    batch: pd.DataFrame, task: Task, tokenizer_path: str | None, max_prompt_tokens: int
) -> pd.DataFrame:
    """Ray Data UDF: units → requests (abstracts cut to the context, the prompts of a unit adjacent).

    `only` on a unit (JSON `{prompt_id: [samples]}`) limits it to the samples being retried.
    """
    counter = token_counter(tokenizer_path)
    wanted = task.samples()
    rows: list[dict[str, Any]] = []
    for unit in records(batch):
        only = json.loads(unit[ONLY]) if unit[ONLY] else None
        requests, removed = task.requests(unit, counter, max_prompt_tokens)
        for request in requests:
            samples = only.get(request.prompt_id, []) if only is not None else list(range(wanted[request.prompt_id]))
            if not samples:
                continue
            rows.append(
                {
                    SHARD: unit[SHARD],
                    UNIT: unit[UNIT],
                    "prompt_id": request.prompt_id,
                    "samples": samples,
                    "chat": request.chat,
                    "system": request.system,
                    "prompt": request.prompt,
                    "truncated": removed,
                }
            )
            removed = 0
    return pd.DataFrame(rows, columns=[*REQUEST_META, "chat", "system", "prompt"])


def request_meta(row: dict[str, Any]) -> dict[str, Any]:
    """The columns a request carries through any engine (the prompt text is dropped once sent)."""
    return {key: row[key] for key in REQUEST_META} | {"samples": [int(s) for s in row["samples"]]}


def explode_samples(row: dict[str, Any]) -> list[dict[str, Any]]:
    """One engine result (several samples of one prompt) → one row per sample.

    Every engine's result carries the request's metadata plus `raws` and `attempts` (one per
    sample), `prompt_tokens`, `generated_tokens` and `error`.

    Prompt tokens, generated tokens and truncation are reported once per request, on its first
    sample, so that sums over rows count each prefill once.
    """
    samples = [int(s) for s in row["samples"]]
    raws = [*row["raws"], *[""] * (len(samples) - len(row["raws"]))]
    attempts = [*(int(a) for a in row["attempts"]), *[1] * (len(samples) - len(row["attempts"]))]
    return [
        {
            SHARD: row[SHARD],
            UNIT: row[UNIT],
            "prompt_id": row["prompt_id"],
            "sample": sample,
            "raw": raw,
            "attempts": tries,
            "prompt_tokens": int(row["prompt_tokens"]) if i == 0 else 0,
            "generated_tokens": int(row["generated_tokens"]) if i == 0 else 0,
            "truncated": int(row["truncated"]) if i == 0 else 0,
            "error": row["error"],
        }
        for i, (sample, raw, tries) in enumerate(zip(samples, raws, attempts))
    ]
