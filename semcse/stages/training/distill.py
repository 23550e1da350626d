"""Stage two of SemCSE-Multi: distil the aspect encoders into one `UnifiedEncoder` (or, ablation, train it directly).

Distillation (the method, A.4): for each abstract and aspect the target is the mean of the aspect
encoder's embeddings of that abstract's applicable summaries; the unified model reads title + abstract
and each head regresses its aspect's target under a masked L2 loss (aspects without an applicable
summary contribute nothing). Validation is the average rank of an abstract's target among all
validation targets of the aspect, queried with the head's prediction, averaged over aspects.

Direct ablation (A.7, `multi.direct`): no aspect encoders; each step draws, for every aspect and
abstract, a summary as anchor and as positive either another of its summaries or the paper itself
(title + abstract, as validation ranks it; "match summaries of the same aspect to each other, and
also … abstracts to their aspect-specific summaries": a model that never embedded an abstract would
be validated and used on abstracts), and applies the contrastive loss through that aspect's head only.
Validation ranks each abstract (through the head) for the query of one of its summaries. One
deviation: the aspects share each step's abstracts, where the paper draws a separate batch per
aspect, so a rare aspect has fewer in-batch negatives than a common one.

Both objectives plug into the one training loop (`training.loop`), with their own validation, so checkpoints,
early stopping and worker-failure recovery are the encoder training's own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch import nn

from semcse.core import logs, storage
from semcse.core.config import ConfigError, RunConfig, TrainingConfig
from semcse.core.data.io import read_corpus
from semcse.core.data.schema import paper_text
from semcse.core.data.split import frame_splits
from semcse.models.encoder import TextEncoder
from semcse.models.losses import MaskedL2Loss, build_pair_loss
from semcse.models.token_batches import TokenBatches
from semcse.models.unified import UnifiedEncoder
from semcse.stages.evaluation.metrics import Similarity, average_rank
from semcse.stages.training.aspect_encoders import (
    KIND_PREFIX,
    MERGED_TEXTS,
    keep_well_covered,
    merge_kinds,
    read_manifest,
    read_texts,
    resolve_aspects,
    stage_training,
)
from semcse.stages.training.driver import TrainingJob, TrainingSetupError, fit_and_deliver
from semcse.stages.training.objective import TEXTS, Batch
from semcse.stages.training.positives import DRAW, generated_texts, row_rng
from semcse.stages.training.validation import Validated


@dataclass(frozen=True)
class TargetValidation:
    """Validation abstracts, their target embeddings [n, A, d] and which targets exist [n, A]."""

    texts: list[str]
    targets: np.ndarray
    mask: np.ndarray
    aspects: list[str]
    similarity: Similarity = "cosine"

    def __len__(self) -> int:
        return len(self.texts)


def validate_targets(model: UnifiedEncoder, val: TargetValidation, batch_size: int = 64) -> Validated:
    """Per aspect, the average rank of each abstract's target among the validation targets; their mean."""
    predicted = model.encode(val.texts, aspects=val.aspects, batch_size=batch_size)
    ranks = {}
    for a, aspect in enumerate(val.aspects):
        rows = val.mask[:, a] > 0
        ranks[f"val_rank:{aspect}"] = average_rank(
            predicted[aspect][rows], val.targets[rows, a], similarity=val.similarity
        )
    return Validated(ranks | {"val_score": float(np.mean(list(ranks.values())))})


@dataclass(frozen=True)
class SummaryValidation:
    """Per aspect: one summary per validation abstract (query) and the abstracts (candidates), row-aligned."""

    queries: dict[str, list[str]]
    documents: dict[str, list[str]]
    similarity: Similarity = "cosine"

    def __len__(self) -> int:
        return min(len(q) for q in self.queries.values())


def validate_summaries(model: UnifiedEncoder, val: SummaryValidation, batch_size: int = 64) -> Validated:
    """Per aspect, the average rank of the abstract for the query of one of its summaries (same head); their mean."""
    ranks = {}
    for aspect, queries in val.queries.items():
        vectors = model.encode(queries + val.documents[aspect], aspects=[aspect], batch_size=batch_size)[aspect]
        n = len(queries)
        ranks[f"val_rank:{aspect}"] = average_rank(vectors[:n], vectors[n:], similarity=val.similarity)
    return Validated(ranks | {"val_score": float(np.mean(list(ranks.values())))})


class DistillObjective:
    """Rows (`text`, flattened `targets` [A·d], `mask` [A]) → tokens + targets; loss = masked L2 over all heads."""

    def __init__(self, cfg: TrainingConfig, n_aspects: int) -> None:
        self.max_length = cfg.max_length
        self.forward_batch_size = cfg.forward_batch_size
        self.n_aspects = n_aspects
        self.criterion = MaskedL2Loss()
        self.terms: dict[str, torch.Tensor] = {}

    def collate_fn(self, model: nn.Module, seed: int) -> Callable[[dict[str, np.ndarray]], Batch]:
        tokenizer = model.tokenizer

        def collate(rows: dict[str, np.ndarray]) -> Batch:
            texts = [str(t) for t in rows["text"]]
            batch: Batch = {TEXTS: TokenBatches.build(tokenizer, texts, self.max_length, self.forward_batch_size)}
            targets = np.stack([np.asarray(t, dtype=np.float32) for t in rows["targets"]])
            batch["targets"] = torch.from_numpy(targets.reshape(len(targets), self.n_aspects, -1))
            batch["mask"] = torch.from_numpy(np.stack([np.asarray(m, dtype=np.float32) for m in rows["mask"]]))
            return batch

        return collate

    def loss(self, model: Callable[..., torch.Tensor], batch: Batch) -> torch.Tensor:
        predictions = batch[TEXTS].encode(model)
        return self.criterion(predictions, batch["targets"], batch["mask"])


# The share of direct-ablation pairs whose positive is the abstract, not a second summary (A.7 gives no ratio)
ABSTRACT_POSITIVES = 0.5


class DirectObjective:
    """Rows (`text`, one `pool_<i>` list of summaries per aspect) → per aspect, one pair per abstract that has two
    summaries: a summary and, as its positive, another summary or (`ABSTRACT_POSITIVES` of the time) the paper;
    loss = the mean over aspects of the pair loss, each through its own head.

    Aspects differ in how many pairs a batch holds, so the in-batch negatives stay local to the worker
    (`distill` runs this ablation on one worker).
    """

    def __init__(self, cfg: TrainingConfig, n_aspects: int) -> None:
        self.max_length = cfg.max_length
        self.forward_batch_size = cfg.forward_batch_size
        self.n_aspects = n_aspects
        self.criterion = build_pair_loss("infonce", temperature=cfg.recipe.temperature)
        self.terms: dict[str, torch.Tensor] = {}

    def collate_fn(self, model: nn.Module, seed: int) -> Callable[[dict[str, np.ndarray]], Batch]:
        tokenizer = model.tokenizer

        def collate(rows: dict[str, np.ndarray]) -> Batch:
            anchors, positives, heads = [], [], []
            count = len(rows["text"])
            rngs = [row_rng(seed, rows[DRAW][i] if DRAW in rows else (0, i)) for i in range(count)]
            for a in range(self.n_aspects):
                for i, pool in enumerate(rows[f"pool_{a}"]):
                    if len(pool) >= 2:
                        first, second = rngs[i].choice(len(pool), 2, replace=False)
                        to_abstract = rngs[i].random() < ABSTRACT_POSITIVES
                        anchors.append(str(pool[first]))
                        positives.append(str(rows["text"][i]) if to_abstract else str(pool[second]))
                        heads.append(a)
            texts = anchors + positives
            batch: Batch = {TEXTS: TokenBatches.build(tokenizer, texts, self.max_length, self.forward_batch_size)}
            batch["heads"] = torch.tensor(heads, dtype=torch.long)
            return batch

        return collate

    def loss(self, model: Callable[..., torch.Tensor], batch: Batch) -> torch.Tensor:
        vectors = batch[TEXTS].encode(model)
        heads = batch["heads"]
        half = heads.shape[0]
        own = vectors[torch.arange(2 * half, device=vectors.device), heads.repeat(2)]
        losses = [
            self.criterion(own[:half][heads == a], own[half:][heads == a])
            for a in range(self.n_aspects)
            if int((heads == a).sum()) >= 2
        ]
        return torch.stack(losses).mean() if losses else own.sum() * 0.0


@dataclass
class DistillData:
    """Everything the run needs: training rows, the validation set and its evaluation, and counts."""

    aspects: list[str]
    train_rows: pd.DataFrame
    validation: TargetValidation | SummaryValidation
    validate: Callable[[Any, Any], Validated]
    counts: dict[str, int]


def summaries_by_aspect(texts: pd.DataFrame, aspects: list[str]) -> dict[str, pd.Series]:
    """aspect → (abstract id → its applicable summaries of that aspect)."""
    return {a: generated_texts(texts, f"{KIND_PREFIX}{a}") for a in aspects}


def aspect_targets(
    ids: list[str], summaries: dict[str, pd.Series], encoders: dict[str, TextEncoder], batch_size: int = 64
) -> tuple[np.ndarray, np.ndarray]:
    """targets [n, A, d] (mean of the aspect encoder's embeddings of each abstract's summaries) and mask [n, A]."""
    dims = {a: e.dim for a, e in encoders.items()}
    if len(set(dims.values())) != 1:
        raise ConfigError(f"aspect encoders must share one embedding size for the unified heads, got {dims}")
    position = {key: i for i, key in enumerate(ids)}
    targets = np.zeros((len(ids), len(summaries), next(iter(dims.values()))), dtype=np.float32)
    mask = np.zeros((len(ids), len(summaries)), dtype=np.float32)
    for a, (aspect, pools) in enumerate(summaries.items()):
        pools = pools[pools.index.isin(position)]
        flat = [text for pool in pools for text in pool]
        if not flat:
            continue
        vectors = encoders[aspect].encode(flat, batch_size=batch_size)
        owners = np.repeat([position[i] for i in pools.index], [len(p) for p in pools])
        np.add.at(targets[:, a], owners, vectors)
        counts = np.bincount(owners, minlength=len(ids)).astype(np.float32)
        targets[:, a] /= np.clip(counts, 1, None)[:, None]
        mask[:, a] = counts > 0
    return targets, mask


def prepare_distill(cfg: RunConfig, tc: TrainingConfig) -> DistillData:
    """Check the inputs and build rows and validation; nothing on Ray yet."""
    multi = cfg.multi
    if not cfg.corpus.path:
        raise TrainingSetupError("corpus.path is not set; pass --corpus PATH (a validated corpus)")
    corpus = read_corpus(cfg.corpus.path, cfg.corpus).assign(id=lambda f: f["id"].astype(str))
    corpus = corpus.assign(text=paper_text(corpus))
    split = frame_splits(corpus, cfg.corpus)
    if multi.direct:
        return _direct_data(cfg, tc, corpus, split)
    if not multi.aspect_encoders:
        raise TrainingSetupError(
            "distillation needs aspect encoders: pass --aspect-encoders DIR (semcse train-aspects)"
        )
    manifest = read_manifest(multi.aspect_encoders)
    combine = cfg.generation.combine_settings
    texts = read_texts(multi.texts or storage.join(multi.aspect_encoders, MERGED_TEXTS), combine)
    texts = merge_kinds(texts, multi.merge)
    aspects = (
        [a for a in resolve_aspects(cfg, texts) if a in manifest]
        if (multi.aspect_pack or multi.aspects)
        else list(manifest)
    )
    if not aspects:
        raise TrainingSetupError(f"none of the configured aspects has an encoder in {multi.aspect_encoders}")
    used = corpus[split != "test"]
    encoders = {a: TextEncoder.load(manifest[a]) for a in aspects}
    targets, mask = aspect_targets(used["id"].tolist(), summaries_by_aspect(texts, aspects), encoders)
    has_any = mask.sum(1) > 0
    is_val = (split[split != "test"] == "val").to_numpy()
    train = used[has_any & ~is_val]
    rows = pd.DataFrame(
        {
            "text": train["text"].tolist(),
            "targets": list(targets[has_any & ~is_val].reshape(len(train), -1)),
            "mask": list(mask[has_any & ~is_val]),
        }
    )
    val = has_any & is_val
    chosen = np.flatnonzero(val)[: tc.val_size]
    validation = TargetValidation(
        used["text"].iloc[chosen].tolist(), targets[chosen], mask[chosen], aspects, encoders[aspects[0]].similarity
    )
    counts = {"train_abstracts": len(rows), "val_abstracts": len(chosen)}
    counts |= {f"train_targets:{a}": int(mask[has_any & ~is_val, i].sum()) for i, a in enumerate(aspects)}
    _check(tc, counts, [int(mask[chosen, i].sum()) for i in range(len(aspects))], aspects)
    return DistillData(aspects, rows, validation, validate_targets, counts)


def _direct_data(cfg: RunConfig, tc: TrainingConfig, corpus: pd.DataFrame, split: pd.Series) -> DistillData:
    multi = cfg.multi
    if tc.num_workers != 1:
        raise TrainingSetupError("the direct ablation trains on one worker: set multi.distill.num_workers=1")
    texts = read_texts(multi.texts, cfg.generation.combine_settings)
    texts = keep_well_covered(merge_kinds(texts, multi.merge), multi.min_summaries)
    aspects = resolve_aspects(cfg, texts)
    pools = summaries_by_aspect(texts, aspects)
    frame = corpus[split == "train"]
    columns = {f"pool_{a}": frame["id"].map(pools[aspect]).map(_as_list) for a, aspect in enumerate(aspects)}
    rows = pd.DataFrame({"text": frame["text"].tolist(), **{k: v.tolist() for k, v in columns.items()}})
    rows = rows[rows[list(columns)].map(len).ge(2).any(axis=1)].reset_index(drop=True)
    val = corpus[split == "val"]
    queries, documents = {}, {}
    for aspect in aspects:
        held = val[val["id"].isin(pools[aspect].index)].head(tc.val_size)
        queries[aspect] = [pools[aspect][i][0] for i in held["id"]]
        documents[aspect] = held["text"].tolist()
    counts = {"train_abstracts": len(rows), "val_abstracts": int((split == "val").sum())}
    _check(tc, counts, [len(q) for q in queries.values()], aspects)
    return DistillData(aspects, rows, SummaryValidation(queries, documents), validate_summaries, counts)


def _as_list(value: Any) -> list[str]:
    return list(value) if isinstance(value, list) else []


def _check(tc: TrainingConfig, counts: dict[str, int], val_per_aspect: list[int], aspects: list[str]) -> None:
    if counts["train_abstracts"] // tc.num_workers < tc.worker_batch_size:
        raise TrainingSetupError(
            f"batch_size {tc.batch_size} is larger than the training data: {counts['train_abstracts']} abstracts "
            f"with an applicable aspect over {tc.num_workers} workers; lower multi.distill.batch_size"
        )
    thin = [a for a, n in zip(aspects, val_per_aspect) if n < 2]
    if thin:
        raise TrainingSetupError(f"validation needs ≥2 held-out abstracts per aspect; too few for {thin}")


@dataclass
class DistillResult:
    model_dir: str
    aspects: list[str]
    best: dict[str, Any]
    run_id: str | None
    model_version: str | None


def build_unified(tc: TrainingConfig, aspects: list[str], dim: int) -> UnifiedEncoder:
    """The student: the base encoder's trunk with fresh heads (seeded, so every worker starts identical)."""
    if not tc.base_model:
        raise ValueError("training.base_model is not set; pass --base-model PATH (a local HF or ST directory)")
    torch.manual_seed(tc.seed)
    model = UnifiedEncoder.create(tc.base_model, aspects, dim, pooling=tc.pooling, max_length=tc.export_max_length)
    model.trunk.freeze(embeddings=tc.recipe.freeze_embeddings, layers=tc.recipe.freeze_layers)
    return model


def distill(cfg: RunConfig, ray_callbacks: Sequence[Any] = ()) -> DistillResult:
    """Train the unified model (`training.launcher`), save it under `multi.out`, register `multi.register_name`;
    `ray_callbacks` go to Ray Train's controller (a Tune trial's)."""
    multi = cfg.multi
    # training.base_similarity_weight shapes pair runs; the unified model's objectives have no use for it
    tc = stage_training(cfg, multi.distill, "multi.distill", base_similarity_weight=0.0)
    if tc.base_similarity_weight:
        raise TrainingSetupError(
            "multi.distill.base_similarity_weight: the unified model learns its aspect encoders' embeddings, not "
            "pairs, and keeps no base-model similarities; leave it unset"
        )
    data = prepare_distill(cfg, tc)
    # distillation's heads regress the aspect encoders' targets, so they take the targets' size
    validation = data.validation
    dim = validation.targets.shape[-1] if isinstance(validation, TargetValidation) else multi.head_dim
    factory = functools.partial(build_unified, tc, data.aspects, dim)
    try:
        factory()
    except (OSError, ValueError) as exc:
        raise TrainingSetupError(f"cannot build the unified model from {tc.base_model!r}: {exc}") from exc
    mode = "direct" if multi.direct else "distill"
    job = TrainingJob(
        stage=mode,
        run_name=f"{mode}-multi",
        tags={"stage": "distill", "mode": mode},
        params={"multi": multi.model_dump(), "aspects": data.aspects, **data.counts},
        objective=(DirectObjective if multi.direct else DistillObjective)(tc, len(data.aspects)),
        model_factory=factory,
        validation=data.validation,
        rows=data.train_rows,
        out=multi.out or storage.join(cfg.run_dir, "unified"),
        artifact="model",
        register_name=multi.register_name,
        register_alias=multi.register_alias,
        banner=[
            f"aspects {data.aspects}: {data.counts['train_abstracts']} training abstracts, "
            f"{data.counts['val_abstracts']} validation; "
            f"{logs.counted(tc.num_workers, 'worker')} × {tc.worker_batch_size}, "
            f"{tc.max_steps} steps"
        ],
        validate=data.validate,
    )
    result = fit_and_deliver(cfg, tc, job, ray_callbacks)
    return DistillResult(result.model_dir, data.aspects, result.best, result.run_id, result.model_version)
