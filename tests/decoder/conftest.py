"""A tiny decoding task that a 2-layer, 32-wide LM learns in a few hundred CPU steps.

The random tiny LM cannot express confident predictions (its logits stay below ~1), so it is first
pretrained on the summaries — the stand-in for a real LM that already knows the language. The
decoder then has to learn *which* summary an embedding stands for: eight abstracts, two short
summaries each, and well-separated synthetic embeddings.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from semcse.models.decoder import DecoderExamples

EMBEDDING_DIM = 16


@contextmanager
def one_thread() -> Iterator[None]:
    """Tiny models gain nothing from intra-op threads, and spinning OpenMP threads stall a shared 2-core box."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@pytest.fixture(scope="session")
def decoder_examples(sample_records: list[dict]) -> DecoderExamples:
    rows = sample_records[:8]
    summaries = [[" ".join(r["title"].split()[:4]), " ".join(r["title"].split()[-4:])] for r in rows]
    embeddings = np.random.default_rng(0).normal(size=(len(rows), EMBEDDING_DIM)).astype(np.float32)
    return DecoderExamples([r["id"] for r in rows], embeddings, summaries)


@pytest.fixture(scope="session")
def pretrained_lm_dir(tmp_path_factory: pytest.TempPathFactory, tiny_causal_lm_dir: Path, decoder_examples) -> Path:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_causal_lm_dir)
    lm = AutoModelForCausalLM.from_pretrained(tiny_causal_lm_dir)
    texts = [t for group in decoder_examples.summaries for t in group]
    rows = [
        [tokenizer.bos_token_id, *tokenizer(t, add_special_tokens=False)["input_ids"], tokenizer.eos_token_id]
        for t in texts
    ]
    width = max(map(len, rows))
    ids = torch.full((len(rows), width), tokenizer.pad_token_id)
    mask = torch.zeros_like(ids)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row)
        mask[i, : len(row)] = 1
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(lm.parameters(), lr=1e-2)
    with one_thread():
        for _ in range(150):
            loss = lm(input_ids=ids, attention_mask=mask, labels=ids.masked_fill(mask == 0, -100)).loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    out = tmp_path_factory.mktemp("pretrained-lm")
    lm.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def trained_decoder(pretrained_lm_dir: Path, decoder_examples: DecoderExamples):
    """(decoder, evaluation history) after `fit` without Ray: ≤300 steps of batch 8, the set as validation."""
    from semcse.config import DecoderConfig
    from semcse.models.decoder import EmbeddingDecoder
    from semcse.training.decoder import fit

    settings = DecoderConfig(hidden_dim=64, batch_size=8, learning_rate=1e-2, max_steps=300, eval_every=50, patience=3)
    decoder = EmbeddingDecoder.create(pretrained_lm_dir, EMBEDDING_DIM, hidden_dim=64)
    history: list[dict] = []
    with one_thread():
        fit(decoder, decoder_examples, decoder_examples, settings, report=lambda m, _: history.append(m))
    return decoder, history


@pytest.fixture(autouse=True)
def _single_threaded_torch() -> Iterator[None]:
    with one_thread():
        yield
