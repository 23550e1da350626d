"""Does our trainer deliver a better model? Base vs our trainer vs plain sentence-transformers, and crops vs dropout.

Part `minilm` (the issue's side-by-side): for each seed, on the same ohsumed training abstracts with the
same crop pairs, steps, batch and sequence length, (a) our Ray Train + DeepSpeed trainer (`crops`, its
default recipe) and (b) sentence-transformers' own trainer with MultipleNegativesRankingLoss (random
batches, its defaults) fine-tune all-MiniLM-L6-v2. The base, (a) and (b) are scored by the platform's
own suites: `knn` on ohsumed (held-out test papers classified by their 10 nearest training papers)
and `aspects` on the medical-methodology judgements (Spearman of similarity vs LLM judgements).
Also printed: our run's validation score for the base, the delivered (best) step and the last
step, and both trainers' wall time. Our trainer reads the corpus's labels as a user's labelled corpus
would be read (`corpus.label_col`), so its label guard is on; sentence-transformers has no such guard.

Part `scratch` (the cropping paper's Table S5 on this machine): a randomly initialised BERT
(`scratch:bert-mini`, vocabulary counted on the training abstracts) trained with crops and with
dropout on the same data and budget, scored by `knn` next to its random start and MiniLM.

Skips with a message when ../shared/data is absent. Not a test: figures depend on the machine and
take tens of minutes on 2 cores.

    .venv/bin/python benchmarks/quality.py --part minilm --seeds 0 1 2 --steps 60
    .venv/bin/python benchmarks/quality.py --part scratch --train 3000 --test 500
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import OHSUMED, crops_config, minilm_dir, ohsumed_split, st_fit

from semcse.data.io import write_parquet
from semcse.embedding import ModelRef
from semcse.evaluation import aspects, knn
from semcse.training.driver import STATUS_FILE
from semcse.training.trainer import prepare, train

JUDGEMENTS = OHSUMED.parent / "pairwise" / "medical_methodology"


def labelled_data(work: Path, train: int, test: int) -> tuple[Path, Path]:
    """The training corpus (a seeded sample of ohsumed's train split, with its labels, which our trainer's label
    guard reads as a user's labelled corpus would be read) and the labelled kNN set (it + test papers)."""
    train_split = ohsumed_split("train", train)
    corpus = write_parquet(train_split[["id", "title", "abstract", "label"]], work / "train.parquet")
    labelled = pd.concat([train_split, ohsumed_split("test", test)], ignore_index=True)
    return corpus, write_parquet(labelled, work / "labelled.parquet")


def score(models: list[ModelRef], labelled: Path, cfg, work: Path, with_aspects: bool) -> pd.DataFrame:
    """kNN accuracy on ohsumed (and methodology Spearman) for every model, one row each."""
    table = knn.run(models, labelled, cfg, work / "eval-knn").table[["knn_accuracy"]]
    if with_aspects and JUDGEMENTS.parent.is_dir():
        judged = aspects.run(models, JUDGEMENTS, cfg, work / "eval-aspects").table
        column = next(c for c in judged.columns if c.startswith("spearman:"))
        table = table.join(judged[[column]].rename(columns={column: "methodology_spearman"}))
    return table


def summarise(table: pd.DataFrame, groups: dict[str, list[str]]) -> pd.DataFrame:
    """Mean, standard deviation and range over the seeds of each group of rows."""
    rows = {}
    for group, names in groups.items():
        part = table.loc[names]
        for column in part.columns:
            values = part[column].astype(float)
            rows.setdefault(group, {})[column] = (
                f"{values.mean():.4f} ± {values.std(ddof=1) if len(values) > 1 else 0:.4f} "
                f"[{values.min():.4f}, {values.max():.4f}]"
            )
    return pd.DataFrame.from_dict(rows, orient="index")


def minilm_part(args: argparse.Namespace, work: Path) -> None:
    corpus, labelled = labelled_data(work, args.train, args.test)
    models = [ModelRef("base", str(minilm_dir()))]
    runs = []
    for seed in args.seeds:
        run_dir = work / f"seed{seed}"
        cfg = crops_config(
            run_dir,
            corpus,
            args.steps,
            args.batch,
            args.seq,
            args.workers,
            evaluations=3,
            **{"training.seed": seed, "corpus.label_col": "label"},
        )
        prepared = prepare(cfg)
        start = time.perf_counter()
        ours = train(cfg, prepared)
        ours_wall = time.perf_counter() - start
        st = st_fit(minilm_dir(), prepared.train_rows, run_dir / "st", args.steps, args.batch, args.seq, seed=seed)
        status = json.loads((Path(ours.model_dir) / STATUS_FILE).read_text())
        runs.append({"seed": seed, "ours_wall_s": ours_wall, "st_wall_s": st.wall_s} | status)
        models += [ModelRef(f"ours-{seed}", str(ours.model_dir)), ModelRef(f"st-{seed}", str(st.model_dir))]
    cfg = crops_config(
        work / "eval",
        corpus,
        args.steps,
        args.batch,
        args.seq,
        args.workers,
        **{"evaluation.judged_aspects.medical_methodology": "methodology"},
    )
    table = score(models, labelled, cfg, work, with_aspects=True)
    seeds = args.seeds
    summary = summarise(
        table,
        {
            "all-MiniLM-L6-v2 (base)": ["base"],
            "(a) ours, crops": [f"ours-{s}" for s in seeds],
            "(b) sentence-transformers fit, MNRL": [f"st-{s}" for s in seeds],
        },
    )
    print(f"\nohsumed: {args.train} training abstracts (crops drawn from them), {args.test} held-out test papers")
    print(f"{args.steps} steps × {args.batch} pairs, seq {args.seq}, seeds {seeds}; mean ± sd [min, max]\n")
    print(summary.to_string())
    print("\nper model:\n" + table.round(4).to_string())
    diff = {
        column: table.loc[[f"ours-{s}" for s in seeds], column].to_numpy()
        - table.loc[[f"st-{s}" for s in seeds], column].to_numpy()
        for column in table.columns
    }
    print(
        "\n(a) − (b), paired by seed: "
        + ", ".join(f"{c} {np.mean(d):+.4f} (sd {np.std(d):.4f})" for c, d in diff.items())
    )
    print("\nour runs (validation: average rank, lower is better; the delivered model is the best step):")
    print(pd.DataFrame(runs).round(3).to_string(index=False))


def scratch_part(args: argparse.Namespace, work: Path) -> None:
    corpus, labelled = labelled_data(work, args.train, args.test)
    models = [ModelRef("all-MiniLM-L6-v2", str(minilm_dir()))]
    runs = []
    for pairs in ("crops", "dropout"):
        cfg = crops_config(
            work / pairs,
            corpus,
            args.scratch_steps,
            args.scratch_batch,
            args.seq,
            args.workers,
            evaluations=4,
            **{
                "training.pairs": pairs,
                "training.base_model": f"scratch:{args.scratch_arch}",
                "training.learning_rate": args.scratch_lr,
            },
        )
        prepared = prepare(cfg)
        if pairs == "crops":
            models.append(ModelRef(f"{args.scratch_arch}, random init", prepared.training.base_model))
        result = train(cfg, prepared)
        status = json.loads((Path(result.model_dir) / STATUS_FILE).read_text())
        runs.append({"pairs": pairs} | status)
        models.append(ModelRef(f"{args.scratch_arch}, {pairs} from scratch", str(result.model_dir)))
    cfg = crops_config(work / "eval", corpus, args.steps, args.batch, args.seq, args.workers)
    table = score(models, labelled, cfg, work, with_aspects=False)
    print(
        f"\nfrom scratch: {args.scratch_arch}, {args.scratch_steps} steps × {args.scratch_batch} pairs, "
        f"lr {args.scratch_lr}, on {args.train} ohsumed training abstracts; kNN on {args.test} test papers\n"
    )
    print(table.round(4).to_string())
    print("\nvalidation (average rank, lower is better):")
    print(pd.DataFrame(runs).round(3).to_string(index=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["minilm", "scratch", "all"], default="all")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=60, help="MiniLM fine-tuning steps (both trainers)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--train", type=int, default=1500, help="ohsumed training abstracts (kNN reference too)")
    parser.add_argument("--test", type=int, default=500, help="ohsumed test papers to classify")
    parser.add_argument("--scratch-arch", default="bert-mini")
    parser.add_argument("--scratch-steps", type=int, default=300)
    parser.add_argument("--scratch-batch", type=int, default=64)
    parser.add_argument("--scratch-lr", type=float, default=5e-4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.part in ("minilm", "all"):
            minilm_part(args, Path(tmp) / "minilm")
        if args.part in ("scratch", "all"):
            scratch_part(args, Path(tmp) / "scratch")


if __name__ == "__main__":
    main()
