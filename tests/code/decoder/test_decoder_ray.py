"""The Ray Train path end to end: TorchTrainer, checkpoint of the best step, MLflow registry, reload."""

from __future__ import annotations

import pytest

from semcse.config import DecoderConfig
from semcse.models.decoder import EmbeddingDecoder
from semcse.tracking import Tracker
from semcse.training.decoder import train_decoder

pytestmark = pytest.mark.usefixtures("single_threaded_torch")


@pytest.mark.slow
def test_train_decoder_on_ray_registers_a_loadable_decoder(
    ray_cluster, tracking, tmp_path, pretrained_lm_dir, decoder_examples
):
    settings = DecoderConfig(
        hidden_dim=64, batch_size=4, learning_rate=1e-2, max_steps=60, eval_every=20, num_workers=2, patience=5
    )
    train, val = decoder_examples, decoder_examples.subset([0, 1, 2, 3])
    with Tracker.start(tracking, run_name="train-decoder") as tracker:
        result = train_decoder(settings, str(pretrained_lm_dir), train, val, tmp_path / "decoder", tracker)
    assert result.version == "1"
    assert result.metrics["best_val_loss"] <= result.metrics["val_loss"]
    registered = EmbeddingDecoder.load("models:/semcse-decoder@candidate", tracking=tracking)
    local = EmbeddingDecoder.load(result.path)
    embeddings, texts = val.pairs()
    assert (registered.perplexity(embeddings, texts) == local.perplexity(embeddings, texts)).all()
    untrained = EmbeddingDecoder.create(pretrained_lm_dir, 16, hidden_dim=64)
    assert local.perplexity(embeddings, texts).mean() < untrained.perplexity(embeddings, texts).mean()
    history = tracker.client.get_metric_history(tracker.run_id, "val_loss")
    assert [m.step for m in history] == [20, 40, 60][: len(history)] and history
