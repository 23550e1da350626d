"""The explorer's search and neighbours at 40k papers: exact weighted search in-process and served, side by side.

Target from the issue: search and neighbours answer within 100 ms at 40k papers on 2 cores.

40,000 synthetic papers in 40 clusters with three aspects of 150 dimensions (SemCSE-Multi's head
size); titles and abstracts are the demo corpus's, repeated. Text queries are encoded by a unified
model, all-MiniLM-L6-v2 with three random 150-d heads: the timing of a real encoder, rankings that
mean nothing. Nothing is trained.

1. In-process, neighbours of a paper under random weights: our exact weighted search
   (`SearchIndex.search`: the aspects' vectors side by side, one matrix-vector product, timed with
   the hits it returns) against the obvious alternatives: scoring each aspect on its own and summing
   (exact: one product per aspect), and a shortlist per aspect from its FAISS index, merged and
   rescored (approximate: its recall of the exact top k is printed).
2. Served: the search app deployed from semcse/apps/config.yaml as `semcse serve --app search`
   deploys it on a local cluster, over HTTP, one request at a time as the page sends them: text
   search (the query encoded on the replica), neighbours (search by id), a paper to read, and the
   listing of all papers the page loads once. Median, 95th percentile and max.

Within each part the methods or requests take turns on every query, so a busy spell on a shared
machine hits all of them alike.

Raw figures go to benchmarks/results/explorer-<commit>.json.

    .venv/bin/python benchmarks/explorer.py [--papers 40000] [--queries 200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pandas as pd
from _common import free_port, minilm_dir, save_results

REPO = Path(__file__).resolve().parents[1]
ASPECTS = ["hypothesis", "method", "species"]
DIM = 150
K = 20
NEIGHBOURS = 10
SHORTLIST = 100
TARGET_MS = 100.0


def build_index(work: Path, n: int) -> tuple[Any, str]:
    """A saved 40k-paper index (vectors clustered per aspect) and the unified model that encodes its queries."""
    import torch

    from semcse.models.unified import UnifiedEncoder
    from semcse.stages.search import SearchIndex

    torch.manual_seed(0)
    encoder = str(UnifiedEncoder.create(minilm_dir(), ASPECTS, dim=DIM).save(work / "encoder"))
    rng = np.random.default_rng(0)
    vectors = {}
    for aspect in ASPECTS:
        centres = rng.normal(size=(40, DIM))
        vectors[aspect] = (centres[rng.integers(0, 40, n)] + rng.normal(size=(n, DIM))).astype(np.float32)
    demo = pd.read_json(REPO / "examples" / "demo_corpus.jsonl", lines=True)
    rows = demo.iloc[np.arange(n) % len(demo)].reset_index(drop=True)
    ids = [f"paper-{i:06d}" for i in range(n)]
    details = rows[["abstract", "topic"]].assign(year=rng.integers(1990, 2025, n))
    index = SearchIndex.build(encoder, ids, rows["title"].tolist(), vectors, "cosine", details=details)
    index.save(work / "index")
    return index, encoder


def summary(seconds: list[float]) -> dict[str, float]:
    ms = np.asarray(seconds) * 1e3
    return {"median_ms": float(np.median(ms)), "p95_ms": float(np.percentile(ms, 95)), "max_ms": float(ms.max())}


Blocks = dict[str, np.ndarray]


def per_aspect_sum(blocks: Blocks, query: dict[str, np.ndarray], alpha: dict[str, float], exclude: int) -> list[int]:
    """Exact, the obvious way: each weighted aspect's similarities to every paper, summed with the weights."""
    total = np.zeros(len(next(iter(blocks.values()))), dtype=np.float32)
    for aspect, weight in alpha.items():
        total += weight * (blocks[aspect] @ query[aspect][0])
    total[exclude] = -np.inf
    top = np.argpartition(-total, K - 1)[:K]
    return top[np.argsort(-total[top])].tolist()


def shortlists(
    index: Any, blocks: Blocks, query: dict[str, np.ndarray], alpha: dict[str, float], exclude: int
) -> list[int]:
    """Approximate: each weighted aspect's own top SHORTLIST from FAISS, merged and rescored with the weights."""
    candidates: set[int] = set()
    for aspect in alpha:
        _, rows = index.indexes[aspect].search(query[aspect], SHORTLIST + 1)
        candidates.update(int(r) for r in rows[0] if r >= 0)
    candidates.discard(exclude)
    rows = np.fromiter(candidates, dtype=np.int64)
    score = sum(w * (blocks[a][rows] @ query[a][0]) for a, w in alpha.items())
    return rows[np.argsort(-score)[:K]].tolist()


def interleaved(methods: dict[str, Callable[[int], Any]], queries: int) -> dict[str, tuple[list[Any], list[float]]]:
    """Each method's answers and wall times per query, the methods taking turns on every query (in rotating
    order, after five untimed warm-up calls each), so a busy spell on a shared machine hits all of them."""
    names = list(methods)
    for name in names:
        for i in range(5):
            methods[name](i)
    out: dict[str, tuple[list[Any], list[float]]] = {name: ([], []) for name in names}
    for i in range(queries):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            start = time.perf_counter()
            value = methods[name](i)
            out[name][1].append(time.perf_counter() - start)
            out[name][0].append(value)
    return {name: (out[name][0], out[name][1]) for name in names}


def in_process(index: Any, queries: int, rng: np.random.Generator) -> dict[str, Any]:
    """Neighbours of random papers under random weights, three ways; milliseconds and the shortlist's recall.

    Ours is timed as the app calls it: the ranking plus the hits it returns (ids, titles, every aspect's
    similarity); the alternatives return row numbers only.
    """
    index.stacked()
    blocks = {a: index.indexes[a].vectors() for a in ASPECTS}  # each kept in memory, as ours keeps its matrix
    rows = rng.integers(0, len(index.papers), queries)
    weights = [dict(zip(ASPECTS, rng.dirichlet(np.ones(len(ASPECTS))))) for _ in range(queries)]
    stored = [index.stored(int(row)) for row in rows]
    alphas = [index.weights(w) for w in weights]
    runs = interleaved(
        {
            "ours_exact_stacked": lambda i: index.search(stored[i], K, weights[i], exclude=int(rows[i])),
            "per_aspect_sum_exact": lambda i: per_aspect_sum(blocks, stored[i], alphas[i], int(rows[i])),
            "per_aspect_shortlists_approximate": lambda i: shortlists(
                index, blocks, stored[i], alphas[i], int(rows[i])
            ),
        },
        queries,
    )
    exact = [[index.row_of(hit.id) for hit in hits] for hits in runs["ours_exact_stacked"][0]]
    assert exact == runs["per_aspect_sum_exact"][0], "the two exact methods disagree"
    short = runs["per_aspect_shortlists_approximate"][0]
    recall = float(np.mean([len(set(a) & set(b)) / K for a, b in zip(exact, short)]))
    figures = {name: summary(seconds) for name, (_, seconds) in runs.items()}
    figures["per_aspect_shortlists_approximate"]["recall_at_k"] = recall
    return figures


def served(index_dir: str, encoder: str, index: Any, queries: int, rng: np.random.Generator) -> dict[str, Any]:
    """The search app as `semcse serve --app search` deploys it here, timed over HTTP one request at a time."""
    from ray import serve

    from semcse.core.config import RunConfig, ServeConfig, TrackingConfig
    from semcse.orchestration.serving import deploy, prepare_deployment

    settings = ServeConfig(index=index_dir, encoder=encoder, port=free_port())
    plan, notes, _ = prepare_deployment(
        None, RunConfig(serve=settings, tracking=TrackingConfig(enabled=False)), ["search"]
    )
    for note in notes:
        print(f"note: {note}")
    deployment = plan["applications"][0]["deployments"][0]
    print(f"search deployment: {json.dumps(deployment)}")
    url = f"http://127.0.0.1:{settings.port}/search"
    ids = index.papers["id"].tolist()
    titles = index.papers["title"].tolist()
    picks = rng.integers(0, len(ids), queries)
    weights = [dict(zip(ASPECTS, map(float, rng.dirichlet(np.ones(len(ASPECTS)))))) for _ in range(queries)]
    try:
        failed = deploy(plan)
        if failed:
            raise RuntimeError(f"the search app did not start: {failed}")
        with httpx.Client(timeout=60) as http:

            def ok(response: httpx.Response) -> httpx.Response:
                response.raise_for_status()
                return response

            runs = interleaved(
                {
                    "text_search": lambda i: ok(
                        http.post(url, json={"query": titles[picks[i]], "k": K, "weights": weights[i]})
                    ),
                    "neighbours": lambda i: ok(
                        http.post(url, json={"id": ids[picks[i]], "k": NEIGHBOURS, "weights": weights[i]})
                    ),
                    "paper": lambda i: ok(http.get(f"{url}/papers/{ids[picks[i]]}")),
                    "listing": lambda i: ok(http.get(f"{url}/papers")),
                },
                queries,
            )
            return {
                name: summary(seconds) | {"bytes": len(responses[-1].content), "requests": queries}
                for name, (responses, seconds) in runs.items()
            }
    finally:
        serve.shutdown()


def spread(values: list[float]) -> str:
    return f"{np.median(values):.2f} [{min(values):.2f}–{max(values):.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=40_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the in-process comparison")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        start = time.perf_counter()
        index, encoder = build_index(work, args.papers)
        built = time.perf_counter() - start
        print(f"{args.papers:,} papers × {len(ASPECTS)} aspects × {DIM} dims built in {built:.1f} s")
        rounds = [in_process(index, args.queries, rng) for _ in range(args.repeats)]
        remote = served(str(work / "index"), encoder, index, args.queries, rng)

    print(f"\nin-process neighbours (top {K}, random weights), {args.repeats} rounds of {args.queries} queries:")
    print("median [min–max] over rounds of each round's median and 95th percentile (ms) and of the ratio to ours")
    print(f"{'method':<36} {'median ms':>20} {'p95 ms':>20} {'median ×ours':>18} {'recall':>9}")
    for name in rounds[0]:
        medians = [r[name]["median_ms"] for r in rounds]
        ratios = [r[name]["median_ms"] / r["ours_exact_stacked"]["median_ms"] for r in rounds]
        recall = f"{rounds[0][name]['recall_at_k']:.3f}" if "recall_at_k" in rounds[0][name] else "1 (exact)"
        p95 = spread([r[name]["p95_ms"] for r in rounds])
        print(f"{name:<36} {spread(medians):>20} {p95:>20} {spread(ratios):>18} {recall:>9}")
    print(f"\nserved over HTTP (search app, {args.papers:,} papers), ms; target: {TARGET_MS:.0f} ms:")
    print(f"{'request':<14} {'median':>8} {'p95':>8} {'max':>8} {'bytes':>10}  p95 within target")
    for name, figures in remote.items():
        within = "yes" if figures["p95_ms"] <= TARGET_MS else "no"
        print(
            f"{name:<14} {figures['median_ms']:>8.1f} {figures['p95_ms']:>8.1f} {figures['max_ms']:>8.1f} "
            f"{figures['bytes']:>10,}  {within}"
        )
    settings = {"papers": args.papers, "aspects": ASPECTS, "dim": DIM, "k": K, "queries": args.queries}
    save_results("explorer", {"settings": settings, "in_process_rounds": rounds, "served": remote})


if __name__ == "__main__":
    main()
