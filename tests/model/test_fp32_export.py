"""A bf16 run exports the optimizer's fp32 master weights, not the rounded bf16 copy the forward pass uses.

DeepSpeed's CPU accelerator runs bf16 too, so the GPU export path is exercised here for real: one
ZeRO-2 bf16 step, a checkpoint through `checkpoints.save`, and the saved weights compared with the
fp32 masters (which bf16 cannot represent exactly) and with the bf16 training copy; averaged with the
base (`training.average_with_base`), the export is the masters' average with the base model's fp32
weights. At stage 0
DeepSpeed keeps the masters where they cannot be read, and the export refuses rather than deliver
the base model's values as trained ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch.multiprocessing as mp

from tests.fixtures.loopback import free_port, join_cpu_group

# title pairs train the upper half: layer 0 of the tiny encoder's two stays frozen, layer 1 trains
TRAINED, FROZEN = (
    "backbone.encoder.layer.1.attention.self.query.weight",
    "backbone.encoder.layer.0.attention.self.query.weight",
)


def bf16_step_and_save(port: int, model_dir: str, out: str, stage: int) -> None:
    join_cpu_group(0, 1, port)
    import functools

    import deepspeed
    from deepspeed.utils import safe_get_full_fp32_param

    from semcse.core.config import TrainingConfig
    from semcse.stages.training import checkpoints
    from semcse.stages.training.averaging import BaseAverage
    from semcse.stages.training.engine import build_encoder, deepspeed_config, parameter_groups

    cfg = TrainingConfig(
        pairs="title",
        base_model=model_dir,
        batch_size=4,
        num_workers=1,
        learning_rate=1e-3,
        warmup_steps=0,
        zero_stage=stage,
    )
    model = build_encoder(cfg)
    average = BaseAverage(model, 0.5)
    config = deepspeed_config(cfg) | {"bf16": {"enabled": True}}
    engine, *_ = deepspeed.initialize(
        model=model, model_parameters=parameter_groups(model, cfg.weight_decay), config=config
    )
    batch = model.tokenizer(
        ["alpha beta gamma", "delta", "epsilon zeta", "eta theta"], padding=True, return_tensors="pt"
    )
    engine.backward(engine(**batch).float().pow(2).mean())
    engine.step()
    parameter = dict(engine.module.named_parameters())[TRAINED]
    try:
        factory = functools.partial(build_encoder, cfg)
        checkpoints.save(engine, checkpoints.LoopState(), Path(out), 0, factory, BaseAverage(model, 0))
        checkpoints.save(engine, checkpoints.LoopState(), Path(out, "averaged"), 0, factory, average)
    except RuntimeError as error:
        Path(out, "refused.txt").write_text(str(error))
        return
    record = {
        "dtype": str(parameter.dtype),
        "master": safe_get_full_fp32_param(parameter).flatten().tolist(),
        "bf16": parameter.detach().float().flatten().tolist(),
        "base": average.values[TRAINED].flatten().tolist(),
    }
    Path(out, "expected.json").write_text(json.dumps(record))


@pytest.mark.parametrize("stage", [2, 0])
def test_bf16_training_exports_fp32_master_weights(tiny_encoder_dir: Path, tmp_path: Path, stage: int) -> None:
    import numpy as np

    from semcse.models.encoder import TextEncoder
    from semcse.stages.training.checkpoints import MODEL_DIR

    process = mp.get_context("spawn").Process(
        target=bf16_step_and_save, args=(free_port(), str(tiny_encoder_dir), str(tmp_path), stage)
    )
    process.start()
    process.join(timeout=300)
    if stage == 0:
        assert "no fp32 master weights" in (tmp_path / "refused.txt").read_text()
        assert not (tmp_path / MODEL_DIR).exists()
        return
    if process.exitcode != 0 and not (tmp_path / "expected.json").exists():
        pytest.fail(f"the bf16 step failed (exit code {process.exitcode})")
    expected = json.loads((tmp_path / "expected.json").read_text())
    assert expected["dtype"] == "torch.bfloat16"

    saved = dict(TextEncoder.load(tmp_path / MODEL_DIR).named_parameters())
    weights = saved[TRAINED]
    assert weights.dtype.is_floating_point and str(weights.dtype) == "torch.float32"
    exported = weights.detach().flatten().numpy()
    np.testing.assert_array_equal(exported, np.float32(expected["master"]))
    assert not np.array_equal(exported, np.float32(expected["bf16"])), "the export is the rounded bf16 copy"
    # a frozen parameter has no master copy: the export keeps the base model's exact fp32 values
    base = dict(TextEncoder.load(tiny_encoder_dir).named_parameters())[FROZEN]
    np.testing.assert_array_equal(saved[FROZEN].detach().numpy(), base.detach().numpy())

    averaged = TextEncoder.load(tmp_path / "averaged" / MODEL_DIR)
    weights = dict(averaged.named_parameters())[TRAINED]
    halfway = 0.5 * np.float32(expected["master"]) + 0.5 * np.float32(expected["base"])
    np.testing.assert_allclose(weights.detach().flatten().numpy(), halfway, rtol=1e-6, atol=1e-7)
