"""Training the embedding → text decoder on Ray Train.

A training example is one abstract: its aspect embedding (the mean of its summaries' embeddings, as in
SemCSE-Multi A.8) and all of its summaries; each time the abstract is drawn, one summary is picked at
random as the target. Only the mapping network and the learned tokens train (the LM is frozen), so
plain DDP over gloo/nccl is enough — no DeepSpeed sharding. Validation loss decides early stopping and
which checkpoint is kept; MLflow gets the curves, the weights and a `semcse-decoder` registry version.
"""

from __future__ import annotations

import copy
import logging
import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from semcse import logs, storage
from semcse.config import CorpusConfig, DecoderConfig, RunConfig
from semcse.data.generated import read_texts, summaries_by_id
from semcse.models.decoder import DecoderExamples, EmbeddingDecoder
from semcse.tracking import Tracker

if TYPE_CHECKING:
    from semcse.models.encoder import TextEncoder

log = logging.getLogger(__name__)


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
    from semcse.data.split import splits_of

    names = splits_of(examples.ids, corpus)
    return {s: examples.subset([k for k, n in enumerate(names) if n == s]) for s in ("train", "val", "test")}


def _validation_loss(model: torch.nn.Module, decoder: EmbeddingDecoder, val: DecoderExamples, batch: int) -> float:
    """Token-mean NLL over all validation pairs, summed across workers when distributed."""
    embeddings, texts = val.pairs()
    totals = torch.zeros(2, dtype=torch.float64)
    model.eval()
    with torch.no_grad():
        for start in range(0, len(texts), batch):
            vectors = decoder.check_embeddings(embeddings[start : start + batch])
            nll, count = model(vectors, **decoder.tokenize(texts[start : start + batch]))
            totals += torch.stack([nll.sum().double().cpu(), count.sum().double().cpu()])
    model.train()
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.all_reduce(totals)
    return float(totals[0] / totals[1]) if totals[1] > 0 else math.nan


Report = Callable[[dict[str, float], bool], None]


def fit(
    model: torch.nn.Module,
    train: DecoderExamples,
    val: DecoderExamples,
    settings: DecoderConfig,
    report: Report | None = None,
    rank: int = 0,
) -> dict[str, float]:
    """The training loop (one worker's view): random summary per draw, early stopping on validation loss.

    `model` is the decoder or its DDP wrapper. `report(metrics, improved)` is called after every
    evaluation; the best weights are restored into the decoder before returning.
    """
    if len(train) == 0:
        raise ValueError("this worker has no training abstracts; use fewer workers or more data")
    decoder = getattr(model, "module", model)
    if not isinstance(decoder, EmbeddingDecoder):
        raise TypeError(f"fit trains an EmbeddingDecoder or its DDP wrapper, not {type(decoder).__name__}")
    params = [p for p in model.parameters() if p.requires_grad]
    # torch's fused AdamW: the same update in one kernel, a quarter of the per-tensor loop's time on CPU
    # (`benchmarks/cpu_kernels.py`), as the encoder's trainer steps (`engine.deepspeed_config`)
    optimizer = torch.optim.AdamW(params, lr=settings.learning_rate, weight_decay=settings.weight_decay, fused=True)
    rng = np.random.default_rng(settings.seed + rank)
    torch.manual_seed(settings.seed)
    best = {"val_loss": math.inf, "step": 0}
    best_state = copy.deepcopy(decoder.trainable_state())
    running, waited = [], 0
    model.train()
    for step in range(1, settings.max_steps + 1):
        index = rng.choice(len(train), settings.batch_size, replace=len(train) < settings.batch_size)
        texts = [train.summaries[i][rng.integers(len(train.summaries[i]))] for i in index]
        nll, count = model(decoder.check_embeddings(train.embeddings[index]), **decoder.tokenize(texts))
        loss = nll.sum() / count.sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        running.append(loss.item())
        if step % settings.eval_every and step != settings.max_steps:
            continue
        val_loss = _validation_loss(model, decoder, val, settings.batch_size * 4)
        improved = val_loss < best["val_loss"]
        if improved:
            best = {"val_loss": val_loss, "step": step}
            best_state = copy.deepcopy(decoder.trainable_state())
        waited = 0 if improved else waited + 1
        metrics = {
            "step": step,
            "train_loss": float(np.mean(running)),
            "val_loss": val_loss,
            "val_perplexity": math.exp(min(val_loss, 50.0)),
            "best_val_loss": best["val_loss"],
        }
        running = []
        if report is not None:
            report(metrics, improved)
        if waited >= settings.patience:
            log.info("early stopping at step %d (best val loss %.4f at step %d)", step, best["val_loss"], best["step"])
            break
    decoder.load_state_dict(best_state, strict=False)
    return {"best_val_loss": best["val_loss"], "best_step": best["step"], "steps": step}


def _worker_loop(config: dict[str, Any]) -> None:
    """Ray Train worker: build the decoder around the frozen LM, DDP-wrap it, run `fit`, report checkpoints."""
    import ray.train
    import ray.train.torch

    settings = DecoderConfig.model_validate(config["settings"])
    context = ray.train.get_context()
    rank = context.get_world_rank()
    dim = config["embedding_dim"]
    train, val = (
        DecoderExamples.from_rows(list(ray.train.get_dataset_shard(name).iter_rows()), dim)
        for name in ("train", "val")
    )
    decoder = EmbeddingDecoder.create(config["base_model"], dim, **config["spec"])
    model = ray.train.torch.prepare_model(decoder, parallel_strategy_kwargs={"find_unused_parameters": False})
    tracker: Tracker | None = config.get("tracker")

    def report(metrics: dict[str, float], improved: bool) -> None:
        if rank == 0 and tracker is not None:
            tracker.log_metrics({k: v for k, v in metrics.items() if k != "step"}, step=int(metrics["step"]))
        if improved and rank == 0:
            with tempfile.TemporaryDirectory() as tmp:
                decoder.save(tmp)
                ray.train.report(metrics, checkpoint=ray.train.Checkpoint.from_directory(tmp))
        else:
            ray.train.report(metrics)

    fit(model, train, val, settings, report, rank)


@dataclass
class TrainedDecoder:
    path: str
    metrics: dict[str, float]
    run_id: str | None
    version: str | None


def train_decoder(
    settings: DecoderConfig,
    base_model: str,
    train: DecoderExamples,
    val: DecoderExamples,
    out: str | Path,
    tracker: Tracker | None = None,
    checkpoints: str | None = None,
) -> TrainedDecoder:
    """Run the Ray Train job and copy its best checkpoint to `out`; log and register it when tracking.

    `out` and `checkpoints` (default: `ray_results` beside `out`) may be storage URIs.
    """
    import ray.data
    from ray.train import CheckpointConfig, LoggingConfig, ScalingConfig
    from ray.train import RunConfig as RayRunConfig
    from ray.train.torch import TorchTrainer

    if len(train) == 0 or len(val) == 0:
        raise ValueError(f"the decoder needs training and validation abstracts (got {len(train)} and {len(val)})")
    dim = int(train.embeddings.shape[1])
    spec = {
        "aspect": settings.aspect,
        "task_tokens": settings.task_tokens,
        "mapped_tokens": settings.mapped_tokens,
        "hidden_dim": settings.hidden_dim,
        "chat": settings.chat,
        "max_length": settings.max_length,
    }
    out = storage.normalize(out)
    filesystem, storage_path = storage.filesystem(checkpoints or storage.join(storage.parent(out), "ray_results"))
    trainer = TorchTrainer(
        _worker_loop,
        train_loop_config={
            "settings": settings.model_dump(),
            "base_model": base_model,
            "embedding_dim": dim,
            "spec": spec,
            "tracker": tracker,
        },
        scaling_config=ScalingConfig(
            num_workers=settings.num_workers,
            use_gpu=settings.use_gpu,
            resources_per_worker={"CPU": settings.cpus_per_worker, **({"GPU": 1} if settings.use_gpu else {})},
        ),
        datasets={"train": ray.data.from_items(train.rows()), "val": ray.data.from_items(val.rows())},
        run_config=RayRunConfig(
            name=f"decoder-{storage.basename(out)}",
            storage_path=storage_path,
            storage_filesystem=filesystem,
            checkpoint_config=CheckpointConfig(num_to_keep=1),
            # Ray Train V2's RunConfig (the one in use) takes it; mypy reads the V1 class behind `ray.train`
            logging_config=LoggingConfig(log_level=logs.ray_level()),  # type: ignore[call-arg]
        ),
    )
    result = trainer.fit()
    if result.checkpoint is None:
        raise RuntimeError("decoder training finished without a checkpoint (no validation step ran)")
    version = None
    with result.checkpoint.as_directory() as best:
        storage.upload(best, out)
        if tracker is not None and tracker.active:
            tracker.log_artifact(best, "decoder")
            version = tracker.register_model("decoder", settings.register_name, settings.register_alias)
    metrics = {k: float(v) for k, v in (result.metrics or {}).items() if isinstance(v, int | float)}
    return TrainedDecoder(out, metrics, tracker.run_id if tracker else None, version)


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
    """The whole stage from a run config: texts + encoder → examples → split → Ray Train → registry."""
    from semcse.runtime import connect

    settings = cfg.decoder
    base_model = settings.base_model
    missing = [k for k in ("base_model", "encoder", "texts") if getattr(settings, k) is None]
    if missing or base_model is None:
        raise ValueError(f"train-decoder needs decoder.{', decoder.'.join(missing)} (set them with --set or flags)")
    cfg = connect(cfg)
    splits, _ = embedded_examples(cfg, settings.aspect)
    out = settings.out or storage.join(cfg.run_dir, "decoder", settings.aspect.replace(":", "-"))
    with Tracker.start(cfg.tracking, run_name="train-decoder", tags={"stage": "decoder"}) as tracker:
        tracker.log_params(settings, prefix="decoder.")
        tracker.log_params({f"examples.{k}": len(v) for k, v in splits.items()})
        checkpoints = storage.join(cfg.run_dir, "ray")
        return train_decoder(settings, base_model, splits["train"], splits["val"], out, tracker, checkpoints)
