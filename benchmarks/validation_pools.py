"""How hard is the title check for the base model: its abstracts alone against lexical distractors, the corpus, chance.

all-MiniLM-L6-v2 ranks each of `--queries` random abstracts of the first `--train` invasion-biology abstracts for
its own title among candidates: the queries' abstracts alone; with each query's k nearest other abstracts by
TF-IDF (`training.distractors.lexical_neighbours`, what validation adds); with as many random abstracts; with
every abstract. Printed per pool: its size, the mean hard rank and the share of titles whose abstract is not
first, beside the queries-only pool as the obvious alternative. Raw: benchmarks/results/validation-pools-<commit>.json.

    .venv/bin/python benchmarks/validation_pools.py
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from _common import minilm_dir, save_results
from _heldout import INVASION

from semcse.models.encoder import TextEncoder
from semcse.stages.evaluation.metrics import true_ranks
from semcse.stages.training.distractors import lexical_neighbours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=4000)
    parser.add_argument("--queries", type=int, default=256)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    frame = pd.read_parquet(INVASION, columns=["title", "abstract"]).head(args.train)
    rng = np.random.default_rng(args.seed)
    queries = rng.choice(len(frame), args.queries, replace=False)
    others = np.setdiff1d(np.arange(len(frame)), queries)
    encoder = TextEncoder.load(str(minilm_dir()))
    abstracts = encoder.encode(frame["abstract"].tolist(), batch_size=32, max_length=args.max_length)
    titles = encoder.encode(frame["title"].iloc[queries].tolist(), batch_size=64, max_length=args.max_length)
    texts = frame["abstract"].astype(str).tolist()
    pools = {"queries alone": np.empty(0, dtype=np.int64)}
    for k in (1, 2, 4, 8):
        chosen = lexical_neighbours([texts[i] for i in queries], [texts[i] for i in others], k)
        pools[f"{k} TF-IDF neighbours each"] = others[chosen]
        if k in (2, 4):
            pools[f"{len(chosen)} random (as many as {k} neighbours each)"] = rng.choice(others, len(chosen), False)
    pools["every abstract"] = others
    rows = []
    for name, extra in pools.items():
        ranks = true_ranks(titles, np.concatenate([abstracts[queries], abstracts[extra]]), similarity="cosine")
        rows.append({"pool": name, "candidates": args.queries + len(extra), "mean_rank": ranks.mean()})
        rows[-1] |= {"not_first": float((ranks > 1).mean())}
    table = pd.DataFrame(rows)
    alone = table.loc[0, "not_first"]
    table["not_first_vs_alone"] = table["not_first"] / alone
    print(table.round(3).to_string(index=False))
    save_results("validation-pools", {"args": vars(args), "pools": rows})


if __name__ == "__main__":
    main()
