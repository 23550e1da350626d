"""Which attention kernel a CPU training run's forwards use: eager attention for training steps, SDPA for encoding.

In train mode a BERT-family encoder applies dropout to its attention probabilities (0.1 in all-MiniLM-L6-v2), and
torch's CPU `scaled_dot_product_attention` has no fused kernel that takes dropout: it falls back to its composite
path, whose forward and backward cost more than transformers' own eager attention (softmax, dropout, product), the
same maths. Without dropout (validation, evaluation, the frozen base model of `reference.py`) the fused kernel is
the faster one. So a CPU run steps with eager attention and validates with SDPA (`encoding`);
`benchmarks/cpu_kernels.py` measures both. A GPU run keeps SDPA throughout: CUDA's fused kernels take dropout.
The choice is the model's runtime setting only: an exported model's config does not record it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from torch import nn
from transformers import PreTrainedModel

from semcse.core.config import TrainingConfig

TRAINING = "eager"
ENCODING = "sdpa"
# where transformers' configs keep the attention-probability dropout, by architecture family
_DROPOUT_FIELDS = ("attention_probs_dropout_prob", "attention_dropout")


def _backbones(model: nn.Module) -> list[PreTrainedModel]:
    """The outermost Hugging Face models inside `model` whose attention kernel can be switched while they run (a
    switch reaches their submodels), and only between these two kernels (a GPU run's flash attention stays)."""
    found: list[PreTrainedModel] = []
    for module in model.modules():
        if not isinstance(module, PreTrainedModel) or any(module in outer.modules() for outer in found):
            continue
        switchable = getattr(module, "_can_set_attn_implementation", None)  # older transformers: keep the kernel
        if switchable is not None and switchable() and module.config._attn_implementation in (TRAINING, ENCODING):
            found.append(module)
    return found


def _attention_dropout(module: PreTrainedModel) -> float:
    return max(float(getattr(module.config, field, 0.0) or 0.0) for field in _DROPOUT_FIELDS)


def _set(backbones: list[PreTrainedModel], implementation: str) -> None:
    for module in backbones:
        if module.config._attn_implementation != implementation:
            module.set_attn_implementation(implementation)


def for_training(model: nn.Module, cfg: TrainingConfig) -> None:
    """Set `model`'s attention for a CPU run's training steps: eager where its attention has dropout."""
    if not cfg.use_gpu:
        _set([module for module in _backbones(model) if _attention_dropout(module) > 0], TRAINING)


@contextlib.contextmanager
def encoding(model: nn.Module) -> Iterator[None]:
    """SDPA inside the block (encoding without gradients, in eval mode), the attention `model` had after it."""
    backbones = _backbones(model)
    before = [module.config._attn_implementation for module in backbones]
    _set(backbones, ENCODING)
    try:
        yield
    finally:
        for module, implementation in zip(backbones, before, strict=True):
            _set([module], implementation)
