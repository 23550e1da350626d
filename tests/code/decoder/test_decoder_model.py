"""The decoder's input layout, save/load contract and input checks (untrained, tiny LM)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from semcse.models.decoder import SPEC_FILE, WEIGHTS_FILE, EmbeddingDecoder

pytestmark = pytest.mark.usefixtures("single_threaded_torch")


@pytest.fixture(scope="module")
def plain(tiny_causal_lm_dir):
    torch.manual_seed(0)  # the mapping's random init: the same untrained decoder whichever tests ran before
    return EmbeddingDecoder.create(tiny_causal_lm_dir, 8, hidden_dim=16)


def test_plain_prefix_is_bos_task_mapped_delimiter(plain):
    prefix = plain.prefix(torch.zeros(3, 8), 3)
    assert prefix.shape == (3, 1 + 5 + 5 + 1, plain.d_model)
    bos = plain.lm.get_input_embeddings().weight[plain.tokenizer.bos_token_id]
    assert torch.equal(prefix[0, 0], bos)
    assert torch.equal(prefix[1, -1], plain.delimiter[0])
    assert plain.prefix(None, 2).shape == (2, 1 + 5 + 1, plain.d_model)


def test_chat_decoder_puts_learned_tokens_inside_the_user_turn(tiny_causal_lm_dir):
    chat = EmbeddingDecoder.create(tiny_causal_lm_dir, 8, hidden_dim=16, chat=True)
    tokenizer = chat.tokenizer
    assert tokenizer.convert_ids_to_tokens(chat.head_ids.tolist()) == ["<|user|>"]
    assert tokenizer.convert_ids_to_tokens(chat.tail_ids.tolist()) == ["</s>", "<|assistant|>"]
    assert chat.delimiter is None
    assert chat.prefix(torch.zeros(1, 8), 1).shape[1] == 1 + 5 + 5 + 2


def test_only_mapping_and_learned_tokens_train(plain):
    trainable = {name for name, p in plain.named_parameters() if p.requires_grad}
    assert trainable == {
        "task_tokens",
        "delimiter",
        "mapping.0.weight",
        "mapping.0.bias",
        "mapping.2.weight",
        "mapping.2.bias",
    }


def test_loss_covers_answer_tokens_only(plain):
    batch = plain.tokenize(["knotweed soil", "a much longer summary about invasive species"])
    nll, count = plain(torch.zeros(2, 8), **batch)
    assert count.tolist() == batch["attention_mask"].sum(1).tolist()
    assert batch["input_ids"][0, count[0] - 1] == plain.eos_id


def test_save_references_the_base_lm_and_round_trips(plain, tmp_path, tiny_causal_lm_dir):
    plain.save(tmp_path / "dec")
    assert sorted(p.name for p in (tmp_path / "dec").iterdir()) == sorted([SPEC_FILE, WEIGHTS_FILE])
    assert json.loads((tmp_path / "dec" / SPEC_FILE).read_text())["base_model"] == str(tiny_causal_lm_dir.resolve())
    loaded = EmbeddingDecoder.load(tmp_path / "dec")
    vectors = np.random.default_rng(1).normal(size=(2, 8))
    texts = ["knotweed soil", "heart failure"]
    np.testing.assert_allclose(loaded.perplexity(vectors, texts), plain.perplexity(vectors, texts), rtol=1e-5)


def test_decode_returns_one_text_per_embedding(plain):
    """Row i of a batch is the text of embedding i: the same text it decodes to alone."""
    embeddings = np.random.default_rng(2).normal(size=(3, 8)) * np.array([[1.0], [30.0], [-30.0]])
    texts = plain.decode(embeddings, max_new_tokens=6, temperature=0)
    assert len(texts) == 3 and all(texts)
    assert texts == [plain.decode(row[None], max_new_tokens=6, temperature=0)[0] for row in embeddings]
    # an untrained decoder may greedily write the same tokens for every row; what must differ is what it conditions
    # on: the same text is more or less likely under each embedding
    assert len(set(np.round(plain.perplexity(embeddings, [texts[0]] * 3), 6))) == 3, "each row sees its embedding"


@pytest.mark.parametrize("bad", [np.zeros((2, 7)), np.zeros((2, 3, 8))])
def test_wrong_embedding_dimension_is_a_clear_error(plain, bad):
    with pytest.raises(ValueError, match="dimension 8"):
        plain.perplexity(bad, ["a", "b"])


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_non_finite_embeddings_are_a_clear_error(plain, value):
    bad = np.zeros((1, 8))
    bad[0, 3] = value
    with pytest.raises(ValueError, match="NaN or infinite"):
        plain.decode(bad, max_new_tokens=2, temperature=0)


def test_missing_decoder_directory_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a saved decoder"):
        EmbeddingDecoder.load(tmp_path)


def test_every_decoded_row_gets_its_own_seed():
    """`map explain --samples N` decodes N copies of one embedding: one shared seed would give N equal texts."""
    from semcse.models.decoder import row_seeds

    assert row_seeds(7, 3) == [7, 8, 9]
    assert row_seeds(None, 2) == [None, None]
