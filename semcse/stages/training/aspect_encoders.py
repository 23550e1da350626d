"""Stage one of SemCSE-Multi: one aspect encoder per aspect of a pack, each a normal training run.

Each aspect is the existing trainer with pairs `aspect:<name>` (InfoNCE, cosine, a `multi.head_dim`
projection), so aspect encoders get the same checks, checkpoints, early stopping and registry as any
encoder. Generated aspects are first folded by `multi.merge` (hypothesis general + specific → one
hypothesis aspect) and abstracts with fewer than `multi.min_summaries` applicable summaries of an
aspect are left out of that aspect. Runs go concurrently from driver threads, as many at a time as the
cluster's CPUs hold, and every run is tagged as an MLflow child of one parent run.

The output directory holds one sentence-transformers encoder per aspect, `texts.parquet` (the merged
texts they were trained on, which distillation reads back) and `aspects.json` (aspect → encoder dir).
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from semcse.core import logs, storage
from semcse.core.config import ConfigError, RunConfig, TrainingConfig, format_validation_error, with_overrides
from semcse.core.data.generated import GeneratedDataError, write_texts
from semcse.core.data.generated import read_texts as read_generated_texts
from semcse.stages.training.driver import TrainingSetupError, TrainResult, connected
from semcse.stages.training.ray_train import worker_bundle
from semcse.stages.training.trainer import prepare, train

log = logging.getLogger(__name__)

MANIFEST, MERGED_TEXTS = "aspects.json", "texts.parquet"
KIND_PREFIX = "aspect:"


@dataclass
class AspectsResult:
    """What the stage delivers: an encoder directory per aspect and the parent MLflow run."""

    out: str
    encoders: dict[str, str]
    results: dict[str, TrainResult]
    run_id: str | None


def merge_kinds(texts: pd.DataFrame, merge: dict[str, str]) -> pd.DataFrame:
    """Rename `aspect:<generated>` kinds to `aspect:<trained>` per the merge map; other kinds unchanged."""
    renames = {f"{KIND_PREFIX}{src}": f"{KIND_PREFIX}{dst}" for src, dst in merge.items()}
    return texts.assign(kind=texts["kind"].replace(renames))


def applicable_counts(texts: pd.DataFrame) -> pd.Series:
    """Applicable, non-empty aspect texts per (id, kind)."""
    applicable = texts["applicable"].fillna(True).astype(bool) if "applicable" in texts else True
    usable = texts[applicable & (texts["text"].fillna("").str.strip() != "")]
    return usable.groupby(["id", "kind"]).size()


def keep_well_covered(texts: pd.DataFrame, min_summaries: int) -> pd.DataFrame:
    """Drop the aspect texts of (abstract, aspect) pairs with fewer than `min_summaries` applicable texts."""
    counts = applicable_counts(texts)
    enough = set(counts[counts >= min_summaries].index)
    keep = [(i, k) in enough or not str(k).startswith(KIND_PREFIX) for i, k in zip(texts["id"], texts["kind"])]
    return texts[keep].reset_index(drop=True)


def resolve_aspects(cfg: RunConfig, texts: pd.DataFrame) -> list[str]:
    """Trained aspect names in order: the pack's (or `multi.aspects`) folded by the merge map, else the texts'."""
    multi = cfg.multi
    if multi.aspect_pack:
        from semcse.stages.generation.prompts import load_aspect_pack

        generated = list(load_aspect_pack(multi.aspect_pack).select(multi.aspects))
    elif multi.aspects:
        generated = list(multi.aspects)
    else:
        kinds = texts["kind"].astype(str)
        generated = sorted({k.removeprefix(KIND_PREFIX) for k in kinds if k.startswith(KIND_PREFIX)})
    aspects = list(dict.fromkeys(multi.merge.get(a, a) for a in generated))
    if not aspects:
        raise ConfigError("no aspects to train: set multi.aspect_pack or multi.aspects, or pass aspect texts")
    return aspects


def read_texts(path: str | None, combine: bool = False) -> pd.DataFrame:
    """Generated aspect texts through the one reader of the texts contract (`data.generated`)."""
    if not path:
        raise ConfigError("SemCSE-Multi needs generated aspect texts: pass --texts DIR (multi.texts)")
    try:
        return read_generated_texts(path, combine)
    except GeneratedDataError as exc:
        raise ConfigError(str(exc)) from exc


def stage_training(cfg: RunConfig, overrides: dict[str, Any], where: str, **fixed: Any) -> TrainingConfig:
    """`training` with a stage's fixed settings and its user overrides on top, validated as one section."""
    data = cfg.training.model_dump() | fixed | overrides
    try:
        return TrainingConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid {where}:\n{format_validation_error(exc)}") from exc


def aspect_config(cfg: RunConfig, aspect: str, texts_path: str, out: str) -> RunConfig:
    """The training run of one aspect encoder (InfoNCE, cosine, `head_dim` projection unless overridden)."""
    multi = cfg.multi
    training = stage_training(
        cfg,
        multi.aspect_training,
        "multi.aspect_training",
        pairs=f"{KIND_PREFIX}{aspect}",
        loss="infonce",
        projection=True,
        projection_dim=multi.head_dim,
        texts=texts_path,
        out=storage.join(out, aspect),
        register_name=f"{multi.aspect_register_prefix}{aspect}",
    )
    return with_overrides(cfg, {"training": training, "run_dir": storage.join(cfg.run_dir, f"aspect-{aspect}")})


def concurrency(cfg: RunConfig, n_aspects: int) -> int:
    """How many aspect runs go at once: `multi.concurrency`, else every aspect on a cluster, else what fits here.

    On a cluster the runs queue for their workers, and the autoscaler adds the nodes they wait for;
    what happens to be up when the job starts (nothing, on a cluster scaled to zero) does not decide.
    On the embedded local cluster they would only compete for the same cores, so as many go as fit:
    each needs its workers' CPUs plus one for its controller.
    """
    if cfg.training.launcher == "local":  # runs in this process take its one process group in turn
        return 1
    if cfg.multi.concurrency:
        return min(cfg.multi.concurrency, n_aspects)
    from semcse.core.runtime import cluster_cpus, target_address

    if target_address(cfg.ray) is not None:
        return n_aspects
    tc = cfg.training
    per_run = tc.num_workers * tc.cpus_per_worker + 1
    return max(1, min(n_aspects, int(cluster_cpus() // per_run)))


def train_aspects(cfg: RunConfig) -> AspectsResult:
    """Train every aspect's encoder; all configurations and data are checked before the first run starts."""
    from semcse.core.runtime import requested
    from semcse.core.tracking import Tracker

    cfg = connected(cfg, cfg.training)
    multi = cfg.multi
    texts = merge_kinds(read_texts(multi.texts, cfg.generation.combine_settings), multi.merge)
    aspects = resolve_aspects(cfg, texts)
    out = multi.aspect_encoders or storage.join(cfg.run_dir, "aspect-encoders")
    texts_path = write_texts(keep_well_covered(texts, multi.min_summaries), storage.join(out, MERGED_TEXTS))
    configs = {a: aspect_config(cfg, a, texts_path, out) for a in aspects}
    prepared = {}
    for aspect, aspect_cfg in configs.items():
        try:
            prepared[aspect] = prepare(aspect_cfg)
        except TrainingSetupError as exc:
            raise TrainingSetupError(f"aspect {aspect!r}: {exc}") from exc
    tracking = cfg.tracking
    parent = Tracker.start(tracking, run_name="train-aspects", tags={"stage": "train-aspects"})
    with parent:
        parent.log_params({"aspects": aspects, "multi": multi.model_dump(), "texts": str(multi.texts)})
        workers = concurrency(cfg, len(aspects))
        tc = cfg.training
        log.info("%d aspects %s, %d at a time", len(aspects), aspects, workers, extra=logs.stage("train-aspects"))
        bundles = [worker_bundle(tc)] * (tc.num_workers * workers)
        with requested(bundles, cfg.ray), ThreadPoolExecutor(max_workers=workers, thread_name_prefix="aspect") as pool:
            futures = {a: pool.submit(train, c, prepared[a]) for a, c in configs.items()}
            results = {a: f.result() for a, f in futures.items()}
        for aspect, result in results.items():
            if result.run_id and parent.run_id:
                Tracker(tracking, result.run_id).set_tags({"mlflow.parentRunId": parent.run_id, "aspect": aspect})
            parent.log_metrics({f"{aspect}.best_val_score": result.best["val_score"]}, step=result.best["step"])
        encoders = {a: storage.normalize(r.model_dir) for a, r in results.items()}
        parent.log_artifact(storage.write_json(storage.join(out, MANIFEST), encoders))
    return AspectsResult(out, encoders, results, parent.run_id)


def read_manifest(directory: str | Path) -> dict[str, str]:
    """aspect → encoder location, as written by `train_aspects`."""
    path = storage.join(directory, MANIFEST)
    if not storage.is_file(path):
        raise ConfigError(f"{directory} holds no aspect encoders: {MANIFEST} is missing (run semcse train-aspects)")
    return {a: str(p) for a, p in storage.read_json(path).items()}
