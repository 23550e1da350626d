"""Does validation's `val_base_drift` say what a fine-tuned model lost on held-out data?

Validation sees only what the pairs train and the corpus's labels; the held-out medical-methodology judgements
(docs/tune.md) are out of its sight, and every LLM-free recipe lost there. This takes the models that
`benchmarks/quality.py` trained and scored (its `--work` directory beside its raw JSON), measures each model's drift
from the base model's similarities (`validation.base_drift`, the figure every evaluation logs) on in-domain abstracts
that no run trained on, and puts it beside the paired held-out differences from the base that the raw JSON holds.
Prints the table and the rank correlation of drift with each difference; saves the raw figures.

    .venv/bin/python benchmarks/drift.py --runs WORK=benchmarks/results/quality-recipes-<commit>.json [...]

Each `WORK` is a `quality.py --work` directory: a delivered model is `WORK/recipes/<name>/encoder`, a `-last` one the
run's last checkpoint. The abstracts are ohsumed training-split rows outside every run's `train.parquet`, truncated
to `--max-length` tokens as validation truncates them to `training.max_length` (quality.py's `--seq`, 128): the figure
validation logs, on abstracts the model did not train on. (Validation runs its forwards in bf16 where the CPU has it;
this script in fp32.)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
from _common import last_step_model, minilm_dir, ohsumed_split, save_results
from scipy.stats import spearmanr

from semcse.models.encoder import TextEncoder
from semcse.stages.training.validation import base_drift

FIGURES = {
    "methodology": "methodology:spearman:methodology",
    "label_agreement": "ohsumed:label_agreement",
    "knn_accuracy": "ohsumed:knn_accuracy",
}


def model_dir(work: Path, name: str) -> Path:
    """Where `quality.py` left the model it scored as `name`."""
    run = work / "recipes" / name.removesuffix("-last")
    if not name.endswith("-last"):
        return run / "encoder"
    last = last_step_model(run / "run")
    if last is None:
        raise SystemExit(f"{run}: no checkpoint to score as {name}")
    return last


def unseen_abstracts(works: list[Path], count: int) -> list[str]:
    """A seeded sample of ohsumed training-split abstracts that none of the runs trained on."""
    trained: set[str] = set()
    for work in works:
        trained |= set(pd.read_parquet(work / "recipes" / "train.parquet")["id"])
    pool = ohsumed_split("train")
    pool = pool[~pool["id"].isin(trained)]
    return pool.sample(n=min(count, len(pool)), random_state=0)["abstract"].astype(str).tolist()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", nargs="+", default=[], metavar="WORK=RAW_JSON", help="quality.py runs")
    parser.add_argument("--abstracts", type=int, default=256, help="unseen in-domain abstracts to measure drift on")
    parser.add_argument("--max-length", type=int, default=128, help="tokens kept per abstract (the runs' --seq)")
    args = parser.parse_args()
    if not args.runs:  # `make bench` runs every script bare: this one reads what quality.py left behind
        print("skipped: no quality.py runs given (--runs WORK=RAW_JSON; see --help)")
        return
    runs = [(Path(work), Path(raw)) for work, _, raw in (item.partition("=") for item in args.runs)]
    texts = unseen_abstracts([work for work, _ in runs], args.abstracts)
    base = TextEncoder.load(str(minilm_dir())).encode(texts, max_length=args.max_length)
    rows = []
    for work, raw in runs:
        paired = json.loads(raw.read_text())["differences"]
        differences = {(d["a"], d["figure"]): d["difference"] for d in paired if d["b"] == "base"}
        for name in sorted({a for a, _ in differences}):
            vectors = TextEncoder.load(str(model_dir(work, name))).encode(texts, max_length=args.max_length)
            row = {"work": str(work), "raw": raw.name, "model": name, "drift": base_drift(vectors, base)}
            row |= {short: differences.get((name, figure)) for short, figure in FIGURES.items()}
            rows.append(row)
            print(f"{work.name}/{name}: drift {row['drift']:.4f}, methodology {row['methodology']:+.3f}", flush=True)
    table = pd.DataFrame(rows)
    shown = table.assign(model=[f"{Path(w).name}/{m}" for w, m in zip(table["work"], table["model"], strict=True)])
    print(shown.drop(columns=["work", "raw"]).to_string(index=False, float_format=lambda x: f"{x:+.4f}"))
    correlations = {
        short: float(spearmanr(table["drift"], table[short], nan_policy="omit").statistic) for short in FIGURES
    }
    for short, rho in correlations.items():
        print(f"Spearman(drift, {short} − base's) over {len(table)} models: {rho:+.2f}")
    save_results(
        "drift", {"abstracts": len(texts), "max_length": args.max_length, "models": rows, "spearman": correlations}
    )


if __name__ == "__main__":
    main()
