"""Training makes the decoder read its embedding: matching perplexity well below shuffled and unconditioned."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semcse.core.data.generated import summaries_by_id
from semcse.stages.evaluation.decoder_eval import (
    bertscore_f1,
    derangement,
    format_table,
    reconstruct,
    run_decoder_suite,
)
from semcse.stages.training.decoder import build_examples

pytestmark = pytest.mark.usefixtures("single_threaded_torch")


def test_validation_loss_improves_and_the_best_step_is_registered(
    trained_decoder, decoder_examples, pretrained_lm_dir
):
    """The decoder trains through the encoders' loop: candidate zero is the untrained decoder, the best step is
    delivered, logged at every evaluation and registered, and loads back from the registry as it was saved."""
    from semcse.core.tracking import Tracker
    from semcse.models.decoder import EmbeddingDecoder

    local, result, tracking = trained_decoder
    assert result.metrics["best_val_score"] < 0.7 * result.metrics["base_val_score"]
    assert result.version == "1"
    registered = EmbeddingDecoder.load("models:/semcse-decoder@candidate", tracking=tracking)
    embeddings, texts = decoder_examples.pairs()
    assert (registered.perplexity(embeddings, texts) == local.perplexity(embeddings, texts)).all()
    untrained = EmbeddingDecoder.create(pretrained_lm_dir, 16, hidden_dim=64)
    assert local.perplexity(embeddings, texts).mean() < untrained.perplexity(embeddings, texts).mean()
    history = Tracker(tracking, result.run_id).client.get_metric_history(result.run_id, "val_loss")
    assert sorted(m.step for m in history)[:2] == [0, 50]


def test_matching_embeddings_decode_their_own_summaries(trained_decoder, decoder_examples):
    decoder, *_ = trained_decoder
    result = run_decoder_suite(decoder, decoder_examples)
    ppl = result["perplexity"]
    assert ppl["matching"] < 0.85 * ppl["shuffled"]
    assert ppl["matching"] < 0.85 * ppl["unconditioned"]
    assert ppl["reconstructed"] is None and result["bertscore"]["matching"] is None
    assert "| perplexity |" in format_table(result)


def test_greedy_decoding_recovers_training_summaries(trained_decoder, decoder_examples):
    decoder, *_ = trained_decoder
    generated = decoder.decode(decoder_examples.embeddings, temperature=0, max_new_tokens=24)
    hits = sum(text in options for text, options in zip(generated, decoder_examples.summaries))
    assert hits >= 3, generated


def test_bertscore_row_scores_generated_text_with_an_independent_model(
    trained_decoder, decoder_examples, tiny_encoder_dir
):
    """BERTScore (the real package, a local BERT unrelated to the decoder) prefers matching over shuffled."""
    decoder, *_ = trained_decoder
    score = bertscore_f1(str(tiny_encoder_dir), layers=1)
    same = score(["rats harm seabirds on islands"], [["a first reference", "rats harm seabirds on islands"]])
    assert same[0] == pytest.approx(1.0, abs=1e-5)  # the best of its references is itself
    result = run_decoder_suite(decoder, decoder_examples, bertscore=score, max_new_tokens=24)
    assert result["bertscore"]["matching"] > result["bertscore"]["shuffled"]
    assert result["bertscore"]["unconditioned"] is None and "| bertscore |" in format_table(result)


def test_reconstructed_column_lays_the_map_out_again_without_each_abstract(
    trained_decoder, decoder_examples, monkeypatch
):
    """One fresh layout per abstract, of the others only; its embedding is recovered from where it is placed."""
    from semcse.stages.evaluation import decoder_eval

    decoder, *_ = trained_decoder
    laid_out: list[list[str]] = []

    def layout(ids, embeddings, **settings):
        laid_out.append(list(ids))
        return real_layout(ids, embeddings, **settings)

    real_layout = decoder_eval.layout
    monkeypatch.setattr(decoder_eval, "layout", layout)  # the real layout, watched
    vectors = reconstruct(decoder_examples, perplexity=2.0, iterations=50, place_steps=20, explain_steps=20, seed=0)
    ids = decoder_examples.ids
    assert laid_out == [[j for j in ids if j != i] for i in ids], "each map holds every abstract but its own"
    assert vectors.shape == decoder_examples.embeddings.shape and np.isfinite(vectors).all()
    assert not np.allclose(vectors, decoder_examples.embeddings), "recovered from the map, not copied"
    again = reconstruct(decoder_examples, perplexity=2.0, iterations=50, place_steps=20, explain_steps=20, seed=0)
    np.testing.assert_allclose(again, vectors, rtol=1e-5, atol=1e-6)
    result = run_decoder_suite(decoder, decoder_examples, reconstructed=vectors)
    perplexity = result["perplexity"]
    assert perplexity["reconstructed"] > perplexity["matching"], "a position is a lossy summary of an embedding"


def test_derangement_has_no_fixed_point():
    rng = np.random.default_rng(0)
    for n in (2, 3, 10):
        assert (derangement(n, rng) != np.arange(n)).all()


def test_examples_average_applicable_summaries_per_abstract():
    texts = pd.DataFrame(
        {
            "id": ["a", "a", "a", "b", "b"],
            "kind": ["aspect:species", "aspect:species", "summary", "aspect:species", "aspect:species"],
            "text": ["one", "three", "ignored", "Not applicable.", "five"],
            "applicable": [True, True, True, False, True],
        }
    )
    groups = summaries_by_id(texts, "aspect:species")
    assert groups == {"a": ["one", "three"], "b": ["five"]}
    examples = build_examples(groups, lambda batch: np.array([[len(t), 1.0] for t in batch]))
    np.testing.assert_allclose(examples.embeddings, [[4.0, 1.0], [4.0, 1.0]])
    with pytest.raises(ValueError, match="no applicable summaries"):
        build_examples({}, lambda batch: np.zeros((0, 2)))
