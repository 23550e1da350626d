"""Texts tokenised once and cut into length-sorted, separately padded chunks.

Padding is paid for: a transformer computes every padded position of a batch, and crops, summaries and
queries vary several-fold in length, so chunks of similar length waste far less than one batch padded to its
longest text (`benchmarks/forward_chunks.py`). Attention masks keep every real token's output identical either
way, so this changes cost, not results.

One helper serves training (a step's texts are encoded chunk by chunk and put back in input order,
so the loss and its gradients are those of the whole batch) and inference (`TextEncoder.encode`, the
embeddings server), and both sort by the tokenizer's own counts, not by characters.

Example:
    >>> batches = TokenBatches.build(model.tokenizer, anchors + positives, max_length=128, chunk_size=16)
    >>> vectors = batches.encode(model)  # [len(texts), dim], input order, differentiable
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

PAD_VALUES = {"attention_mask": 0, "token_type_ids": 0}


@dataclass(frozen=True)
class TokenBatches:
    """`chunks[k]` holds the texts `order[k·size : (k+1)·size]` (shortest first), padded to their own longest.

    `lengths[i]` is text i's token count after truncation (input order): what an API bills and
    what throughput counts.
    """

    chunks: list[dict[str, torch.Tensor]]
    order: np.ndarray
    lengths: np.ndarray

    @classmethod
    def build(cls, tokenizer: Any, texts: Sequence[str], max_length: int, chunk_size: int) -> TokenBatches:
        """Tokenise `texts` in one call (no padding), sort by token count, pad each chunk of `chunk_size`.

        `chunk_size <= 0` keeps the texts in one chunk (one padded batch, the classic layout).
        """
        encoded = tokenizer(list(texts), truncation=True, max_length=max_length, padding=False)
        keys = [key for key in ("input_ids", "attention_mask", "token_type_ids") if key in encoded]
        lengths = np.fromiter((len(ids) for ids in encoded["input_ids"]), dtype=np.int64, count=len(texts))
        order = np.argsort(lengths, kind="stable")
        size = chunk_size if chunk_size > 0 else max(1, len(texts))
        pad_values = PAD_VALUES | {"input_ids": tokenizer.pad_token_id or 0}
        left = getattr(tokenizer, "padding_side", "right") == "left"
        chunks = []
        for start in range(0, len(texts), size):
            index = order[start : start + size]
            width = int(lengths[index].max())
            chunk = {}
            for key in keys:
                array = np.full((len(index), width), pad_values[key], dtype=np.int64)
                for row, i in enumerate(index):
                    values = encoded[key][i]
                    if left:
                        array[row, width - len(values) :] = values
                    else:
                        array[row, : len(values)] = values
                chunk[key] = torch.from_numpy(array)
            chunks.append(chunk)
        return cls(chunks, order, lengths)

    @property
    def tokens(self) -> int:
        """Real (unpadded) tokens in all chunks."""
        return int(self.lengths.sum())

    def to(self, device: Any) -> TokenBatches:
        moved = [{key: value.to(device) for key, value in chunk.items()} for chunk in self.chunks]
        return TokenBatches(moved, self.order, self.lengths)

    def indexed(self) -> Iterator[tuple[np.ndarray, dict[str, torch.Tensor]]]:
        """(input positions, chunk) pairs, for callers that write each chunk's outputs where they belong."""
        start = 0
        for chunk in self.chunks:
            size = chunk["input_ids"].shape[0]
            yield self.order[start : start + size], chunk
            start += size

    def encode(self, model: Callable[..., torch.Tensor]) -> torch.Tensor:
        """`model(**chunk)` for every chunk, concatenated and put back in input order (gradients flow through)."""
        outputs = torch.cat([model(**chunk) for chunk in self.chunks])
        inverse = torch.from_numpy(np.argsort(self.order)).to(outputs.device)
        return outputs.index_select(0, inverse)
