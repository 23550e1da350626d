"""The engine-independent Ray Data stages around the LLM: units → requests, and requests → one row per sample.

Every engine consumes the same request rows and its output is reduced to the same per-sample
rows, which is what makes the three engines interchangeable (and their outputs identical in
shape).
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

import pandas as pd

from semcse.core.data.schema import records
from semcse.stages.generation.tasks import UNIT, Task
from semcse.stages.generation.tokens import TokenCounter

SHARD = "shard"
ONLY = "only"
ROUND = "round"
REQUEST_META = (SHARD, UNIT, "prompt_id", "samples", "truncated")
SAMPLE_COLUMNS = (
    SHARD,
    UNIT,
    "prompt_id",
    "sample",
    "raw",
    "finish_reason",
    "attempts",
    "prompt_tokens",
    "generated_tokens",
    "truncated",
    "error",
)
# Why an engine stopped an answer: it ended (end of sequence or a stop string), or it used its whole budget.
STOP, LENGTH = "stop", "length"


def derived_seed(*parts: object) -> int:
    """A seed in [0, 2**31) from `parts` (the run's seed, the unit, the prompt, the round, the sample).

    Stable across runs and machines, so a rerun asks an engine for the same samples, and distinct per
    request and per retry round, so the samples of one prompt differ and a retried answer is new.
    """
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") >> 1


@functools.lru_cache(maxsize=4)
def token_counter(tokenizer_path: str | None) -> TokenCounter:
    """One tokenizer per worker process: Ray reuses task workers, so it loads once per worker, not per batch."""
    return TokenCounter(tokenizer_path)


def build_requests(
    batch: pd.DataFrame, task: Task, tokenizer_path: str | None, max_prompt_tokens: int, seed: int = 0
) -> pd.DataFrame:
    """Ray Data UDF: units → requests (abstracts cut to the context, the prompts of a unit adjacent).

    `only` on a unit (JSON `{prompt_id: [samples]}`) limits it to the samples being retried, and its
    `round` (the retry round) enters the request's seed.
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
                    "seed": derived_seed(seed, unit[UNIT], request.prompt_id, unit[ROUND]),
                }
            )
            removed = 0
    return pd.DataFrame(rows, columns=[*REQUEST_META, "chat", "system", "prompt", "seed"])


def request_meta(row: dict[str, Any]) -> dict[str, Any]:
    """The columns a request carries through any engine (the prompt text is dropped once sent)."""
    return {key: row[key] for key in REQUEST_META} | {"samples": [int(s) for s in row["samples"]]}


def explode_samples(row: dict[str, Any]) -> list[dict[str, Any]]:
    """One engine result (several samples of one prompt) → one row per sample.

    Every engine's result carries the request's metadata plus `raws`, `finish_reasons` and
    `attempts` (one per sample), `prompt_tokens`, `generated_tokens` and `error`.

    Prompt tokens, generated tokens and truncation are reported once per request, on its first
    sample, so that sums over rows count each prefill once.
    """
    samples = [int(s) for s in row["samples"]]
    raws = [*row["raws"], *[""] * (len(samples) - len(row["raws"]))]
    finished = [*row["finish_reasons"], *[""] * (len(samples) - len(row["finish_reasons"]))]
    attempts = [*(int(a) for a in row["attempts"]), *[1] * (len(samples) - len(row["attempts"]))]
    return [
        {
            SHARD: row[SHARD],
            UNIT: row[UNIT],
            "prompt_id": row["prompt_id"],
            "sample": sample,
            "raw": raw,
            "finish_reason": str(finish or ""),
            "attempts": tries,
            "prompt_tokens": int(row["prompt_tokens"]) if i == 0 else 0,
            "generated_tokens": int(row["generated_tokens"]) if i == 0 else 0,
            "truncated": int(row["truncated"]) if i == 0 else 0,
            "error": row["error"],
        }
        for i, (sample, raw, finish, tries) in enumerate(zip(samples, raws, finished, attempts))
    ]
