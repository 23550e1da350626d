"""Does our trainer deliver a better model without an LLM? Base, our recipes and sentence-transformers side by side.

Part `recipes` (the LLM-free table): for each seed, on the first `--train` abstracts of the invasion-biology
corpus, our Ray Train + DeepSpeed trainer fine-tunes all-MiniLM-L6-v2 with `crops`, `title`, the mix
`crops:0.5+title:0.5` and `auto` (the recipe the `llm-free` study chose, `semcse.core.data.modes.AUTO`) at one step
budget; plain sentence-transformers (`fit` with MultipleNegativesRankingLoss) is given exactly the pairs and batch
order `auto` trains on, with the same learning rate, warm-up, weight decay, temperature, steps and batch.
Every model is scored on data the trainer never sees, with 95% bootstrap intervals:

- INAS dev (721 expert-labelled invasion-biology abstracts, disjoint from the corpus): kNN@5 label agreement,
  kNN accuracy and V-measure, where the base model is not at its ceiling;
- ohsumed's test split: kNN accuracy and label agreement (neighbours among its training abstracts);
- the medical-methodology judgements: Spearman of similarity vs LLM judgements (the `aspects` suite);
- cs_papers: the semantic suite with TL;DR queries (query→paper and title→abstract average ranks).

Printed: each model's figures with intervals, the mean over seeds, paired differences (a recipe − base,
`auto` − sentence-transformers) with intervals per seed, our delivered (best) step next to our last
step, and wall time of our trainer against sentence-transformers' `fit` for the same pairs and steps.
`--set KEY=VALUE` changes our runs' settings on top of each recipe's (an ablation: e.g. crops and titles
alone at `auto`'s temperature, learning rate and averaging; sentence-transformers follows the settings it
shares); the raw JSON records them with the arguments.

Part `scratch` (the cropping paper's Table S5 on this machine): a randomly initialised BERT
(`scratch:bert-mini`, vocabulary from the training abstracts) trained with crops and with dropout on the
same data and budget, for each seed, scored by `knn` next to its random start, with intervals.

The evaluation embeddings of all-MiniLM-L6-v2 (the base, or the scratch part's pretrained reference) are
kept in `--base-cache` (the user's cache folder) and reused by every later run, whatever its `--work`:
they only change when the model, the held-out texts or the settings do.

Raw results go to benchmarks/results/quality-<part>-<commit>.json. Skips with a message when the
real corpora ($SEMCSE_DATA, docs/DATA.md) are absent. Not a test: figures depend on the machine and
take long on 2 cores.

    .venv/bin/python benchmarks/quality.py --part recipes --seeds 0 1 2 --steps 150
    .venv/bin/python benchmarks/quality.py --part scratch --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
from _common import (
    add_set_option,
    crops_config,
    last_step_model,
    minilm_dir,
    ohsumed_split,
    save_results,
)
from _heldout import (
    COLUMNS,
    SUITE_DIRS,
    HeldOut,
    default_cache,
    differences,
    figures,
    fitted_st,
    invasion_corpus,
    raw,
    score,
    share_embeddings,
    trained,
)

from semcse.core.data.io import write_parquet
from semcse.core.data.modes import AUTO
from semcse.stages.embedding import ModelRef
from semcse.stages.evaluation import knn
from semcse.stages.training.driver import STATUS_FILE
from semcse.stages.training.trainer import prepare

RECIPES = {"crops": "crops", "title": "title", "mix": "crops:0.5+title:0.5", "auto": "auto"}
AVERAGED = "+base"  # the suffix of a model's name once its weights are averaged with the base's


def averaged_with_base(model_dir: Path, weight: float, out: Path) -> Path:
    """`model_dir` with every weight set to (1 − weight)·trained + weight·base (WiSE-FT, Wortsman et al., CVPR 2022),
    written once into `out`, whole: built beside it and renamed last, so a killed run never leaves the trained
    weights under the averaged name."""
    import shutil

    from safetensors.torch import load_file, save_file

    if out.is_dir():
        return out
    base = load_file(str(minilm_dir() / "model.safetensors"))
    trained = load_file(str(model_dir / "model.safetensors"))
    for name, tensor in trained.items():
        if name not in base or base[name].shape != tensor.shape:
            raise SystemExit(f"{model_dir} is not all-MiniLM-L6-v2 fine-tuned: {name} differs from the base's")
    partial = out.with_name(f"{out.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(model_dir, partial, ignore=shutil.ignore_patterns("model.safetensors"))
    averaged = {
        name: ((1 - weight) * tensor.float() + weight * base[name].float()).to(tensor.dtype)
        for name, tensor in trained.items()
    }
    save_file(averaged, str(partial / "model.safetensors"))
    partial.rename(out)
    return out


def scratch_data(work: Path, train: int, test: int) -> tuple[Path, Path]:
    """The scratch part's training corpus (a seeded sample of ohsumed's train split) and its labelled kNN set (it
    and test papers)."""
    work.mkdir(parents=True, exist_ok=True)
    train_split = ohsumed_split("train", train)
    corpus = write_parquet(train_split[["id", "title", "abstract"]], work / "train.parquet")
    labelled = pd.concat([train_split, ohsumed_split("test", test)], ignore_index=True)
    return corpus, write_parquet(labelled, work / "labelled.parquet")


def recipes_part(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    corpus = invasion_corpus(work, args.train)
    held = HeldOut.build(work, args.ohsumed_refs, args.test, args.cs_papers, args.sets)
    base = ModelRef("base", str(minilm_dir()))
    models = [base]
    runs = []
    # a fixed recipe with auto's pairs is auto (with the study's temperature and learning rate): run it once
    names = {
        name: pairs
        for name, pairs in RECIPES.items()
        if name in args.recipes and (name == "auto" or pairs != AUTO["pairs"])
    }
    for seed in args.seeds:
        for name, pairs in names.items():
            run_dir = work / f"{name}-{seed}"
            cfg = crops_config(
                run_dir,
                corpus,
                args.steps,
                args.batch,
                args.seq,
                args.workers,
                evaluations=args.evaluations,
                **{
                    "training.pairs": pairs,
                    "training.seed": seed,
                    "training.val_size": args.val_size,
                }
                | dict(args.overrides),
            )
            prepared = prepare(cfg)
            encoder, wall = trained(cfg, prepared, run_dir)
            status = json.loads((encoder / STATUS_FILE).read_text())
            runs.append(
                {"model": f"{name}-{seed}", "pairs": prepared.training.recipe.pairs, "wall_s": wall}
                | status
                | {"average_with_base": prepared.training.average_with_base}
            )
            if status["best_step"] > 0:  # otherwise the delivered model is the base model itself: scored as `base`
                models.append(ModelRef(f"{name}-{seed}", str(encoder)))
            last = last_step_model(run_dir / "run")
            if last is not None and status["best_step"] != status["last_step"]:
                models.append(ModelRef(f"{name}-{seed}-last", str(last)))
            if name == "auto" and not args.no_st:
                st_dir, st_wall = fitted_st(prepared, run_dir)
                runs.append({"model": f"st-{name}-{seed}", "pairs": prepared.training.recipe.pairs, "wall_s": st_wall})
                models.append(ModelRef(f"st-{seed}", str(st_dir)))
    cfg = crops_config(
        work / "eval",
        corpus,
        args.steps,
        args.batch,
        args.seq,
        args.workers,
    )
    averaged_in_training = {run["model"] for run in runs if run.get("average_with_base")}  # delivered and last
    trained_models = [
        model
        for model in models
        if model.name != "base" and model.name.removesuffix("-last") not in averaged_in_training
    ]
    if args.average_with_base:
        weight = args.average_with_base
        models += [
            ModelRef(
                f"{model.name}{AVERAGED}",
                str(averaged_with_base(Path(model.ref), weight, work / f"averaged-{weight:g}" / model.name)),
            )
            for model in trained_models
        ]
    if args.base_cache is not None:
        share_embeddings(base, work, args.base_cache)
    results = score(models, held, cfg, work, ["inas", "ohsumed", *args.sets])
    table = figures(results)
    scored = {model.name for model in models}
    candidates = [f"{name}-{s}{last}" for s in args.seeds for name in names for last in ("", "-last")]
    pairs = [(model, "base") for model in candidates if model in scored]
    with_st = "auto" in names and not args.no_st
    pairs += [(f"auto-{s}" if f"auto-{s}" in scored else "base", f"st-{s}") for s in args.seeds if with_st]
    pairs += [(f"st-{s}", "base") for s in args.seeds if with_st and f"auto-{s}" in scored]  # else reversed above
    for model in trained_models if args.average_with_base else []:
        pairs += [(f"{model.name}{AVERAGED}", "base"), (f"{model.name}{AVERAGED}", model.name)]
    diffs = differences(results, pairs)
    runs_frame = pd.DataFrame(runs)
    print(
        f"\ntrained on the first {args.train} invasion-biology abstracts; held out: INAS dev (721 papers), ohsumed "
        f"({args.test} test papers among {args.ohsumed_refs}), cs_papers: {held.cs_papers}"
    )
    print(f"{args.steps} steps × {args.batch} pairs, seq {args.seq}, seeds {args.seeds}; auto = {AUTO}\n")
    print("value [95% CI] per model (↓: lower is better):")
    print(table.to_string())
    print("\npaired differences a − b with 95% CI:")
    print(pd.DataFrame(diffs).round(4).to_string(index=False))
    print("\nour runs (validation: average rank, lower is better; delivered = best step) and wall times:")
    print(runs_frame.round(3).to_string(index=False))
    walls = runs_frame.set_index("model")["wall_s"]
    timed = [s for s in args.seeds if pd.notna(walls.get(f"auto-{s}")) and pd.notna(walls.get(f"st-auto-{s}"))]
    ratios = [walls[f"auto-{s}"] / walls[f"st-auto-{s}"] for s in timed]  # runs reused from --work have no time
    if ratios:
        print("wall time ours / sentence-transformers fit, auto's pairs: " + ", ".join(f"{r:.2f}×" for r in ratios))
    numbers = {suite: raw(result) for suite, result in results.items()}
    found = {"args": vars(args), "auto": AUTO, "figures": numbers, "differences": diffs, "runs": runs}
    print("\nover seeds (README table, `--summarise <raw json>` prints it again):\n" + summary(found))
    return found


FIGURES = {  # README column → (suite, column; a trailing ":" takes the suite's first column that starts so)
    "INAS kNN@5 label agreement": ("inas", "label_agreement"),
    "INAS kNN accuracy": ("inas", "knn_accuracy"),
    "INAS V-measure": ("inas", "v_measure"),
    "ohsumed kNN": ("ohsumed", "knn_accuracy"),
    "ohsumed label agreement": ("ohsumed", "label_agreement"),
    "methodology Spearman": ("methodology", "spearman:"),
    "cs TL;DR→paper rank ↓": ("cs_papers", "query_paper"),
    "cs title→abstract rank ↓": ("cs_papers", "title_abstract"),
}


Paired = dict[tuple[str, str, str], dict[str, Any]]  # (a, b, figure) → a `differences` row


def paired_rows(found: dict[str, Any]) -> Paired:
    """A saved run's paired differences by (a, b, figure)."""
    return {(d["a"], d["b"], d["figure"]): d for d in found["differences"]}


def between(paired: Paired, a: str, b: str, figure: str) -> tuple[float, str]:
    """`a − b` and its verdict, read from `b − a` when only that was paired; 0 when a is b."""
    if (a, b, figure) in paired:
        return paired[(a, b, figure)]["difference"], paired[(a, b, figure)]["verdict"]
    if (b, a, figure) in paired:
        flipped = {"better": "worse", "worse": "better"}
        verdict = paired[(b, a, figure)]["verdict"]
        return -paired[(b, a, figure)]["difference"], flipped.get(verdict, verdict)
    assert a == b, f"{a} − {b} on {figure} was not paired"
    return 0.0, "no significant difference"


def over_seeds(found_pairs: list[tuple[float, str]]) -> str:
    """Per-seed paired differences as `mean change, better in k/n, worse in m/n` (or no significant difference)."""
    changes, verdicts = [change for change, _ in found_pairs], [verdict for _, verdict in found_pairs]
    n = len(found_pairs)
    counts = [f"{word} in {verdicts.count(word)}/{n}" for word in ("better", "worse") if word in verdicts]
    return f"{sum(changes) / n:+.3f}, {', '.join(counts) or 'no significant difference'}"


def summary(found: dict[str, Any]) -> str:
    """The README's table from a run's raw results: per recipe, the figure's mean over seeds, its mean paired
    difference from the base model, and in how many seeds that difference's 95% interval excludes zero.

    Rows: the base model (its value and interval), each recipe as delivered (the guarded best step) and at its
    last step, sentence-transformers given auto's pairs, and last the paired difference auto − sentence-transformers;
    with `--average-with-base`, each of those models averaged with the base as well.
    """
    seeds = found["args"]["seeds"]
    tables = {suite: figures["table"] for suite, figures in found["figures"].items()}
    intervals = {suite: figures["intervals"] for suite, figures in found["figures"].items()}
    paired = paired_rows(found)
    trained = {run["model"].rsplit("-", 1)[0] for run in found["runs"]}
    columns = {}
    for name, (suite, column) in FIGURES.items():
        if suite in tables:
            present = list(tables[suite]["base"])
            columns[name] = (
                suite,
                next(c for c in present if c.startswith(column)) if column.endswith(":") else column,
            )

    def base_cell(suite: str, column: str) -> str:
        ci = intervals[suite]["base"]
        return f"{tables[suite]['base'][column]:.3f} [{ci[f'{column}_ci_low']:.3f}, {ci[f'{column}_ci_high']:.3f}]"

    def cell(models: list[str], against: list[str], suite: str, column: str, value: bool = True) -> str:
        """Mean over seeds, (mean paired difference, seeds in which it is significant); without `value`, only the
        parenthesis. A run that delivered its base model was scored as `base`: it equals it exactly."""
        models = [m if m in tables[suite] else "base" for m in models]
        if models == against:
            return "= base (no step delivered)" if value else "= base"
        change = over_seeds([between(paired, m, b, f"{suite}:{column}") for m, b in zip(models, against, strict=True)])
        mean_value = sum(tables[suite][m][column] for m in models) / len(models)
        return f"{mean_value:.3f} ({change})" if value else change

    def last(recipe: str, seed: int) -> str:
        name = f"{recipe}-{seed}-last"
        return name if name in tables["ohsumed"] else f"{recipe}-{seed}"

    def row(models: list[str]) -> dict[str, str]:
        return {name: cell(models, bases, *where) for name, where in columns.items()}

    def averaged(models: list[str]) -> list[str]:
        return [f"{m}{AVERAGED}" if m in tables["ohsumed"] else m for m in models]  # the base averaged is the base

    def with_averages(models: list[str]) -> bool:
        return any(f"{m}{AVERAGED}" in tables["ohsumed"] for m in models)

    bases = ["base"] * len(seeds)
    in_training = {run["model"].rsplit("-", 1)[0] for run in found["runs"] if run.get("average_with_base")}
    rows = {"base": {name: base_cell(*where) for name, where in columns.items()}}
    for recipe in [name for name in RECIPES if name in trained]:
        delivered, final = [f"{recipe}-{s}" for s in seeds], [last(recipe, s) for s in seeds]
        label = f"{recipe} (averaged with the base in training)" if recipe in in_training else recipe
        rows[f"{label}, delivered"] = row(delivered)
        rows[f"{label}, last step"] = row(final)
        if with_averages(delivered + final):
            rows[f"{recipe}, delivered, averaged with the base"] = row(averaged(delivered))
            rows[f"{recipe}, last step, averaged with the base"] = row(averaged(final))
    sts, autos = [f"st-{s}" for s in seeds], [f"auto-{s}" for s in seeds]
    if all(st in tables["ohsumed"] for st in sts):
        rows["sentence-transformers, auto's pairs"] = row(sts)
        if with_averages(sts):
            rows["sentence-transformers, averaged with the base"] = row(averaged(sts))
        rows["auto delivered − sentence-transformers"] = {
            name: cell(autos, sts, *where, value=False) for name, where in columns.items()
        }
    header = list(columns)
    lines = [f"| model | {' | '.join(header)} |", "|---" + "|---:" * len(header) + "|"]
    lines += [f"| {model} | {' | '.join(row[c] for c in header)} |" for model, row in rows.items()]
    return "\n".join(lines)


def scratch_part(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Crops vs dropout from one random start per seed: each run's delivered model and its last step, scored by kNN
    next to the random start; a run that delivered its start is scored as that start (`random-<seed>`)."""
    corpus, labelled = scratch_data(work, args.scratch_train, args.test)
    pretrained = ModelRef("all-MiniLM-L6-v2", str(minilm_dir()))
    models = [pretrained]
    runs = []
    for seed in args.seeds:
        for pairs in ("crops", "dropout"):
            run_dir = work / f"{pairs}-{seed}"
            cfg = crops_config(
                run_dir,
                corpus,
                args.scratch_steps,
                args.scratch_batch,
                args.seq,
                args.workers,
                evaluations=4,
                **{
                    "training.pairs": pairs,
                    "training.seed": seed,
                    "training.base_model": f"scratch:{args.scratch_arch}",
                    "training.learning_rate": args.scratch_lr,
                },
            )
            prepared = prepare(cfg)
            if pairs == "crops":
                models.append(ModelRef(f"random-{seed}", prepared.training.base_model))
            encoder, wall = trained(cfg, prepared, run_dir)
            status = json.loads((encoder / STATUS_FILE).read_text())
            delivered = f"{pairs}-{seed}" if status["best_step"] > 0 else f"random-{seed}"
            runs.append({"model": f"{pairs}-{seed}", "wall_s": wall} | status | {"delivered": delivered})
            if status["best_step"] > 0:
                models.append(ModelRef(delivered, str(encoder)))
            last = last_step_model(run_dir / "run")
            if last is not None and status["best_step"] != status["last_step"]:
                models.append(ModelRef(f"{pairs}-{seed}-last", str(last)))
    cfg = crops_config(work / "eval", corpus, args.steps, args.batch, args.seq, args.workers)
    if args.base_cache is not None:
        share_embeddings(pretrained, work, args.base_cache)
    result = knn.run(models, labelled, cfg, work / SUITE_DIRS["ohsumed"])
    scored = {model.name for model in models}

    def scored_as(name: str) -> str:
        """The model a run's figures are under: its own, else (it is its delivered model) the delivered one."""
        if name in scored:
            return name
        return next(run["delivered"] for run in runs if run["model"] == name.removesuffix("-last"))

    compared = [
        (scored_as(f"crops-{s}{last}"), scored_as(f"dropout-{s}{last}")) for s in args.seeds for last in ("", "-last")
    ]
    compared += [(scored_as(f"{p}-{s}-last"), f"random-{s}") for s in args.seeds for p in ("crops", "dropout")]
    diffs = differences({"ohsumed": result}, list(dict.fromkeys((a, b) for a, b in compared if a != b)))
    print(
        f"\nfrom scratch: {args.scratch_arch}, {args.scratch_steps} steps × {args.scratch_batch} pairs, "
        f"lr {args.scratch_lr}, on {args.scratch_train} ohsumed training abstracts; kNN on {args.test} test papers\n"
    )
    print(figures({"ohsumed": result}).to_string())
    print("\ncrops − dropout (delivered, last step) and last step − random start, paired, 95% CI:")
    print(pd.DataFrame(diffs).round(4).to_string(index=False))
    print("\nvalidation (average rank, lower is better):")
    print(pd.DataFrame(runs).round(3).to_string(index=False))
    found = {
        "part": "scratch",
        "args": vars(args),
        "figures": {"ohsumed": raw(result)},
        "differences": diffs,
        "runs": runs,
    }
    print("\nover seeds (`--summarise <raw json>` prints it again):\n" + scratch_summary(found))
    return found


def scratch_summary(found: dict[str, Any]) -> str:
    """Per figure, the mean over seeds of the random start, crops and dropout as delivered, and crops − dropout:
    its mean paired difference and in how many seeds its 95% interval excludes zero (none in a seed whose two runs
    both delivered the random start)."""
    seeds, table = found["args"]["seeds"], found["figures"]["ohsumed"]["table"]
    delivered = {run["model"]: run["delivered"] for run in found["runs"]}
    paired = paired_rows(found)
    lines = ["| figure | random start | dropout | crops | crops − dropout |", "|---|---:|---:|---:|---:|"]
    for column in COLUMNS["ohsumed"]:
        mean = {
            who: sum(table[delivered[f"{who}-{s}"] if who != "random" else f"random-{s}"][column] for s in seeds)
            / len(seeds)
            for who in ("random", "dropout", "crops")
        }
        change = over_seeds(
            [between(paired, delivered[f"crops-{s}"], delivered[f"dropout-{s}"], f"ohsumed:{column}") for s in seeds]
        )
        lines.append(
            f"| ohsumed {column} | {mean['random']:.3f} | {mean['dropout']:.3f} | {mean['crops']:.3f} | {change} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["recipes", "scratch", "all"], default="all")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=150, help="fine-tuning steps (every recipe, and ST)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--evaluations", type=int, default=3, help="validations per run")
    parser.add_argument("--train", type=int, default=4000, help="invasion-biology abstracts to train on (the first)")
    parser.add_argument("--ohsumed-refs", type=int, default=2500, help="ohsumed training abstracts: kNN references")
    parser.add_argument(
        "--val-size",
        type=int,
        default=256,
        help="validation abstracts (≤10%% of --train); the label guard needs a few hundred to show non-inferiority",
    )
    parser.add_argument("--test", type=int, default=500, help="ohsumed test papers to classify")
    parser.add_argument("--scratch-train", type=int, default=2000, help="ohsumed abstracts the scratch part trains on")
    parser.add_argument("--cs-papers", type=int, default=150, help="cs_papers with a TL;DR (queries)")
    parser.add_argument(
        "--sets",
        nargs="+",
        choices=["methodology", "cs_papers"],
        default=["methodology", "cs_papers"],
        help="held-out sets beside INAS dev and ohsumed (methodology embeds ~3,000 texts a model)",
    )
    parser.add_argument(
        "--recipes",
        nargs="+",
        choices=list(RECIPES),
        default=["auto"],
        help="our recipes to train (sentence-transformers trains on auto's pairs, so only with auto)",
    )
    add_set_option(
        parser,
        "settings for our runs on top of each recipe's, as `semcse --set` reads them, e.g. "
        "training.temperature=0.1 (sentence-transformers, given auto's run, follows the ones it shares: pairs, "
        "temperature, learning rate, warm-up, weight decay); use a fresh --work, whose runs are reused by name",
    )
    parser.add_argument("--no-st", action="store_true", help="skip sentence-transformers")
    parser.add_argument(
        "--average-with-base",
        type=float,
        metavar="W",
        help="also score every trained model (ST, and ours unless its run averaged already: "
        "training.average_with_base) with its weights averaged with the base's: "
        "(1 − W)·trained + W·base (WiSE-FT); 0.5 is that paper's default",
    )
    parser.add_argument("--scratch-arch", default="bert-mini")
    parser.add_argument("--scratch-steps", type=int, default=300)
    parser.add_argument("--scratch-batch", type=int, default=64)
    parser.add_argument("--scratch-lr", type=float, default=5e-4)
    parser.add_argument(
        "--work", type=Path, help="keep runs here (default: a temp dir); a rerun reuses the recipes runs it finds"
    )
    parser.add_argument(
        "--base-cache",
        type=lambda text: Path(text) if text else None,
        default=default_cache(),
        metavar="DIR",
        help="keep all-MiniLM-L6-v2's evaluation embeddings (the base; scratch: the pretrained reference) here, "
        "for every --work to reuse (default: %(default)s; "
        "shards are keyed by the model's files, the settings and the texts, so a changed input is embedded "
        "afresh); '' embeds the base in --work like the other models",
    )
    parser.add_argument(
        "--summarise",
        type=Path,
        nargs="+",
        metavar="RAW_JSON",
        help="print each saved run's table (recipes or scratch), one after another, run nothing",
    )
    args = parser.parse_args()
    if args.average_with_base is not None and not 0 < args.average_with_base < 1:
        parser.error("--average-with-base takes the base's share of the weights, between 0 and 1")
    if args.summarise:
        for path in args.summarise:
            found = json.loads(path.read_text())
            print(scratch_summary(found) if found.get("part") == "scratch" else summary(found))
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        if args.part in ("recipes", "all"):
            save_results("quality-recipes", recipes_part(args, work / "recipes"))
        if args.part in ("scratch", "all"):
            save_results("quality-scratch", scratch_part(args, work / "scratch"))


if __name__ == "__main__":
    main()
