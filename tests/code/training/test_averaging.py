"""Averaging with the base: evaluations and exports see (1 − w)·trained + w·base, training never does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from semcse.core.config import TrainingConfig
from semcse.models.encoder import TextEncoder
from semcse.stages.training import checkpoints
from semcse.stages.training.averaging import BaseAverage
from semcse.stages.training.checkpoints import DEEPSPEED_DIR, TAG
from semcse.stages.training.engine import build_encoder
from semcse.stages.training.trainer import train
from tests.fixtures.training import PLAIN_CROPS


def small_model() -> torch.nn.Module:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))
    model[1].bias.requires_grad_(False)  # frozen: never averaged, never kept
    return model


def test_the_candidate_is_the_average_and_the_trained_weights_come_back_bit_for_bit() -> None:
    model = small_model()
    base = {name: p.detach().clone() for name, p in model.named_parameters()}
    average = BaseAverage(model, 0.25)
    assert set(average.values) == {"0.weight", "0.bias", "1.weight"}
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p))
    trained = {name: p.detach().clone() for name, p in model.named_parameters()}

    with pytest.raises(RuntimeError, match="inside"), average.candidate(model):
        for name, p in model.named_parameters():
            expected = trained[name] if name == "1.bias" else 0.75 * trained[name] + 0.25 * base[name]
            torch.testing.assert_close(p.detach(), expected)
        raise RuntimeError("inside")  # an evaluation that fails still leaves the trained weights behind
    for name, p in model.named_parameters():
        assert torch.equal(p.detach(), trained[name]), name
    torch.testing.assert_close(
        average.mixed("0.bias", trained["0.bias"]), 0.75 * trained["0.bias"] + 0.25 * base["0.bias"]
    )
    assert torch.equal(average.mixed("1.bias", trained["1.bias"]), trained["1.bias"])


def test_weight_zero_keeps_nothing_and_changes_nothing() -> None:
    model = small_model()
    average = BaseAverage(model, 0.0)
    assert average.values == {}
    before = [p.detach().clone() for p in model.parameters()]
    with average.candidate(model):
        assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before, strict=True))


def test_averaging_is_refused_under_zero_3() -> None:
    with pytest.raises(ValueError, match="average_with_base with ZeRO-3"):
        TrainingConfig(pairs="crops", zero_stage=3, average_with_base=0.5)
    assert TrainingConfig(pairs="crops", zero_stage=2, average_with_base=0.5).average_with_base == 0.5
    assert TrainingConfig(pairs="auto", average_with_base=0.5).average_with_base == 0.5  # auto leaves a run's own


def checkpoint_weights(run_dir: Path) -> dict[int, tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]]:
    """Each kept checkpoint's (DeepSpeed training weights, exported model weights), by step."""
    found = {}
    for step, model_dir in checkpoints.persisted_models(Path(run_dir)).items():
        states = model_dir.parent / DEEPSPEED_DIR / TAG / "mp_rank_00_model_states.pt"
        trained = torch.load(states, map_location="cpu", weights_only=False)["module"]
        exported = dict(TextEncoder.load(model_dir).named_parameters())
        found[step] = ({k: v.float() for k, v in trained.items()}, {k: v.detach() for k, v in exported.items()})
    return found


def test_a_run_delivers_averaged_candidates_and_trains_as_without_them(plain_crops_run, make_config) -> None:
    plain, plain_result = plain_crops_run
    averaged = make_config(**PLAIN_CROPS | {"training.average_with_base": 0.5})
    averaged_result = train(averaged)
    base = dict(build_encoder(averaged.training).named_parameters())

    plain_checkpoints, averaged_checkpoints = checkpoint_weights(plain.run_dir), checkpoint_weights(averaged.run_dir)
    last = max(averaged_checkpoints)
    assert last == 8 and max(plain_checkpoints) == 8
    trained, exported = averaged_checkpoints[last]
    # training never saw the candidates: the averaged run's weights are the plain run's
    for name, value in plain_checkpoints[last][0].items():
        torch.testing.assert_close(trained[name], value, rtol=1e-5, atol=1e-6)
    # the export is the candidate: trained and base, half and half
    moved = 0
    for name, value in exported.items():
        expected = 0.5 * trained[name] + 0.5 * base[name].detach()
        torch.testing.assert_close(value, expected, rtol=1e-5, atol=1e-6)
        moved += not torch.allclose(value, trained[name])
    assert moved > 0, "the exported weights are the trained ones"
    # and validation scored the candidate, not the trained weights
    assert averaged_result.metrics["val_score"] != pytest.approx(plain_result.metrics["val_score"], abs=1e-9)
    delivered = TextEncoder.load(averaged_result.model_dir).encode(["Invasive plants change soil microbes."])
    assert np.isfinite(delivered).all()
