"""The model and the DeepSpeed configuration a training run starts from.

Both are pure functions of the training config, so the driver can build the model once to check the
configuration before any worker starts, and every worker builds the identical model.
"""

from __future__ import annotations

from typing import Any

import torch

from semcse.core.config import TrainingConfig
from semcse.models.encoder import TextEncoder


def build_encoder(cfg: TrainingConfig, notes: list[str] | None = None) -> TextEncoder:
    """The base encoder with the run's pooling, head, geometry, frozen parts and checkpointing.

    Pooling and the exported `max_seq_length` come from the base model unless the config sets them
    (training truncates at `max_length` in the objective instead). The triplet objective measures
    Euclidean distances and penalises the anchors' L2 norm, both meaningless on unit vectors, so a
    base model's Normalize module is dropped for it; `notes` collects such decisions for the banner.
    """
    if not cfg.base_model:
        raise ValueError("training.base_model is not set; pass --base-model PATH (a local HF or ST directory)")
    torch.manual_seed(cfg.seed)  # identical head (and scratch-model) initialisation on every worker
    encoder = TextEncoder.load(
        cfg.base_model,
        pooling=cfg.pooling,
        max_length=cfg.export_max_length,
        projection_dim=cfg.projection_dim if cfg.projection else None,
    )
    encoder.similarity = cfg.recipe.similarity
    if cfg.recipe.loss == "triplet" and encoder.normalize:
        encoder.normalize = False
        if notes is not None:
            notes.append(
                "the base model normalises its vectors; the triplet loss trains (and saves) them unnormalised"
            )
    frozen_layers = encoder.freeze(embeddings=cfg.recipe.freeze_embeddings, layers=cfg.recipe.freeze_layers)
    if notes is not None and (cfg.recipe.freeze_embeddings or frozen_layers):
        notes.append(_frozen_note(encoder, cfg.recipe.freeze_embeddings, frozen_layers))
    if cfg.gradient_checkpointing:
        encoder.backbone.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    return encoder


def _frozen_note(encoder: TextEncoder, embeddings: bool, layers: int) -> str:
    """What stays fixed and what that buys: the backward pass stops above the frozen part only when the
    embeddings are frozen too, otherwise their gradient flows back through every frozen layer."""
    blocks = f"transformer layer{'s 1–' if layers > 1 else ' '}{layers}"
    parts = (["the input embeddings"] if embeddings else []) + ([blocks] if layers else [])
    trainable = sum(p.numel() for p in encoder.parameters() if p.requires_grad)
    total = sum(p.numel() for p in encoder.parameters())
    note = (
        f"frozen: {' and '.join(parts)} (training.freeze_embeddings, training.freeze_layers); "
        f"{trainable / 1e6:.1f} M of {total / 1e6:.1f} M parameters train"
    )
    if layers and not embeddings:
        note += ", and the backward pass still runs through the frozen layers to the trainable embeddings"
    elif embeddings:
        note += f", and the backward pass stops at layer {layers + 1}"
    return note


def parameter_groups(model: torch.nn.Module, weight_decay: float) -> list[dict[str, Any]]:
    """Trainable parameters in two AdamW groups: weight matrices decayed, biases and norm gains not.

    Decaying a LayerNorm gain or a bias pulls it towards zero, which is not a regulariser but a
    distortion of the pretrained network (BERT's recipe excludes them). They are exactly the
    one-dimensional parameters, in any architecture.
    """
    decay: list[torch.nn.Parameter] = []
    keep: list[torch.nn.Parameter] = []
    for parameter in model.parameters():
        if parameter.requires_grad:
            (keep if parameter.ndim < 2 else decay).append(parameter)
    return [
        group
        for group in ({"params": decay, "weight_decay": weight_decay}, {"params": keep, "weight_decay": 0.0})
        if group["params"]
    ]


def skip_shared_memory_op() -> None:
    """Keep DeepSpeed's CPU backend from JIT-compiling its shared-memory all-reduce in every worker.

    The op only serves `inference_all_reduce`; training's collectives go through the gloo process
    group either way. Compiling it costs each worker tens of seconds of a 2-core machine, and a worker
    torn down mid-compile (a failed run, a killed job) leaves torch's extension lock file behind, so
    every later DeepSpeed start on that machine waits on the lock forever. Call before DeepSpeed
    creates its communication backend (`deepspeed.initialize` / `init_distributed`).
    """
    import deepspeed.ops
    from deepspeed.accelerator import get_accelerator

    builder = get_accelerator().get_op_builder("ShareMemCommBuilder")
    if builder is not None:
        deepspeed.ops.__compatible_ops__[builder.NAME] = False


def deepspeed_config(cfg: TrainingConfig) -> dict[str, Any]:
    """ZeRO at the configured stage; bf16 on GPU, fp32 weights on CPU (whose forwards may run under bf16 autocast,
    `training.precision`); AdamW with linear warm-up and linear decay.

    On CPU, `torch_adam` keeps DeepSpeed from compiling its fused/CPU Adam extensions, which need a
    toolchain the CPU workers may not have, and torch's own fused CPU AdamW (`fused`, the same update in one
    vectorised kernel) steps all-MiniLM-L6-v2 in about a fifth of the time of its default per-tensor loop
    (`benchmarks/cpu_kernels.py`). On GPU DeepSpeed's fused kernel is worth it.
    """
    adam: dict[str, Any] = {"lr": cfg.recipe.learning_rate, "weight_decay": cfg.weight_decay}
    if not cfg.use_gpu:
        adam |= {"torch_adam": True, "fused": True}
    return {
        "train_micro_batch_size_per_gpu": cfg.worker_batch_size,
        "gradient_accumulation_steps": 1,
        "optimizer": {"type": "AdamW", "params": adam},
        "scheduler": {
            "type": "WarmupDecayLR",
            "params": {
                "total_num_steps": cfg.max_steps,
                "warmup_num_steps": max(1, cfg.recipe.warmup_steps),
                "warmup_min_lr": 0.0 if cfg.recipe.warmup_steps else cfg.recipe.learning_rate,
                "warmup_max_lr": cfg.recipe.learning_rate,
                "warmup_type": "linear",
            },
        },
        "zero_optimization": {"stage": cfg.recipe.zero_stage},
        "bf16": {"enabled": cfg.use_gpu},
        "gradient_clipping": 1.0,
        "steps_per_print": 10**9,
        "wall_clock_breakdown": False,
    }
