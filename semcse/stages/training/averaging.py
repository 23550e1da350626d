"""Candidates averaged with the base model (WiSE-FT, Wortsman et al., CVPR 2022), inside the training run.

Fine-tuning a strong encoder on a few thousand abstracts pulls it away from what it learnt on far more
data; averaging the fine-tuned weights with the ones it started from keeps most of the in-domain gain
and gives back much of what was lost elsewhere (docs/tune.md measures it on held-out data). With
`training.average_with_base` w > 0, every evaluation scores the candidate (1 − w)·trained + w·base, and
that candidate is what the run checkpoints and delivers, so the delivery rule and the guards judge the
model a user gets. The optimizer never sees it: the trained weights are put back, bit for bit, before
the next step and before DeepSpeed saves the state a resumed run continues from.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


class BaseAverage:
    """The base model's trainable weights, kept in host memory, and the candidate they make with trained ones.

    Taken from the freshly built model before DeepSpeed wraps it (a resumed run builds the base model
    again, so it averages with the same weights). With weight 0 nothing is kept and every method is
    the identity.
    """

    def __init__(self, module: Any, weight: float) -> None:
        self.weight = weight
        self.values = (
            {name: p.detach().to("cpu", copy=True) for name, p in module.named_parameters() if p.requires_grad}
            if weight
            else {}
        )

    def mixed(self, name: str, trained: Any) -> Any:
        """`trained` (one parameter's full value) averaged with the base's, in `trained`'s dtype and device."""
        if name not in self.values:
            return trained
        return trained.lerp(self.values[name].to(trained.device, trained.dtype), self.weight)

    @contextlib.contextmanager
    def candidate(self, module: Any) -> Iterator[None]:
        """Inside the block `module` holds the averaged weights; after it, the trained ones again, bit for bit.

        For modules whose parameters are whole on this worker (ZeRO stages 0–2; the config refuses
        averaging under ZeRO-3, which partitions them).
        """
        if not self.values:
            yield
            return
        import torch

        trained: dict[str, Any] = {}
        with torch.no_grad():
            for name, p in module.named_parameters():
                if name in self.values:
                    trained[name] = p.detach().clone()
                    p.copy_(self.mixed(name, p.detach()))
        try:
            yield
        finally:
            with torch.no_grad():
                for name, p in module.named_parameters():
                    if name in trained:
                        p.copy_(trained[name])
