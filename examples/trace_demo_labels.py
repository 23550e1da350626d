"""Which demo papers a trained model moves: label agreement by kind of paper, and neighbours in the borrowed field.

About half of the demo corpus's papers are interdisciplinary: each is labelled with the field whose question it
answers and borrows its methods, data or setting from a partner field (AI-ECG screening is cardiology borrowing from
machine learning; `make_demo_corpus.papers` knows the partner, the corpus does not). This script takes every paper's
vector (title and abstract) under the base model and the trained one, as the run's kNN evaluation stored them in
`<run>/embeddings` (embedding only what is missing: the latest kept checkpoint, when training delivered the base),
and splits label agreement (the share of each paper's 5 nearest papers with its label) by single-field vs
interdisciplinary papers; for the latter it counts the neighbours that sit in the borrowed (partner) field instead.
After `make demo`:

    .venv/bin/python examples/trace_demo_labels.py            # --run runs/demo
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from semcse.core import logs
from semcse.core.config import RunConfig, load_config
from semcse.core.data.io import read_corpus
from semcse.core.locations import resolved
from semcse.orchestration.steps import StepState
from semcse.stages.embedding import EMBEDDINGS_DIR, ModelRef, combined_vectors, embed_papers
from semcse.stages.evaluation.metrics import label_agreements, nearest_others
from semcse.stages.training.checkpoints import persisted_models

sys.path.insert(0, str(Path(__file__).parent))
from make_demo_corpus import COUNT, SEED, papers  # noqa: E402  (a sibling script, not a package)


def compared_models(state: StepState, run: Path, cfg: RunConfig) -> list[ModelRef]:
    """The base and the trained model as the run's evaluation named them, so that their stored vectors are found; a
    run that delivered its base evaluated no trained model, and its latest kept checkpoint stands in."""
    train = state.steps["train"]
    kept = persisted_models(run / "ray")
    trained = train["outputs"]["model"] if train["outputs"]["improved"] else str(kept[max(kept)])
    return [
        ModelRef("base", cfg.training.base_model, train["settings"]["training.pooling"]),
        ModelRef("trained", trained),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=Path("runs/demo"), help="the demo's run_dir")
    parser.add_argument("--config", default="demo", help="the run's config, for its evaluation settings")
    parser.add_argument("--k", type=int, default=5, help="neighbours per paper (evaluation.agreement_k)")
    args = parser.parse_args()
    logs.configure()  # library progress bars and warnings off, as in `semcse`

    state = StepState.load(str(args.run))
    if "evaluate" not in state.steps:
        raise SystemExit(f"{args.run}: the run has not been evaluated; run `make demo` first")
    # the run's config with the base model it recorded, its paths resolved as `connect` resolved them for the run
    base = state.steps["train"]["settings"]["training.base_model"]
    cfg = resolved(load_config(args.config, [f"training.base_model={base}"]))
    corpus = read_corpus(state.outputs("validate")["corpus"])
    models = compared_models(state, args.run, cfg)
    store = str(args.run / EMBEDDINGS_DIR)
    vectors = [combined_vectors(model.vectors) for model in embed_papers(models, corpus, store, cfg.evaluation)]

    by_id = {row["id"]: (row, topic) for row, topic in papers(COUNT, SEED)}
    demo = corpus["id"].isin(list(by_id)).to_numpy()  # papers added later (`--add`) have no known partner field
    labels = np.array([by_id[paper][0]["topic"] for paper in corpus["id"][demo]])
    borrowed = np.array([by_id[paper][1].partner for paper in corpus["id"][demo]])
    groups = {"single-field": borrowed == "", "interdisciplinary": borrowed != ""}
    near = [labels[nearest_others(model[demo], args.k)] for model in vectors]

    print(f"label agreement of {demo.sum()} demo papers ({args.k} nearest), base → trained:")
    for name, members in groups.items():
        agree = [label_agreements(labelled[members], labels[members]).mean() for labelled in near]
        line = f"  {name:<18} {members.sum():>3} papers  {agree[0]:.3f} → {agree[1]:.3f}"
        if name == "interdisciplinary":
            moved = [np.mean(labelled[members] == borrowed[members, None]) for labelled in near]
            line += f"   neighbours in the borrowed field {moved[0]:.3f} → {moved[1]:.3f}"
        print(line)


if __name__ == "__main__":
    main()
