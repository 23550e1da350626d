"""The http engine against a real OpenAI-compatible server on loopback.

The server gives canned, deterministic answers keyed on the prompt, chosen to exercise parsing:
fenced JSON, "Not applicable.", an answer that is garbage the first time and valid on retry, and
one that is always garbage (rejected with its raw output after the retries); other routes fail
(an outage that ends, errors of every kind) or cut answers off at their token budget.
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

from semcse.core.data.schema import TEXTS_SCHEMA
from semcse.stages.generation import run_generation
from semcse.stages.generation.prompts import SUMMARY_PROMPTS
from semcse.stages.generation.runner import Generation
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


CUT_OFF = " the soil effects of invasive plants on the"


def build_app():
    app = FastAPI()
    calls: Counter = Counter()
    app.state.calls = calls
    app.state.bodies = []
    app.state.outage = True

    def response(texts: list[str], chat: bool, prompt: str, finish: str = "stop") -> dict:
        key = "message" if chat else "text"
        choices = [
            {"index": i, key: {"role": "assistant", "content": t} if chat else t, "finish_reason": finish}
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
        app.state.bodies.append(body)
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

    @app.post("/flaky/v1/completions")
    async def flaky(request: Request):
        """During the outage, 30% of prompts (by a hash, so their retries fail too) get a 503; then it recovers."""
        body = await request.json()
        down = app.state.outage and zlib.crc32(body["prompt"].encode()) % 10 < 3
        calls[f"flaky:{'503' if down else 'ok'}"] += 1
        if down:
            return PlainTextResponse("model server overloaded", status_code=503)
        return response([CONTINUATION] * int(body.get("n", 1)), False, body["prompt"])

    @app.post("/cutoff/v1/completions")
    async def cutoff(request: Request) -> dict:
        """Half the prompts (by a hash) answer with a continuation cut off by `max_tokens` mid-sentence."""
        body = await request.json()
        n = int(body.get("n", 1))
        if zlib.crc32(body["prompt"].encode()) % 2:
            calls["cutoff:length"] += 1
            return response([CUT_OFF] * n, False, body["prompt"], finish="length")
        calls["cutoff:stop"] += 1
        return response([CONTINUATION] * n, False, body["prompt"])

    return app


FATES = ("500", "400", "garbage", "ok", "ok", "ok")  # half the prompts answer, so some units finish


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
def openai_app() -> FastAPI:
    return build_app()


@pytest.fixture(scope="module")
def openai_server(openai_app) -> Iterator[tuple[str, Counter]]:
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = openai_app
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
def test_http_summaries_use_completions(ray_cluster, gen_config, openai_server, openai_app, prompt_lm_dir, tmp_path):
    base_url, calls = openai_server
    before = calls["completions"]
    openai_app.state.bodies.clear()
    cfg = gen_config(*served_summaries(base_url, "", prompt_lm_dir))
    report = run_generation(cfg)
    rows = assert_complete(Path(cfg.generation.out), ["id", "prompt_id", "sample"], 4 * 2 * 2, TEXTS_SCHEMA)
    assert set(rows["text"]) == {"the soil effects of invasive plants."}
    assert (rows["engine"] == "http").all() and (rows["model"] == "canned-model").all()
    assert calls["completions"] - before == 4 * 2, "one request per prompt carries all its samples"
    assert calls["stop=['\\n'] max_tokens=12"] == 4 * 2, "a continuation stops at the end of its line"
    assert report.exact_token_counts and report.metrics["truncated_units"] == 4
    bodies = openai_app.state.bodies
    assert {b["temperature"] for b in bodies} == {0.8}, "the summaries task's own temperature"
    seeds = [b["seed"] for b in bodies]
    assert all(isinstance(seed, int) for seed in seeds) and len(set(seeds)) == 4 * 2, "a seed per request"
    # generation.seed reaches the server: the same seed asks for the same samples, another seed for others
    flags = [*served_summaries(base_url, "", prompt_lm_dir), f"generation.out={tmp_path / 'planned'}"]
    again = {b["prompt"]: b["seed"] for b in _requests_of(gen_config(*flags))}
    assert again == {b["prompt"]: b["seed"] for b in bodies}
    assert not set(seeds) & {b["seed"] for b in _requests_of(gen_config(*flags, "generation.seed=1"))}


def _requests_of(cfg) -> list[dict]:
    """The request bodies of a run's first round, built as the engine builds them (nothing is sent)."""
    import pandas as pd

    from semcse.stages.generation.engines import sampling_params
    from semcse.stages.generation.http_engine import request_body
    from semcse.stages.generation.runner import Generation
    from semcse.stages.generation.stages import ONLY, ROUND, SHARD, build_requests

    generation = Generation(cfg)
    shards, _, _ = generation.plan()
    units = pd.concat([s.units.assign(**{SHARD: s.key, ONLY: "", ROUND: 0}) for s in shards])
    gen = generation.gen
    rows = build_requests(units, generation.task, generation.tokenizer, gen.max_model_len - gen.new_tokens, gen.seed)
    sampling = sampling_params(gen, generation.task)
    return [request_body(row, gen.model, sampling) for row in rows.to_dict("records")]


@pytest.mark.slow
def test_engine_failures_leave_their_units_unfinished_and_the_run_goes_on(
    ray_cluster, gen_config, openai_server, prompt_lm_dir
):
    """500s (retried, then given up), 400s, non-JSON bodies: no verdict on a unit, so it is neither written nor
    rejected; the other units are written, and the causes are counted."""
    base_url, calls = openai_server
    cfg = gen_config(
        *served_summaries(base_url, "faulty", prompt_lm_dir),
        "generation.http.max_retries=2",
        "generation.http.backoff_s=0",
        "generation.limit=8",
    )
    report = run_generation(cfg)
    out = Path(cfg.generation.out)
    rows, rejects = outputs(out)
    fates = {fate: calls[f"faulty:{fate}"] for fate in FATES}
    assert all(fates.values()), f"every kind of answer was exercised: {fates}"
    assert fates["500"] % 3 == 0, "a 500 is retried twice before the request is given up"
    failed_requests = fates["500"] // 3 + fates["400"] + fates["garbage"]
    assert report.engine_errors == {
        "http 500": 2 * (fates["500"] // 3),
        "http 400": 2 * fates["400"],
        "http 200, not JSON": 2 * fates["garbage"],
    }, "every failed sample is counted by its cause"
    finished = rows["id"].nunique()
    assert 0 < finished < 8 and report.units_unfinished == 8 - finished
    assert len(rows) == finished * 2 * 2 and set(rows["text"]) == {"the soil effects of invasive plants."}
    assert len(rejects) == 0 and report.rejects_written == 0, "an engine failure is not a verdict on the unit"
    assert report.metrics["count.ok"] == len(rows) and 2 * (fates["ok"] + failed_requests) == 8 * 2 * 2
    again = Generation(cfg).plan()
    assert again[1:] == (8, finished) and sum(len(s.units) for s in again[0]) == 8 - finished


@pytest.mark.slow
def test_an_outage_costs_a_rerun_never_data(ray_cluster, gen_config, openai_server, openai_app, prompt_lm_dir):
    """30% of requests fail until the server recovers; the rerun generates exactly the units left unfinished."""
    from semcse.core.data.generated import read_texts

    base_url, calls = openai_server
    cfg = gen_config(
        *served_summaries(base_url, "flaky", prompt_lm_dir),
        "generation.http.max_retries=1",
        "generation.http.backoff_s=0",
        "generation.limit=10",
    )
    openai_app.state.outage = True
    during = run_generation(cfg)
    assert calls["flaky:503"] > 0 and calls["flaky:ok"] > 0
    written = read_texts(cfg.generation.out)
    assert 0 < during.units_unfinished < 10 and written["id"].nunique() == 10 - during.units_unfinished
    assert set(during.engine_errors) == {"http 503"} and during.rejects_written == 0

    openai_app.state.outage = False
    after = run_generation(cfg)
    assert (after.units, after.units_reused, after.units_unfinished) == (during.units_unfinished, 10 - after.units, 0)
    texts = read_texts(cfg.generation.out)  # refuses duplicated rows itself; checked here in so many words too
    assert texts["id"].nunique() == 10 and len(texts) == 10 * 2 * 2
    assert not texts.duplicated(["id", "prompt_id", "sample"]).any()
    assert (texts.groupby("id").size() == 2 * 2).all(), "every unit has all its rows"


@pytest.mark.slow
def test_summaries_cut_off_by_their_budget_are_rejected_and_counted(
    ray_cluster, gen_config, openai_server, prompt_lm_dir
):
    from semcse.core.data.generated import read_texts

    base_url, calls = openai_server
    cfg = gen_config(*served_summaries(base_url, "cutoff", prompt_lm_dir), "generation.limit=8")
    report = run_generation(cfg)
    rows, rejects = outputs(Path(cfg.generation.out))
    assert calls["cutoff:length"] > 0 and calls["cutoff:stop"] > 0
    assert len(rejects) == 2 * calls["cutoff:length"] and set(rejects["raw"]) == {CUT_OFF}
    assert rejects["reason"].str.startswith("cut off:").all()
    assert report.reject_reasons == {"cut off": len(rejects)} and report.metrics["rejected.cut off"] == len(rejects)
    assert len(rows) == 2 * calls["cutoff:stop"] and set(rows["text"]) == {"the soil effects of invasive plants."}

    # rejects are final: a rerun has nothing to do, unless it asks to retry them (`--retry-rejects`)
    assert run_generation(cfg).units == 0
    retried = run_generation(
        gen_config(
            *served_summaries(base_url, "cutoff", prompt_lm_dir), "generation.limit=8", "generation.retry_rejects=true"
        )
    )
    rejected = rejects["id"].nunique()
    assert (retried.units, retried.units_reused) == (rejected, 8 - rejected)
    texts = read_texts(cfg.generation.out)
    assert len(texts) == len(rows) and not texts.duplicated(["id", "prompt_id", "sample"]).any()


@pytest.mark.slow
def test_a_killed_run_resumes_losing_only_work_in_flight(ray_cluster, gen_config, openai_server, prompt_lm_dir):
    """`semcse generate` in its own process, SIGKILLed after two units are on disk; the rerun does the rest."""
    import ray

    from semcse.core.data.generated import Manifest, read_texts

    base_url, _ = openai_server
    flags = [
        f"generation.prompts={json.dumps(SUMMARY_PROMPTS[:2])}",
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
    assert_complete(out, ["id", "prompt_id", "sample"], 8 * 2 * 2, TEXTS_SCHEMA)
    texts = read_texts(out)
    assert len(texts) == 8 * 2 * 2 and texts["id"].nunique() == 8
