"""On Ray Train, a worker killed mid-run resumes from the last checkpoint; the delivered model loads in
sentence-transformers. One of the suite's few Ray Train runs (two workers, ZeRO-2, gloo)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from semcse.models.encoder import TextEncoder
from semcse.stages.training import checkpoints
from semcse.stages.training.precision import native_bf16
from semcse.stages.training.trainer import train
from tests.fixtures.training import FailOnce


@pytest.mark.slow
def test_killed_worker_resumes_and_model_loads(ray_cluster, make_config, tmp_path: Path) -> None:
    marker = tmp_path / "failed-once"
    cfg = make_config(
        **{
            "training.launcher": "ray",
            "training.num_workers": 2,
            "training.pairs": "crops",
            "training.loss": "infonce",
            "training.max_steps": 12,
            "training.eval_every": 4,
            "training.max_failures": 1,
            "training.projection": True,
            "training.projection_dim": 16,
        }
    )
    result = train(cfg, callbacks=[FailOnce(10, str(marker))])

    assert marker.exists(), "the injected failure never happened"
    assert result.metrics["step"] == 12
    # the restarted workers began at a checkpoint (step 4 or 8, whichever the controller had recorded), not at 0
    assert result.metrics["start_step"] in (4, 8)
    # every checkpoint, before the failure and after the resume, records the one precision the run used
    states = [json.loads(path.read_text()) for path in Path(cfg.run_dir).rglob(checkpoints.STATE_FILE)]
    assert states and {state["cpu_bf16"] for state in states} == {native_bf16()}

    from sentence_transformers import SentenceTransformer

    texts = ["Invasive plants change soil microbes.", "Heart failure patients received a new drug.", "x"]
    ours = TextEncoder.load(result.model_dir).encode(texts)
    theirs = SentenceTransformer(str(result.model_dir), device="cpu").encode(texts, convert_to_numpy=True)
    assert ours.shape == (3, 16)
    np.testing.assert_allclose(theirs, ours, atol=1e-5)
    # the export keeps the model's own length (a plain HF base: 256), not the training length (64)
    assert SentenceTransformer(str(result.model_dir), device="cpu").max_seq_length == 256
