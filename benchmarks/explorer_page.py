"""The explorer page at a real corpus's size, in chromium: first paint, pan frames, hover, search to drawn hits.

Targets from the issue (37,100 invasion-biology papers): first paint ≤ 1.5 s after the page has its data, a pan
frame ≤ 16 ms at the 95th percentile, search to drawn hits ≤ 300 ms.

The corpus (`--corpus`, default the invasion-biology corpus in SEMCSE_DATA) is embedded by all-MiniLM-L6-v2 from
its titles alone (its abstracts would take about 45 minutes on 2 cores, and drawing does not depend on what the
vectors read), laid out by the map's own t-SNE, indexed, and served by the search and map apps as `semcse serve`
deploys them on a local cluster. `--work DIR` keeps what was built, so a second run measures at once.

In the page (Debian's chromium, headless, through Playwright):

1. when the points arrived and when the first frame was drawn, and how long naming the regions took;
2. pan frames, ours (every point written into one pixel buffer, `map.js`) against the obvious alternative (every
   point its own canvas path, `arc` + `fill`), taking turns over the same views, each frame flushed by reading a
   pixel back; and the interval between animation frames while the page pans itself;
3. a hover: a pointer move over a point until its tooltip is written, and until the next frame has drawn its ring;
4. searches typed and sent from the page, until the 20 hits are listed and the next frame has drawn them.

Raw figures go to benchmarks/results/explorer-page-<commit>.json.

    .venv/bin/python benchmarks/explorer_page.py [--work DIR] [--papers N] [--searches 20]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _common import free_port, minilm_dir, save_results

from semcse.core.resources import data_dir

REPO = Path(__file__).resolve().parents[1]
CORPUS = (REPO / data_dir()).resolve() / "invasion_biology_unlabelled.parquet"
CHROMIUM = Path("/usr/bin/chromium")
TARGETS_MS = {"first_paint_after_data": 1500.0, "pan_frame_p95": 16.0, "search_to_drawn_hits": 300.0}
FRAMES = 60

# In the page: the same views drawn by map.js and by one canvas path per point, taking turns; a pixel read back
# flushes each frame's drawing. Then the page pans itself for FRAMES animation frames.
FRAMES_JS = """async (frames) => {
  const e = window.explorer, s = e.state, canvas = document.querySelector("#map");
  const context = canvas.getContext("2d");
  const start = { ...s.view };
  const viewAt = (i) => ({ ...start, cx: start.cx + (i * 6) / start.scale, cy: start.cy - (i * 3) / start.scale });
  const arcs = () => {
    const { xs, ys } = s.layout, v = s.view, hexes = s.colouring.hexes;
    const r = Math.max(1.5, 2 * devicePixelRatio);
    context.fillStyle = "#fbfcfd"; context.fillRect(0, 0, canvas.width, canvas.height);
    for (let i = 0; i < xs.length; i++) {
      const x = (xs[i] - v.cx) * v.scale + v.width / 2, y = v.height / 2 - (ys[i] - v.cy) * v.scale;
      if (x < 0 || y < 0 || x > v.width || y > v.height) continue;
      context.beginPath(); context.arc(x, y, r, 0, 2 * Math.PI); context.fillStyle = hexes[i]; context.fill();
    }
  };
  const ours = [], paths = [];
  for (let i = 0; i < frames; i++) {
    for (const [draw, into] of i % 2 ? [[arcs, paths], [e.redraw, ours]] : [[e.redraw, ours], [arcs, paths]]) {
      s.view = viewAt(i);
      const t0 = performance.now();
      draw();
      context.getImageData(0, 0, 1, 1);
      into.push(performance.now() - t0);
    }
  }
  const intervals = await new Promise((done) => {
    const stamps = [];
    const step = (now) => {
      stamps.push(now);
      s.view = viewAt(stamps.length);
      e.redraw();
      if (stamps.length <= frames) requestAnimationFrame(step);
      else done(stamps.slice(2).map((t, i) => t - stamps[i + 1])); // the first frame's time predates the loop above
    };
    requestAnimationFrame(step);
  });
  s.view = start; e.redraw();
  return { ours, paths, intervals };
}"""

HOVER_JS = """async (nth) => {
  const e = window.explorer, s = e.state, canvas = document.querySelector("#map");
  const box = canvas.getBoundingClientRect();
  const id = s.layout.ids.filter((candidate) => {
    const p = e.screenOf(candidate);
    return p && p.x > 40 && p.y > 80 && p.x < box.width - 40 && p.y < box.height - 40;
  })[nth * 997];
  const p = e.screenOf(id);
  const t0 = performance.now();
  const move = { clientX: box.left + p.x, clientY: box.top + p.y, bubbles: true };
  canvas.dispatchEvent(new PointerEvent("pointermove", move));
  const tooltip = performance.now() - t0;
  const shown = !document.querySelector("#tooltip").hidden;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return { tooltip_ms: tooltip, ring_drawn_ms: performance.now() - t0, shown };
}"""

SEARCH_JS = """async (query) => {
  const list = document.querySelector("#results");
  list.replaceChildren();
  document.querySelector("#query").value = query;
  const t0 = performance.now();
  document.querySelector("#search-button").click();
  await new Promise((done) => {
    const check = () => (list.children.length >= 20 ? done() : null);
    new MutationObserver(check).observe(list, { childList: true });
    check();
  });
  const listed = performance.now() - t0;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  return { listed_ms: listed, drawn_ms: performance.now() - t0 };
}"""


def build(work: Path, corpus: Path, papers: int | None) -> dict[str, str]:
    """Index and map of the corpus (title vectors, the map's own t-SNE), kept in `work` for later runs."""
    from semcse.models.aspects import encode_aspects
    from semcse.models.unified import load_encoder
    from semcse.stages.maps import layout
    from semcse.stages.search import SearchIndex

    parts = {"index": str(work / "index"), "map": str(work / "map"), "encoder": str(minilm_dir())}
    if (work / "index").is_dir() and (work / "map").is_dir():
        print(f"index and map from {work}")
        return parts
    frame = pd.read_parquet(corpus).drop_duplicates("id")
    frame = frame.head(papers) if papers else frame
    ids, titles = frame["id"].astype(str).tolist(), frame["title"].astype(str).tolist()
    start = time.perf_counter()
    vectors = encode_aspects(load_encoder(str(minilm_dir())), titles, batch_size=128)
    print(f"{len(ids):,} titles embedded in {time.perf_counter() - start:.0f} s")
    start = time.perf_counter()
    semantic_map = layout(ids, vectors)
    print(f"laid out in {time.perf_counter() - start:.0f} s")
    details = frame[[c for c in frame.columns if c not in ("id", "title")]].reset_index(drop=True)
    SearchIndex.build(parts["encoder"], ids, titles, vectors, "cosine", details=details).save(parts["index"])
    semantic_map.save(parts["map"])
    return parts


def serve_apps(parts: dict[str, str]) -> str:
    """The search and map apps as `semcse serve` deploys them here; the page's URL."""
    from semcse.core.config import RunConfig, ServeConfig, TrackingConfig
    from semcse.orchestration.serving import deploy, prepare_deployment

    settings = ServeConfig(**parts, port=free_port())
    run = RunConfig(serve=settings, tracking=TrackingConfig(enabled=False))
    plan, notes, _ = prepare_deployment(None, run, ["search", "map"])
    for note in notes:
        print(f"note: {note}")
    failed = deploy(plan)
    if failed:
        raise RuntimeError(f"the apps did not start: {failed}")
    return f"http://127.0.0.1:{settings.port}/map/"


def measure(url: str, queries: list[str]) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 850})
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']", timeout=600_000)
        page.wait_for_function("() => window.explorer.regionNamesDrawn().length > 0", timeout=60_000)
        loaded = page.evaluate(
            """() => { const t = window.explorer.state.timings;
                       return {points_ms: t.points, first_paint_ms: t.firstPaint, titles_ms: t.papers,
                               regions_ms: t.regionsMs, papers: window.explorer.state.layout.ids.length,
                               names: window.explorer.regionNamesDrawn()}; }"""
        )
        page.screenshot(path=str(REPO / "test-artifacts" / "explorer-page-benchmark.png"))
        frames = page.evaluate(FRAMES_JS, FRAMES)
        hovers = [page.evaluate(HOVER_JS, nth) for nth in range(5)]
        searches = [page.evaluate(SEARCH_JS, query) for query in queries]
        browser.close()
    return {"loaded": loaded, "frames": frames, "hovers": hovers, "searches": searches}


def percentiles(values: list[float]) -> dict[str, float]:
    return {"median_ms": float(np.median(values)), "p95_ms": float(np.percentile(values, 95)), "max_ms": max(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--papers", type=int, default=None, help="the corpus's first N papers (default: all)")
    parser.add_argument("--searches", type=int, default=20)
    parser.add_argument("--work", type=Path, default=None, help="keep the built index and map here")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is absent: `make browser` installs it")
    if not args.corpus.is_file():
        raise SystemExit(f"{args.corpus} not found (set SEMCSE_DATA to the real corpora: docs/DATA.md)")
    (REPO / "test-artifacts").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        parts = build(work, args.corpus, args.papers)
        titles = pd.read_parquet(parts["index"] + "/papers.parquet")["title"]
        queries = titles.sample(n=args.searches, random_state=0).tolist()
        try:
            raw = measure(serve_apps(parts), queries)
        finally:
            from ray import serve

            serve.shutdown()

    loaded, frames = raw["loaded"], raw["frames"]
    figures = {
        "first_paint_after_data": loaded["first_paint_ms"] - loaded["points_ms"],
        "pan_frame_ours": percentiles(frames["ours"]),
        "pan_frame_canvas_paths": percentiles(frames["paths"]),
        "animation_frame_interval": percentiles(frames["intervals"]),
        "hover_tooltip": percentiles([h["tooltip_ms"] for h in raw["hovers"]]),
        "hover_ring_drawn": percentiles([h["ring_drawn_ms"] for h in raw["hovers"]]),
        "search_listed": percentiles([s["listed_ms"] for s in raw["searches"]]),
        "search_to_drawn_hits": percentiles([s["drawn_ms"] for s in raw["searches"]]),
    }
    print(f"\n{loaded['papers']:,} papers in chromium; region names drawn: {loaded['names'][:6]}")
    after = figures["first_paint_after_data"]
    print(f"points arrived {loaded['points_ms']:.0f} ms after navigation; first frame {after:.0f} ms later")
    print(f"regions named in {loaded['regions_ms']:.0f} ms (after the titles came, {loaded['titles_ms']:.0f} ms)")
    print(f"{'ms':<28} {'median':>8} {'p95':>8} {'max':>8}")
    for name, value in figures.items():
        if isinstance(value, dict):
            print(f"{name:<28} {value['median_ms']:>8.1f} {value['p95_ms']:>8.1f} {value['max_ms']:>8.1f}")
    ratio = figures["pan_frame_canvas_paths"]["median_ms"] / figures["pan_frame_ours"]["median_ms"]
    print(f"a frame drawn as canvas paths takes {ratio:.1f}× ours (medians)")
    checks = {
        "first_paint_after_data": figures["first_paint_after_data"],
        "pan_frame_p95": figures["pan_frame_ours"]["p95_ms"],
        "search_to_drawn_hits": figures["search_to_drawn_hits"]["p95_ms"],
    }
    for name, value in checks.items():
        verdict = "met" if value <= TARGETS_MS[name] else "missed"
        print(f"{name}: {value:.0f} ms against {TARGETS_MS[name]:.0f} ms: {verdict}")
    settings = {"corpus": str(args.corpus), "papers": loaded["papers"], "vectors": "titles, all-MiniLM-L6-v2"}
    save_results("explorer-page", {"settings": settings, "figures": figures, "ratio_paths_to_ours": ratio, "raw": raw})


if __name__ == "__main__":
    main()
