"""CPU training in bf16 where the hardware has it: forwards under bf16 autocast, weights, optimizer and loss in fp32.

On a CPU with native bf16 instructions (AVX512-BF16 or AMX) a forward and backward pass is faster than in
fp32 (figures: docs/train.md, "Candidate zero"). Autocast only changes the precision of the encoder's
matrix products: the parameters and AdamW's state stay fp32,
and the loss is computed on fp32 embeddings outside autocast, so a contrastive loss's similarity
logits (up to 1/τ = 20) keep their resolution. Elsewhere bf16 is emulated and slower, so unset
`training.cpu_bf16` is decided by the CPU of rank 0's node when a run starts (`run_precision`), and
kept by a resumed run (its checkpoints record it). A GPU run trains its model in bf16 through
DeepSpeed (`engine.deepspeed_config`) and needs none of this.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch

from semcse.core.config import TrainingConfig

# torch.cpu's checks for native bf16 instructions (private, hence probed with a False fallback)
_NATIVE_BF16_PROBES = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")


def native_bf16() -> bool:
    """Whether this process's CPU has native bf16 instructions."""
    return any(bool(getattr(torch.cpu, probe, lambda: False)()) for probe in _NATIVE_BF16_PROBES)


def run_precision(cfg: TrainingConfig, recorded: bool | None = None) -> tuple[bool, str]:
    """Whether a CPU run's forwards use bf16 autocast, and why (for its log line).

    `training.cpu_bf16` when set; else `recorded`, the precision the run started in (a resumed run keeps
    it, so every step is still compared with a base model validated the same way, whatever node it
    resumes on); else whether this CPU has native bf16 instructions. The loop asks on rank 0 and
    every worker follows, so one run never mixes precisions across node types.
    """
    if cfg.use_gpu:
        return False, "a GPU run trains in bf16 through DeepSpeed"
    if cfg.cpu_bf16 is not None:
        return cfg.cpu_bf16, "training.cpu_bf16"
    if recorded is not None:
        return recorded, "the precision this run started in"
    if native_bf16():
        return True, "this CPU has native bf16; training.cpu_bf16=false for fp32"
    return False, "this CPU has no native bf16"


def autocast(bf16: bool) -> contextlib.AbstractContextManager[Any]:
    """bf16 autocast where the run decided on it (`run_precision`), nothing otherwise (validation runs inside it):
    the base model and every step are validated in the same precision, so their comparison stays paired."""
    return torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()


def training_forward(model: Callable[..., torch.Tensor], bf16: bool) -> Callable[..., torch.Tensor]:
    """`model` for an objective's loss: in a bf16 run, each call runs under bf16 autocast and returns fp32
    embeddings, so the loss outside it is computed in fp32 (gradients flow back through the cast)."""
    if not bf16:
        return model

    def forward(**inputs: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return model(**inputs).float()

    return forward
