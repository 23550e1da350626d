"""Which demo papers a trained model moves: label agreement by kind of paper, and neighbours in the borrowed field.

About half of the demo corpus's papers are interdisciplinary: each is labelled with the field whose question it
answers and borrows its methods, data or setting from a partner field (AI-ECG screening is cardiology borrowing from
machine learning; `make_demo_corpus.papers` knows the partner, the corpus does not). This script embeds all abstracts
with the base model the run trained from (step 0) and its last kept checkpoint and splits label agreement (the
share of each paper's 5 nearest papers with its label) by single-field vs interdisciplinary papers, and for the
latter counts the neighbours that sit in the borrowed (partner) field instead. After `make demo`:

    .venv/bin/python examples/trace_demo_labels.py            # --run runs/demo
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from semcse.models.unified import load_encoder
from semcse.orchestration.steps import StepState
from semcse.stages.evaluation.metrics import label_agreements, nearest_others
from semcse.stages.training.checkpoints import persisted_models

sys.path.insert(0, str(Path(__file__).parent))
from make_demo_corpus import COUNT, SEED, papers  # noqa: E402  (a sibling script, not a package)


def checkpoints(run: Path) -> dict[int, Path]:
    """The run's kept checkpoints' models by step (step 0, the base model, only in a run that delivered nothing)."""
    found = persisted_models(run / "ray")
    if not any(step > 0 for step in found):
        raise SystemExit(f"{run}: no trained checkpoint under {run}/ray; run `make demo` first")
    return found


def neighbours(model_dir: Path, texts: list[str], k: int) -> np.ndarray:
    """Each text's k nearest other texts by cosine similarity, nearest first."""
    return nearest_others(np.asarray(load_encoder(model_dir).encode(texts)), k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=Path("runs/demo"), help="the demo's run_dir")
    parser.add_argument("--k", type=int, default=5, help="neighbours per paper (evaluation.agreement_k)")
    args = parser.parse_args()

    rows, topics = zip(*papers(COUNT, SEED), strict=True)
    labels = np.array([row["topic"] for row in rows])
    borrowed = np.array([topic.partner for topic in topics])
    groups = {"single-field": borrowed == "", "interdisciplinary": borrowed != ""}
    steps = checkpoints(args.run)
    last = max(steps)
    base = StepState.load(str(args.run)).steps["train"]["settings"]["training.base_model"]  # what the run trained from
    models = {0: Path(base), last: steps[last]}
    abstracts = [row["abstract"] for row in rows]
    near = {step: labels[neighbours(model, abstracts, args.k)] for step, model in models.items()}

    print(f"label agreement of {len(rows)} demo abstracts ({args.k} nearest), step 0 (base) → step {last}:")
    for name, members in groups.items():
        agree = [label_agreements(near[s][members], labels[members]).mean() for s in (0, last)]
        line = f"  {name:<18} {members.sum():>3} papers  {agree[0]:.3f} → {agree[1]:.3f}"
        if name == "interdisciplinary":
            moved = [np.mean(near[s][members] == borrowed[members, None]) for s in (0, last)]
            line += f"   neighbours in the borrowed field {moved[0]:.3f} → {moved[1]:.3f}"
        print(line)


if __name__ == "__main__":
    main()
