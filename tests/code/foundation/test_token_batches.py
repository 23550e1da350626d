"""Length-sorted chunks change the cost of a batch, never its vectors or gradients."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from semcse.models.encoder import TextEncoder
from semcse.models.token_batches import TokenBatches

TEXTS = [
    "Coral reefs bleach under heat stress and recover slowly over many years of observation.",
    "Short.",
    "Graph neural networks predict molecular properties from atoms and bonds.",
    "Mice.",
    "A randomized trial of statins in older adults with moderate cardiovascular risk and diabetes.",
]


@pytest.fixture
def encoder(tiny_encoder_dir: Path) -> TextEncoder:
    torch.manual_seed(0)
    return TextEncoder.load(tiny_encoder_dir)


def test_chunks_are_sorted_padded_per_chunk_and_counted(encoder: TextEncoder) -> None:
    batches = TokenBatches.build(encoder.tokenizer, TEXTS, max_length=12, chunk_size=2)
    plain = encoder.tokenizer(TEXTS, truncation=True, max_length=12)
    assert batches.lengths.tolist() == [len(ids) for ids in plain["input_ids"]]
    assert batches.tokens == sum(batches.lengths) and max(batches.lengths) == 12
    widths = [chunk["input_ids"].shape[1] for chunk in batches.chunks]
    assert [chunk["input_ids"].shape[0] for chunk in batches.chunks] == [2, 2, 1]
    assert widths == sorted(widths) and widths[0] < widths[-1]  # short texts are not padded to the longest
    for positions, chunk in batches.indexed():
        assert chunk["attention_mask"].sum(1).tolist() == batches.lengths[positions].tolist()
        for row, i in enumerate(positions):
            kept = chunk["input_ids"][row][chunk["attention_mask"][row].bool()].tolist()
            assert kept == plain["input_ids"][i]
    assert len(TokenBatches.build(encoder.tokenizer, TEXTS, 12, chunk_size=0).chunks) == 1


def test_left_padding_keeps_the_real_tokens_at_the_end(encoder: TextEncoder) -> None:
    encoder.tokenizer.padding_side = "left"
    batches = TokenBatches.build(encoder.tokenizer, TEXTS, max_length=32, chunk_size=0)
    mask = batches.chunks[0]["attention_mask"]
    assert mask[:, -1].all() and not mask[:, 0].all()


def test_chunked_vectors_and_gradients_equal_one_padded_batch(encoder: TextEncoder) -> None:
    encoder.train()
    for module in encoder.modules():  # dropout off: the comparison is of the arithmetic, not of masks
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    weights = torch.randn(len(TEXTS), encoder.dim, generator=torch.Generator().manual_seed(1))

    def run(chunk_size: int) -> tuple[torch.Tensor, list[torch.Tensor]]:
        encoder.zero_grad()
        vectors = TokenBatches.build(encoder.tokenizer, TEXTS, 32, chunk_size).encode(encoder)
        (vectors * weights).sum().backward()
        return vectors.detach(), [p.grad.clone() for p in encoder.parameters() if p.grad is not None]

    whole, whole_grads = run(0)
    chunked, chunked_grads = run(2)
    torch.testing.assert_close(chunked, whole, rtol=1e-4, atol=1e-5)
    assert len(chunked_grads) == len(whole_grads) > 0
    for mine, theirs in zip(chunked_grads, whole_grads):
        torch.testing.assert_close(mine, theirs, rtol=1e-3, atol=1e-5)


def test_encode_returns_input_order_and_token_counts(encoder: TextEncoder) -> None:
    vectors, counts = encoder.encode_counted(TEXTS, batch_size=2)
    one_by_one = np.concatenate([encoder.encode([text]) for text in TEXTS])
    np.testing.assert_allclose(vectors, one_by_one, rtol=1e-4, atol=1e-5)
    assert counts.tolist() == [len(ids) for ids in encoder.tokenizer(TEXTS, truncation=True)["input_ids"]]
