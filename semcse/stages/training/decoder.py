"""Training the embedding → text decoder: one more objective of the training loop.

A training example is one abstract: its aspect embedding (the mean of its summaries' embeddings, as in
SemCSE-Multi A.8) and all of its summaries; each time the abstract is drawn, one summary is picked (seeded by the
row's place in the epoch, as a pair is) as the target. Only the mapping network and the learned tokens train
(the LM is frozen). The loop, its checkpoints, resume and delivery are the encoders' (`training.loop`,
`driver.fit_and_deliver`): candidate zero is the untrained decoder, each evaluation scores the mean answer-token
NLL of every held-out (embedding, summary) pair, and a decoder is registered (`decoder.register_name`) only when a
trained step beat it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import torch

from semcse.core import storage
from semcse.core.config import CorpusConfig, DecoderConfig, RunConfig, TrainingConfig
from semcse.core.data.generated import read_texts, summaries_by_id
from semcse.models.decoder import DecoderExamples, EmbeddingDecoder
from semcse.stages.training.driver import TrainingJob, fit_and_deliver
from semcse.stages.training.objective import Batch
from semcse.stages.training.positives import DRAW, row_rng
from semcse.stages.training.validation import Validated

if TYPE_CHECKING:
    from semcse.models.encoder import TextEncoder


def build_examples(groups: dict[str, list[str]], encode: Callable[[list[str]], np.ndarray]) -> DecoderExamples:
    """Embed every summary once and average per abstract."""
    if not groups:
        raise ValueError("no applicable summaries to build decoder examples from")
    ids = list(groups)
    flat = [text for key in ids for text in groups[key]]
    vectors = np.asarray(encode(flat), dtype=np.float32)
    bounds = np.cumsum([0] + [len(groups[key]) for key in ids])
    means = np.stack([vectors[a:b].mean(0) for a, b in zip(bounds[:-1], bounds[1:])])
    return DecoderExamples(ids, means, [groups[key] for key in ids])


def split_examples(examples: DecoderExamples, corpus: CorpusConfig) -> dict[str, DecoderExamples]:
    """The corpus-wide hash split, so the decoder never trains on the encoder's test abstracts."""
    from semcse.core.data.split import splits_of

    names = splits_of(examples.ids, corpus)
    return {s: examples.subset([k for k, n in enumerate(names) if n == s]) for s in ("train", "val", "test")}


class DecoderObjective:
    """Rows (`embedding`, `summaries`) → the embeddings and one summary of each, tokenised; loss = mean answer-token
    NLL of the batch."""

    def __init__(self) -> None:
        self.terms: dict[str, torch.Tensor] = {}

    def collate_fn(self, model: torch.nn.Module, seed: int) -> Callable[[dict[str, np.ndarray]], Batch]:
        decoder: Any = model

        def collate(rows: dict[str, np.ndarray]) -> Batch:
            texts = []
            for summaries, draw in zip(rows["summaries"], rows[DRAW]):
                texts.append(str(summaries[int(row_rng(seed, draw).integers(len(summaries)))]))
            embeddings = torch.as_tensor(np.stack(list(rows["embedding"])).astype(np.float32))
            return {"embeddings": embeddings, **decoder.tokenize(texts)}

        return collate

    def loss(self, model: Callable[..., Any], batch: Batch) -> torch.Tensor:
        nll, count = model(batch["embeddings"], batch["input_ids"], batch["attention_mask"])
        return nll.sum() / count.sum()


@dataclass(frozen=True)
class DecoderValidation:
    """Every held-out (embedding, summary) pair, and the abstract each belongs to."""

    embeddings: np.ndarray
    texts: list[str]
    owners: np.ndarray
    batch_size: int = 16

    @classmethod
    def of(cls, examples: DecoderExamples, batch_size: int) -> DecoderValidation:
        embeddings, texts = examples.pairs()
        owners = np.repeat(np.arange(len(examples)), [len(s) for s in examples.summaries])
        return cls(embeddings, texts, owners, batch_size)

    def __len__(self) -> int:
        return int(self.owners.max()) + 1 if len(self.owners) else 0


def validate_decoder(model: EmbeddingDecoder, val: DecoderValidation) -> Validated:
    """Each held-out abstract's mean answer-token NLL over its summaries (their mean is `val_score`), and the
    token-mean NLL of every pair (`val_loss`) with its perplexity."""
    nll, count = [], []
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for start in range(0, len(val.texts), val.batch_size):
            vectors = model.check_embeddings(val.embeddings[start : start + val.batch_size])
            part, tokens = model(vectors, **model.tokenize(val.texts[start : start + val.batch_size]))
            nll.append(part.double().cpu().numpy())
            count.append(tokens.double().cpu().numpy())
    model.train(was_training)
    nll_all, count_all = np.concatenate(nll), np.concatenate(count)
    items = np.bincount(val.owners, nll_all) / np.bincount(val.owners, count_all)
    loss = float(nll_all.sum() / count_all.sum())
    metrics = {"val_loss": loss, "val_perplexity": math.exp(min(loss, 50.0)), "val_score": float(items.mean())}
    return Validated(metrics, items)


def loop_settings(settings: DecoderConfig) -> TrainingConfig:
    """The decoder's optimisation and distribution settings as the loop reads them: fp32 forwards, no label guard
    (a decoder has no topics to keep), any lower validation score an improvement."""
    return TrainingConfig(
        launcher=settings.launcher,
        num_workers=settings.num_workers,
        use_gpu=settings.use_gpu,
        cpus_per_worker=settings.cpus_per_worker,
        batch_size=settings.batch_size,
        learning_rate=settings.learning_rate,
        weight_decay=settings.weight_decay,
        warmup_steps=0,
        max_steps=settings.max_steps,
        eval_every=settings.eval_every,
        log_every=settings.eval_every,
        patience=settings.patience,
        improvement="strict",
        label_guard=False,
        cpu_bf16=False,
        seed=settings.seed,
    )


def _fresh_decoder(base_model: str, dim: int, spec: dict[str, Any], seed: int) -> EmbeddingDecoder:
    torch.manual_seed(seed)  # the same learned tokens and mapping on every worker
    return EmbeddingDecoder.create(base_model, dim, **spec)


@dataclass
class TrainedDecoder:
    path: str
    metrics: dict[str, Any]
    run_id: str | None
    version: str | None


def train_decoder(cfg: RunConfig, train: DecoderExamples, val: DecoderExamples, out: str) -> TrainedDecoder:
    """Fit the decoder of `cfg.decoder` on `train`, validated on `val`; the best step goes to `out` (a directory or
    a storage URI), logged and registered when it beat the untrained decoder."""
    settings = cfg.decoder
    if settings.base_model is None:
        raise ValueError("train-decoder needs decoder.base_model (set it with --set or --base-model)")
    if len(train) < settings.batch_size or len(val) == 0:
        raise ValueError(
            f"the decoder needs a batch of training abstracts and some validation ones (got {len(train)} and "
            f"{len(val)}, batch {settings.batch_size})"
        )
    dim = int(train.embeddings.shape[1])
    spec = {
        "aspect": settings.aspect,
        "task_tokens": settings.task_tokens,
        "mapped_tokens": settings.mapped_tokens,
        "hidden_dim": settings.hidden_dim,
        "chat": settings.chat,
        "max_length": settings.max_length,
    }
    tc = loop_settings(settings)
    job = TrainingJob(
        stage="decoder",
        run_name=f"decoder-{settings.aspect.replace(':', '-')}",
        tags={"stage": "decoder"},
        params={f"decoder.{k}": v for k, v in settings.model_dump().items()}
        | {"examples.train": len(train), "examples.val": len(val)},
        objective=DecoderObjective(),
        model_factory=functools.partial(_fresh_decoder, settings.base_model, dim, spec, settings.seed),
        validation=DecoderValidation.of(val, settings.batch_size * 4),
        rows=pd.DataFrame(train.rows()),
        out=storage.normalize(out),
        artifact="decoder",
        register_name=settings.register_name,
        register_alias=settings.register_alias,
        banner=[f"{settings.aspect} decoder: {len(train)} training abstracts, {len(val)} validation"],
        validate=validate_decoder,
    )
    result = fit_and_deliver(cfg, tc, job)
    return TrainedDecoder(result.model_dir, result.metrics, result.run_id, result.model_version)


def embedded_examples(cfg: RunConfig, kind: str) -> tuple[dict[str, DecoderExamples], TextEncoder]:
    """Texts of `kind` from `decoder.texts`, embedded by `decoder.encoder` and split by the corpus-wide hash.

    Training and the decoder suite build examples the same way, so the suite scores exactly the
    held-out split the decoder never trained on. Returns the splits and the encoder.
    """
    from semcse.models.encoder import TextEncoder

    settings = cfg.decoder
    if settings.texts is None or settings.encoder is None:
        raise ValueError("decoder examples need decoder.texts and decoder.encoder (set them with --set or flags)")
    groups = summaries_by_id(read_texts(settings.texts, cfg.generation.combine_settings), kind)
    encoder = TextEncoder.load(settings.encoder, tracking=cfg.tracking)
    return split_examples(build_examples(groups, encoder.encode), cfg.corpus), encoder


def run(cfg: RunConfig) -> TrainedDecoder:
    """The whole stage from a run config: texts + encoder → examples → split → the training loop → registry."""
    settings = cfg.decoder
    missing = [k for k in ("base_model", "encoder", "texts") if getattr(settings, k) is None]
    if missing:
        raise ValueError(f"train-decoder needs decoder.{', decoder.'.join(missing)} (set them with --set or flags)")
    splits, _ = embedded_examples(cfg, settings.aspect)
    out = settings.out or storage.join(cfg.run_dir, "decoder", settings.aspect.replace(":", "-"))
    return train_decoder(cfg, splits["train"], splits["val"], out)
