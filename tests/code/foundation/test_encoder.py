"""The platform encoder saves sentence-transformers directories that load identically elsewhere."""

from __future__ import annotations

import numpy as np
import pytest
from sentence_transformers import SentenceTransformer

from semcse.models.encoder import TextEncoder, pool

TEXTS = ["Invasive crayfish reshape lake food webs.", "A cathode coating slows capacity fade.", "x"]


def test_pooling_by_hand():
    import torch

    hidden = torch.tensor([[[1.0], [3.0], [5.0]], [[2.0], [4.0], [6.0]]])
    right = torch.tensor([[1, 1, 0], [1, 1, 1]])
    left = torch.tensor([[0, 1, 1], [1, 1, 1]])
    assert pool(hidden, right, "mean").squeeze(-1).tolist() == [2.0, 4.0]
    assert pool(hidden, right, "cls").squeeze(-1).tolist() == [1.0, 2.0]
    assert pool(hidden, right, "last").squeeze(-1).tolist() == [3.0, 6.0]
    assert pool(hidden, left, "last").squeeze(-1).tolist() == [5.0, 6.0]
    assert pool(hidden, left, "cls").squeeze(-1).tolist() == [3.0, 2.0]
    assert pool(hidden, left, "mean").squeeze(-1).tolist() == [4.0, 4.0]
    with pytest.raises(ValueError, match="unknown pooling"):
        pool(hidden, right, "max")


def test_minilm_matches_sentence_transformers(minilm_dir):
    ours = TextEncoder.load(minilm_dir).encode(TEXTS)
    theirs = SentenceTransformer(str(minilm_dir), device="cpu").encode(TEXTS)
    np.testing.assert_allclose(ours, theirs, atol=1e-5)


@pytest.mark.parametrize(("pooling", "projection"), [("cls", 8), ("last", None), ("mean", 16)])
def test_saved_directory_round_trip(tiny_encoder_dir, tmp_path, pooling, projection):
    encoder = TextEncoder.load(tiny_encoder_dir, pooling=pooling, projection_dim=projection)
    encoder.similarity = "euclidean"
    expected = encoder.encode(TEXTS)
    encoder.save(tmp_path / "saved")
    reloaded = TextEncoder.load(tmp_path / "saved")
    assert (reloaded.pooling, reloaded.dim, reloaded.similarity) == (pooling, projection or 32, "euclidean")
    np.testing.assert_allclose(reloaded.encode(TEXTS), expected, atol=1e-5)
    st = SentenceTransformer(str(tmp_path / "saved"), device="cpu")
    np.testing.assert_allclose(st.encode(TEXTS), expected, atol=1e-5)


def test_freeze(tiny_encoder_dir):
    encoder = TextEncoder.load(tiny_encoder_dir)
    assert encoder.freeze(embeddings=True, layers=1) == 1
    frozen = {n for n, p in encoder.named_parameters() if not p.requires_grad}
    assert any("embeddings" in n for n in frozen) and any("layer.0." in n for n in frozen)
    assert not any("layer.1." in n for n in frozen)
    with pytest.raises(ValueError, match="only 2 layers"):
        encoder.freeze(layers=5)
    whole = TextEncoder.load(tiny_encoder_dir)
    with pytest.raises(ValueError, match="leaves nothing to train"):
        whole.freeze(embeddings=True, layers=2)
    assert all(p.requires_grad for p in whole.parameters())  # refused before anything was frozen
    headed = TextEncoder.load(tiny_encoder_dir, projection_dim=8)
    assert headed.freeze(embeddings=True, layers=2) == 2  # the projection head still trains
    halved = TextEncoder.load(tiny_encoder_dir)
    assert halved.freeze(layers="half") == 1  # the lower half of any depth: 1 of this model's 2 blocks
    assert {n for n, p in halved.named_parameters() if not p.requires_grad} == {n for n in frozen if "layer.0." in n}


def test_tiny_encoder_tokenizer_is_the_same_on_every_build(tmp_path, sample_records):
    """Test models must not depend on the process: the same texts give the same token ids."""
    from transformers import AutoTokenizer

    from semcse.testing import build_tiny_encoder

    texts = [record["abstract"] for record in sample_records]
    first = build_tiny_encoder(tmp_path / "a", texts, vocab_size=300)
    second = build_tiny_encoder(tmp_path / "b", texts, vocab_size=300)
    assert (first / "tokenizer.json").read_bytes() == (second / "tokenizer.json").read_bytes()

    tokenizer = AutoTokenizer.from_pretrained(first)
    assert len(tokenizer) == 300
    # a frequent word stays whole, an unseen one falls back to characters
    assert tokenizer.tokenize("the Zyxq") == ["the", "z", "##y", "##x", "##q"]
