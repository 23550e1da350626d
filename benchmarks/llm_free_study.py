"""The `llm-free` study: which recipe `--pairs auto` is, chosen where a gain can show by a rule fixed before the runs.

Every run trains all-MiniLM-L6-v2 with our trainer on the first `--train` invasion-biology abstracts (`--steps` × 32
pairs, 2 workers, seed 0) and is scored on the held-out sets of `_heldout.py`. The rule (docs/tune.md, "Choosing
auto where a gain can show"):

1. The figure of merit is the gain over the base in INAS-dev kNN@5 label agreement of the model the run delivers.
2. Stage 1, the regularisers, at the old `auto`'s pairs, temperature and learning rate: none; averaging with the
   base (0.5); the base-similarity term (λ 10); the embeddings and lower half frozen; each alone. A regulariser
   stays only if alone it keeps the gain: its paired difference from `none` has a point estimate of at least
   −0.005 and a 95% interval that reaches zero.
3. Stage 2, with the regularisers that stayed: pairs {title, crops, crops:0.5+title:0.5, crops:0.25+title:0.75} ×
   temperature {0.05, 0.1}, learning rate 3e-5.
4. Stage 3, at stage 2's best: learning rate 1e-4; temperature 0.2.
5. The winner is the run with the largest gain that is significantly worse than the base (paired 95% bootstrap) on
   none of ohsumed kNN accuracy, ohsumed label agreement and cs_papers TL;DR→paper rank, checked in order of gain
   until one passes. Methodology similarity is reported and guards nothing.

Printed: each run's settings, wall time, its in-run validation change and its INAS-dev change (delivered and last
step), the Spearman rank correlation between the two across runs, the guards of the runs checked, and the winner.
Raw results: benchmarks/results/llm-free-study-<commit>.json. Runs are reused from `--work` by name, so
`--max-runs N` cuts the plan to the first N runs on a small machine (the report says so) and a later call with a
larger budget goes on where it stopped.

`--no-guards` skips scoring the guards (about 12 minutes per model on 2 cores): the report then names the run with
the largest gain as unguarded, not as the winner.

    .venv/bin/python benchmarks/llm_free_study.py --work DIR [--max-runs N] [--no-guards]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from _common import crops_config, last_step_model, minilm_dir, save_results
from _heldout import SUITE_DIRS, HeldOut, default_cache, differences, invasion_corpus, score, share_embeddings, trained
from scipy.stats import spearmanr

from semcse.stages.embedding import ModelRef
from semcse.stages.evaluation import knn
from semcse.stages.training.driver import STATUS_FILE
from semcse.stages.training.trainer import prepare

OLD_AUTO = {"training.pairs": "crops:0.5+title:0.5", "training.temperature": 0.1, "training.learning_rate": 3e-5}
NONE = {
    "training.average_with_base": 0.0,
    "training.base_similarity_weight": 0.0,
    "training.freeze_embeddings": False,
    "training.freeze_layers": 0,
}
REGULARISERS = {
    "average": {"training.average_with_base": 0.5},
    "lambda": {"training.base_similarity_weight": 10.0},
    "frozen": {"training.freeze_embeddings": True, "training.freeze_layers": "half"},
}
PAIRS = {"title": "title", "crops": "crops", "mix": "crops:0.5+title:0.5", "mix-title": "crops:0.25+title:0.75"}
MERIT = "inas:label_agreement"
GUARDS = ("ohsumed:knn_accuracy", "ohsumed:label_agreement", "cs_papers:query_paper")
KEEPS = -0.005  # stage 1: the least point estimate of (regulariser alone − none) that keeps the gain


class BudgetSpent(Exception):
    """The plan's next run is beyond `--max-runs`: report on the runs made so far."""


@dataclass
class Run:
    """One study run: its settings, how training ended, and its held-out changes against the base."""

    name: str
    stage: int
    settings: dict[str, Any]
    status: dict[str, Any] = field(default_factory=dict)
    wall_s: float | None = None
    inas: dict[str, dict[str, Any]] = field(default_factory=dict)  # {"delivered"|"last": {figure: difference row}}
    guards: list[dict[str, Any]] = field(default_factory=list)

    @property
    def gain(self) -> float:
        return float(self.inas["delivered"][MERIT]["difference"])

    @property
    def validation_change(self) -> dict[str, float]:
        """How much better (lower) validation scored than the base model, delivered and at the last step."""
        base = self.status["base_val_score"]
        return {"delivered": base - self.status["best_val_score"], "last": base - self.status["last_val_score"]}


class Study:
    def __init__(self, args: argparse.Namespace, work: Path) -> None:
        self.args, self.work = args, work
        self.corpus = invasion_corpus(work, args.train)
        self.held = HeldOut.build(work, args.ohsumed_refs, args.test, args.cs_papers, ["cs_papers", "methodology"])
        self.base = ModelRef("base", str(minilm_dir()))
        if args.base_cache is not None:
            share_embeddings(self.base, work, args.base_cache)
        self.eval_cfg = crops_config(work / "eval", self.corpus, args.steps, 32, args.seq, args.workers)
        self.runs: dict[str, Run] = {}

    def run(self, name: str, stage: int, settings: dict[str, Any]) -> Run:
        """Train (or reuse) one recipe and score its delivered and last-step models on INAS dev."""
        if name in self.runs:
            return self.runs[name]
        if self.args.max_runs is not None and len(self.runs) >= self.args.max_runs:
            raise BudgetSpent(name)
        args, run_dir = self.args, self.work / "runs" / name
        cfg = crops_config(
            run_dir,
            self.corpus,
            args.steps,
            32,
            args.seq,
            args.workers,
            evaluations=3,
            **{"training.seed": args.seed, "training.val_size": args.val_size} | settings,
        )
        encoder, wall = trained(cfg, prepare(cfg), run_dir)
        run = Run(name, stage, settings, json.loads((encoder / STATUS_FILE).read_text()), wall)
        models = {"delivered": ModelRef(name, str(encoder)) if run.status["best_step"] > 0 else self.base}
        last = last_step_model(run_dir / "run")
        models["last"] = ModelRef(f"{name}-last", str(last)) if last is not None else models["delivered"]
        if run.status["last_step"] == run.status["best_step"]:
            models["last"] = models["delivered"]
        scored = list({m.name: m for m in [self.base, *models.values()]}.values())
        result = knn.run(scored, self.held.inas, self._everything(), self.work / SUITE_DIRS["inas"])
        for which, model in models.items():
            rows = differences({"inas": result}, [(model.name, "base")]) if model.name != "base" else []
            run.inas[which] = {r["figure"]: r for r in rows} or {
                f"inas:{c}": {"difference": 0.0, "low": 0.0, "high": 0.0, "verdict": "= base"}
                for c in ("knn_accuracy", "label_agreement", "v_measure")
            }
        self.runs[name] = run
        print(f"{name}: {_line(run)}", flush=True)
        return run

    def _everything(self) -> Any:
        evaluation = self.eval_cfg.evaluation.model_copy(update={"split": "all", "label_col": "label"})
        return self.eval_cfg.model_copy(update={"evaluation": evaluation})

    def check_guards(self, run: Run) -> bool:
        """Whether the run's delivered model is significantly worse than the base on none of `GUARDS`."""
        if run.status["best_step"] == 0:
            return True
        model = ModelRef(run.name, str(self.work / "runs" / run.name / "encoder"))
        results = score(
            [self.base, model], self.held, self.eval_cfg, self.work, ["ohsumed", "cs_papers", "methodology"]
        )
        run.guards = differences(results, [(run.name, "base")])
        return not any(row["figure"] in GUARDS and row["verdict"] == "worse" for row in run.guards)


def _line(run: Run) -> str:
    merit = run.inas["delivered"][MERIT]
    change = run.validation_change
    return (
        f"delivered step {run.status['best_step']}, INAS kNN@5 {merit['difference']:+.4f} "
        f"[{merit['low']:+.4f}, {merit['high']:+.4f}], last {run.inas['last'][MERIT]['difference']:+.4f}; "
        f"validation {change['delivered']:+.3f} (last {change['last']:+.3f}); wall {run.wall_s or float('nan'):.0f} s"
    )


def keeps_gain(study: Study, name: str, none: Run) -> bool:
    """Stage 1's rule: the regulariser alone against no regulariser, paired on INAS dev."""
    result = knn.run(
        [study.base, ModelRef("none", _delivered(study, none)), ModelRef(name, _delivered(study, study.runs[name]))],
        study.held.inas,
        study._everything(),
        study.work / SUITE_DIRS["inas"],
    )
    difference = result.difference(name, "none", "label_agreement")
    kept = difference.difference >= KEEPS and difference.high >= 0
    print(
        f"stage 1: {name} alone − none {difference.difference:+.4f} [{difference.low:+.4f}, {difference.high:+.4f}]: "
        f"{'keeps the gain' if kept else 'loses the gain'}"
    )
    study.runs[name].guards.append({"alone_minus_none": difference.to_dict(), "kept": kept})
    return kept


def _delivered(study: Study, run: Run) -> str:
    return str(study.work / "runs" / run.name / "encoder") if run.status["best_step"] > 0 else str(minilm_dir())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="keep runs here; a rerun reuses the runs it finds")
    parser.add_argument("--train", type=int, default=4000)
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-runs", type=int, default=None, help="stop the plan after this many runs and report")
    parser.add_argument("--no-guards", dest="guards", action="store_false", help="report without scoring the guards")
    parser.add_argument("--val-size", type=int, default=256)
    parser.add_argument("--ohsumed-refs", type=int, default=2500)
    parser.add_argument("--test", type=int, default=500, help="ohsumed test papers")
    parser.add_argument("--cs-papers", type=int, default=150)
    parser.add_argument(
        "--base-cache", type=lambda text: Path(text) if text else None, default=default_cache(), metavar="DIR"
    )
    args = parser.parse_args()
    study = Study(args, args.work)
    try:
        follow_the_plan(study)
        complete = True
    except BudgetSpent as spent:
        print(f"\nstopped before run {spent} (--max-runs {args.max_runs}): the rule is applied to the runs made")
        complete = False
    report(study, complete)


def follow_the_plan(study: Study) -> None:
    """Stages 1 to 3 of the rule, in order; each run is reused from `--work` when it exists."""
    none = study.run("none", 1, OLD_AUTO | NONE)
    kept = {}
    for name, settings in REGULARISERS.items():
        study.run(name, 1, OLD_AUTO | NONE | settings)
        if keeps_gain(study, name, none):
            kept |= settings
    stayed = [name for name, settings in REGULARISERS.items() if set(settings) <= set(kept)]
    print(f"stage 1: regularisers that stay: {stayed or 'none'}")
    regularised = NONE | kept
    stage2 = []
    for pairs_name, pairs in PAIRS.items():
        for tau in (0.05, 0.1):
            name = "+".join([pairs_name, f"t{tau:g}", *stayed])
            settings = regularised | {
                "training.pairs": pairs,
                "training.temperature": tau,
                "training.learning_rate": 3e-5,
            }
            reused = next((r for r in study.runs.values() if r.settings == settings), None)
            stage2.append(reused or study.run(name, 2, settings))
    best = max(stage2, key=lambda run: run.gain)
    print(f"stage 2: best {best.name}")
    for tweak, value in (("lr1e-4", {"training.learning_rate": 1e-4}), ("t0.2", {"training.temperature": 0.2})):
        study.run(f"{best.name}+{tweak}", 3, best.settings | value)


def report(study: Study, complete: bool) -> None:
    """Every run's table, how well validation predicts the held-out change, the guards, the winner; raw JSON."""
    args = study.args
    ordered = sorted(study.runs.values(), key=lambda run: run.gain, reverse=True)
    winner = next((run for run in ordered if study.check_guards(run)), None) if args.guards else None
    table = pd.DataFrame(
        [
            {
                "run": run.name,
                "stage": run.stage,
                "delivered": run.status["best_step"],
                "wall_s": run.wall_s,
                "val_change": run.validation_change["delivered"],
                "val_change_last": run.validation_change["last"],
                "inas_knn5": run.gain,
                "inas_knn5_low": run.inas["delivered"][MERIT]["low"],
                "inas_knn5_high": run.inas["delivered"][MERIT]["high"],
                "inas_knn5_last": run.inas["last"][MERIT]["difference"],
                "inas_knn10_acc": run.inas["delivered"]["inas:knn_accuracy"]["difference"],
                "inas_v_measure": run.inas["delivered"]["inas:v_measure"]["difference"],
                "guards": "; ".join(
                    f"{g['figure']} {g['difference']:+.4f} {g['verdict']}" for g in run.guards if "figure" in g
                ),
            }
            for run in ordered
        ]
    )
    print("\nevery run, by INAS-dev kNN@5 gain of the delivered model (changes against the base):")
    print(table.drop(columns="guards").round(4).to_string(index=False))
    correlations = {
        which: spearmanr(table[f"val_change{suffix}"], table[f"inas_knn5{suffix}"])
        for which, suffix in (("delivered", ""), ("last", "_last"))
    }
    for which, (rho, p) in correlations.items():
        print(f"Spearman(validation change, INAS kNN@5 change), {which}: {rho:+.3f} (p {p:.3f}, {len(table)} runs)")
    for run in ordered:
        if any("figure" in row for row in run.guards):
            print(f"guards of {run.name}: {table.set_index('run').loc[run.name, 'guards']}")
    if not args.guards:
        print(f"\nlargest gain, guards not scored (--no-guards): {ordered[0].name} {ordered[0].settings}")
    else:
        print(f"\nwinner: {winner.name if winner else 'none passes the guards'} {winner.settings if winner else ''}")
    save_results(
        "llm-free-study",
        {
            "args": vars(args),
            "complete": complete,
            "guards_scored": args.guards,
            "runs": [run.__dict__ for run in ordered],
            "correlations": {k: {"rho": float(r), "p": float(p)} for k, (r, p) in correlations.items()},
            "winner": winner.name if winner else None,
            "winner_settings": winner.settings if winner else None,
        },
    )


if __name__ == "__main__":
    main()
