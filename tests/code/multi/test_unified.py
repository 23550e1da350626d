"""The unified model's contract (no Ray): one backbone pass for all aspects, save/load, shared interface."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from semcse.core.config import RunConfig
from semcse.models.aspects import encode_aspects
from semcse.models.encoder import TextEncoder
from semcse.models.losses import MaskedL2Loss
from semcse.models.unified import UnifiedEncoder, UnknownAspect, load_encoder
from semcse.stages.training.aspect_encoders import keep_well_covered, merge_kinds, resolve_aspects
from semcse.stages.training.distill import aspect_targets, summaries_by_aspect

TEXTS = ["We examined songbirds with a field survey.", "Soil beetles in a computer simulation.", "Short."]


@pytest.fixture
def unified(multi_data: dict[str, Path]) -> UnifiedEncoder:
    return UnifiedEncoder.create(multi_data["encoder"], ["species", "method"], dim=8)


def test_encode_returns_each_requested_aspect_from_one_backbone_pass(unified: UnifiedEncoder) -> None:
    calls = []
    unified.trunk.backbone.register_forward_hook(lambda *_: calls.append(1))
    out = unified.encode(TEXTS, aspects=["method"], batch_size=8)
    assert list(out) == ["method"] and out["method"].shape == (3, 8) and out["method"].dtype == np.float32
    both = unified.encode(TEXTS, batch_size=8)
    assert list(both) == ["species", "method"]
    assert len(calls) == 2  # one batch each call, whatever the number of aspects
    assert not np.allclose(both["species"], both["method"])
    np.testing.assert_allclose(both["method"], out["method"], atol=1e-6)
    with pytest.raises(UnknownAspect, match="unknown aspect.*'habitat'.*species"):
        unified.encode(TEXTS, aspects=["habitat"])


def test_forward_matches_encode_and_save_load_round_trips(unified: UnifiedEncoder, tmp_path: Path) -> None:
    batch = unified.tokenizer(TEXTS[:1], return_tensors="pt")
    unified.eval()
    with torch.no_grad():
        stacked = unified(**batch)
    assert stacked.shape == (1, 2, 8)
    np.testing.assert_allclose(stacked[0, 1].numpy(), unified.encode(TEXTS[:1])["method"][0], atol=1e-5)
    unified.save(tmp_path / "m")
    loaded = load_encoder(tmp_path / "m")
    assert isinstance(loaded, UnifiedEncoder) and loaded.aspects == ["species", "method"] and loaded.dim == 8
    for aspect, vectors in unified.encode(TEXTS).items():
        np.testing.assert_allclose(loaded.encode(TEXTS)[aspect], vectors, atol=1e-5)


def test_single_and_multi_aspect_models_share_the_evaluation_interface(
    unified: UnifiedEncoder, multi_data: dict[str, Path]
) -> None:
    single = TextEncoder.load(multi_data["encoder"])
    assert isinstance(load_encoder(multi_data["encoder"]), TextEncoder)
    assert list(encode_aspects(single, TEXTS)) == [""]
    multi = encode_aspects(unified, TEXTS)
    assert list(multi) == ["species", "method"] and multi["species"].shape == (3, 8)


def test_masked_l2_ignores_non_applicable_aspects() -> None:
    predictions = torch.zeros(2, 2, 3, requires_grad=True)
    targets = torch.tensor([[[1.0, 0, 0], [100, 100, 100]], [[0, 2.0, 0], [0, 0, 0]]])
    mask = torch.tensor([[1.0, 0], [1, 0]])
    loss = MaskedL2Loss()(predictions, targets, mask)
    assert loss.item() == pytest.approx((1 + 4) / 2)
    loss.backward()
    assert predictions.grad[:, 1].abs().sum() == 0


def test_targets_are_the_mean_of_the_aspect_encoder_embeddings(multi_data: dict[str, Path]) -> None:
    texts = pd.read_parquet(multi_data["texts"])
    encoder = TextEncoder.load(multi_data["encoder"], projection_dim=4)
    summaries = summaries_by_aspect(texts, ["species", "method"])
    ids = ["p000", "p004", "p005"]  # p004: method not applicable; p005: species not applicable
    targets, mask = aspect_targets(ids, summaries, {"species": encoder, "method": encoder})
    np.testing.assert_array_equal(mask, [[1, 1], [1, 0], [0, 1]])
    expected = encoder.encode(list(summaries["species"]["p000"])).mean(0)
    np.testing.assert_allclose(targets[0, 0], expected, atol=1e-5)
    assert not targets[1, 1].any()


def test_merge_map_folds_aspects_and_thin_aspects_are_dropped() -> None:
    texts = pd.DataFrame(
        {
            "id": ["a", "a", "b", "b", "b"],
            "kind": [
                "aspect:hypothesis_general",
                "aspect:hypothesis_specific",
                "aspect:hypothesis_general",
                "summary",
                "aspect:species",
            ],
            "text": ["g", "s", "g", "sum", "sp"],
            "applicable": [True, True, True, True, True],
        }
    )
    merged = merge_kinds(texts, RunConfig().multi.merge)
    assert merged["kind"].tolist()[:3] == ["aspect:hypothesis"] * 3
    kept = keep_well_covered(merged, 2)
    assert kept["text"].tolist() == ["g", "s", "sum"]  # b has one hypothesis and one species text; summaries stay
    assert resolve_aspects(RunConfig(), merged) == ["hypothesis", "species"]
    pack = RunConfig.model_validate({"multi": {"aspect_pack": "invasion_biology"}})
    aspects = resolve_aspects(pack, merged)
    assert aspects[0] == "hypothesis" and "hypothesis_general" not in aspects and len(aspects) == len(set(aspects))
