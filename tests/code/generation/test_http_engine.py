"""The http engine (ray.data.llm HttpRequestProcessor) against a real OpenAI-compatible server on loopback.

The server gives canned, deterministic answers keyed on the prompt, chosen to exercise parsing:
fenced JSON, "Not applicable.", an answer that is garbage the first time and valid on retry, and
one that is always garbage (rejected with its raw output after the retries).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from semcse.config import DEFAULT_SUMMARY_PROMPTS
from semcse.data.schema import TEXTS_SCHEMA
from semcse.generation import run_generation
from tests.fixtures.generated_checks import assert_complete, outputs

SPECIES = '```json\n{"sentence": "A clonal perennial herb of temperate riparian zones."}\n```'
GARBAGE = "Sure! The answer is that it depends on many factors."
FIXED = '{"sentence": "How does disturbance change invader spread across scales?"}'
CONTINUATION = " the soil effects of invasive plants. We further discuss"


def canned_chat(prompt: str, seen: int) -> str:
    if "focal organism" in prompt:
        return SPECIES
    if "ecosystem in which" in prompt:
        return "Not applicable."
    if "central research question" in prompt:
        return FIXED if seen > 0 else GARBAGE
    return GARBAGE


def build_app():
    app = FastAPI()
    calls: Counter = Counter()
    app.state.calls = calls

    def response(texts: list[str], chat: bool, prompt: str) -> dict:
        key = "message" if chat else "text"
        choices = [
            {"index": i, key: {"role": "assistant", "content": t} if chat else t, "finish_reason": "stop"}
            for i, t in enumerate(texts)
        ]
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": 7 * len(texts)}
        return {"id": "cmpl-test", "object": "chat.completion", "choices": choices, "usage": usage}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> dict:
        body = await request.json()
        prompt = body["messages"][-1]["content"]
        seen = calls[prompt]
        calls[prompt] += 1
        calls["chat"] += 1
        calls[f"json_schema:{(body.get('response_format') or {}).get('json_schema', {}).get('name')}"] += 1
        return response([canned_chat(prompt, seen)] * int(body.get("n", 1)), True, prompt)

    @app.post("/v1/completions")
    async def completions(request: Request) -> dict:
        body = await request.json()
        calls["completions"] += 1
        calls[f"stop={body.get('stop')} max_tokens={body.get('max_tokens')}"] += 1
        return response([CONTINUATION] * int(body.get("n", 1)), False, body["prompt"])

    @app.post("/slow/v1/completions")
    async def slow(request: Request) -> dict:
        """A loaded server: each answer takes a while, so a run is still going when the test kills it."""
        body = await request.json()
        await asyncio.sleep(0.4)
        return response([CONTINUATION] * int(body.get("n", 1)), False, body["prompt"])

    @app.post("/faulty/v1/completions")
    async def faulty(request: Request):
        """Per prompt, always the same fate: a 500, a 400 with a JSON error, a 200 that is not JSON, or an answer."""
        body = await request.json()
        fate = FATES[zlib.crc32(body["prompt"].encode()) % len(FATES)]
        calls[f"faulty:{fate}"] += 1
        if fate == "500":
            return PlainTextResponse("upstream model crashed", status_code=500)
        if fate == "400":
            return JSONResponse({"error": {"message": "prompt too long for this model"}}, status_code=400)
        if fate == "garbage":
            return PlainTextResponse("<html>proxy error</html>", status_code=200)
        return response([CONTINUATION] * int(body.get("n", 1)), False, body["prompt"])

    return app


FATES = ("500", "400", "garbage", "ok")


def served_summaries(base_url: str, route: str, tokenizer: Path) -> list[str]:
    """Overrides for the summaries task on the canned server; `route` picks an endpoint family ("" = plain)."""
    url = f"{base_url.removesuffix('/v1')}/{route}/v1" if route else base_url
    return [
        "generation.engine=http",
        "generation.model=canned-model",
        f"generation.tokenizer={tokenizer}",
        f"generation.http.base_url={url}",
        "generation.max_model_len=96",
    ]


@pytest.fixture(scope="module")
def openai_server() -> Iterator[tuple[str, Counter]]:
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = build_app()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "test server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1", app.state.calls
    server.should_exit = True
    thread.join(timeout=10)


@pytest.mark.slow
def test_http_aspects_parse_retry_and_reject(ray_cluster, gen_config, openai_server):
    base_url, calls = openai_server
    cfg = gen_config(
        "generation.task=aspects",
        "generation.engine=http",
        "generation.model=canned-model",
        f"generation.http.base_url={base_url}",
        "generation.aspects=[species, ecosystem, research_question, recommendation]",
        "generation.limit=3",
        "generation.max_json_retries=1",
        "generation.max_model_len=4096",
    )
    report = run_generation(cfg)

    out = Path(cfg.generation.out)
    rows = assert_complete(out, ["id", "prompt_id", "sample"], 3 * 4 * 2, TEXTS_SCHEMA)
    _, rejects = outputs(out)
    by_aspect = rows.groupby("prompt_id")
    assert set(by_aspect.get_group("species")["text"]) == {"A clonal perennial herb of temperate riparian zones."}
    assert not by_aspect.get_group("ecosystem")["applicable"].any()
    assert set(by_aspect.get_group("research_question")["text"]) == {
        "How does disturbance change invader spread across scales?"
    }
    assert set(rejects["prompt_id"]) == {"recommendation"} and len(rejects) == 6
    assert set(rejects["raw"]) == {GARBAGE} and (rejects["attempts"] == 2).all()
    metrics = report.metrics
    assert (metrics["count.ok"], metrics["count.not_applicable"], metrics["count.rejected"]) == (12, 6, 6)
    assert metrics["count.retried"] == 6 + 6
    assert report.na_rate == {"ecosystem": 1.0, "recommendation": 0.0, "research_question": 0.0, "species": 0.0}
    assert not report.exact_token_counts, "no local tokenizer for a served model: estimates"
    # n samples per request: 3 abstracts x 4 aspects in the first round, then 3 + 3 prompts retried
    assert calls["chat"] == 12 + 6
    assert calls["json_schema:aspects"] == 12 + 6, "every aspect request asks for the answer's JSON schema"
    assert metrics["generated_tokens"] == 7 * (24 + 12)


@pytest.mark.slow
def test_http_summaries_use_completions(ray_cluster, gen_config, openai_server, prompt_lm_dir):
    base_url, calls = openai_server
    before = calls["completions"]
    cfg = gen_config(*served_summaries(base_url, "", prompt_lm_dir))
    report = run_generation(cfg)
    rows = assert_complete(Path(cfg.generation.out), ["id", "prompt_id", "sample"], 4 * 2 * 2, TEXTS_SCHEMA)
    assert set(rows["text"]) == {"the soil effects of invasive plants."}
    assert (rows["engine"] == "http").all() and (rows["model"] == "canned-model").all()
    assert calls["completions"] - before == 4 * 2, "one request per prompt carries all its samples"
    assert calls["stop=['\\n'] max_tokens=12"] == 4 * 2, "a continuation stops at the end of its line"
    assert report.exact_token_counts and report.metrics["truncated_units"] == 4


@pytest.mark.slow
def test_http_failures_are_quarantined_and_the_run_goes_on(ray_cluster, gen_config, openai_server, prompt_lm_dir):
    """500s (retried, then given up), 400s, non-JSON bodies: each sample ends as a row or a reject with its reason."""
    base_url, calls = openai_server
    cfg = gen_config(
        *served_summaries(base_url, "faulty", prompt_lm_dir),
        "generation.http.max_retries=2",
        "generation.http.backoff_s=0",
        "generation.limit=8",
    )
    report = run_generation(cfg)
    out = Path(cfg.generation.out)
    rows = assert_complete(out, ["id", "prompt_id", "sample"], 8 * 2 * 2, TEXTS_SCHEMA)
    _, rejects = outputs(out)
    fates = {fate: calls[f"faulty:{fate}"] for fate in FATES}
    assert all(fates.values()), f"every kind of answer was exercised: {fates}"
    assert fates["500"] % 3 == 0, "a 500 is retried twice before the request is given up"
    assert len(rows) == 2 * fates["ok"] and set(rows["text"]) == {"the soil effects of invasive plants."}
    reasons = Counter(
        r.split(":")[1].strip().split(" ")[0] if "gave up" not in r else "500" for r in rejects["reason"]
    )
    assert reasons == {"500": 2 * fates["500"] // 3, "http": 2 * (fates["400"] + fates["garbage"])}
    assert any("http 400: " in r and "prompt too long" in r for r in rejects["reason"])
    assert any("not JSON" in r and "proxy error" in r for r in rejects["reason"])
    assert report.metrics["count.rejected"] == len(rejects) and report.metrics["count.ok"] == len(rows)


@pytest.mark.slow
def test_a_killed_run_resumes_losing_only_work_in_flight(ray_cluster, gen_config, openai_server, prompt_lm_dir):
    """`semcse generate` in its own process, SIGKILLed after two units are on disk; the rerun does the rest."""
    import ray

    from semcse.data.generated import Manifest, read_texts

    base_url, _ = openai_server
    flags = [
        f"generation.prompts={json.dumps(DEFAULT_SUMMARY_PROMPTS[:2])}",
        "generation.samples_per_prompt=2",
        "generation.max_new_tokens=12",
        *served_summaries(base_url, "slow", prompt_lm_dir),
        "generation.http.max_in_flight=1",
        "generation.batch_size=2",
        "generation.shard_rows=1",
        "generation.limit=8",
    ]
    cfg = gen_config(*flags)
    out = Path(cfg.generation.out)
    command = [str(Path(sys.executable).parent / "semcse"), "generate", "--corpus", str(cfg.corpus.path)]
    command += [arg for flag in [*flags, f"generation.out={out}", "tracking.enabled=false"] for arg in ("--set", flag)]
    env = os.environ | {"RAY_ADDRESS": ray.get_runtime_context().gcs_address}
    process = subprocess.Popen(
        command, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 240
    try:
        while len(Manifest.load(out).shards) < 2:
            assert process.poll() is None, process.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the run wrote no shards"
            time.sleep(0.2)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    on_disk = Manifest.load(out)
    done = {unit for shard in on_disk.shards.values() for unit in shard["units"]}
    assert 2 <= len(done) < 8, "killed mid-run"

    report = run_generation(cfg)
    assert report.units_reused == len(done) and report.units == 8 - len(done), "only unfinished units are redone"
    texts = read_texts(out)
    assert len(texts) == 8 * 2 * 2 and texts["id"].nunique() == 8
