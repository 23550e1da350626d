"""`val_base_drift`: how far a step has moved from the base model's similarities among the validation abstracts,
measured at every evaluation against the base model's own embeddings, which the loop state keeps for a resumed run."""

from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
import pytest
import torch

from semcse.core.data.schema import paper_text
from semcse.stages.training.checkpoints import LoopState
from semcse.stages.training.validation import DRIFT_TEMPERATURE, base_drift, build_validation_set, validate
from tests.fixtures.training import slow_similarity_kl, validation_pair_rows


def unit_rows(count: int, dim: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(count, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_drift_is_zero_at_the_base_and_follows_its_definition() -> None:
    base = unit_rows(12, 8, seed=0)
    assert base_drift(base, base) == pytest.approx(0.0, abs=1e-7)
    moved = base + 0.3 * unit_rows(12, 8, seed=1)
    step, reference = torch.from_numpy(moved), torch.from_numpy(base)  # each abstract its own anchor and positive
    by_hand = slow_similarity_kl(step, step, reference, reference, DRIFT_TEMPERATURE)
    assert base_drift(moved, base) == pytest.approx(float(by_hand))
    further = base + 0.9 * unit_rows(12, 8, seed=1)
    assert 0 < base_drift(moved, base) < base_drift(further, base)
    assert base_drift(3.0 * base, base) == pytest.approx(0.0, abs=1e-6)  # cosine: the scale of a vector is not a move
    with pytest.raises(ValueError, match="11 validation abstracts against the base model's 12"):
        base_drift(base[:11], base)


def test_the_loop_state_keeps_the_base_models_embeddings_across_a_resume() -> None:
    base, step = unit_rows(10, 6, seed=2), unit_rows(10, 6, seed=3)
    state = LoopState()
    assert state.drift(base) == {"val_base_drift": pytest.approx(0.0, abs=1e-7)}  # step 0: the base model itself
    resumed = LoopState(**json.loads(json.dumps(asdict(state))))  # what `checkpoints.save` and `restore` do
    resumed.step = 40
    assert resumed.drift(step) == {"val_base_drift": pytest.approx(base_drift(step, base), rel=1e-6)}
    assert resumed.drift(None) == {}  # validation without abstracts to compare (e.g. the unified model's)
    older = LoopState(step=40)  # a checkpoint written before the state kept them: nothing to compare with
    assert older.drift(step) == {}
    assert resumed.drift(step[:9]) == {}  # another validation set on resume: no figure, and the run goes on


def test_validation_returns_the_abstracts_embeddings_it_compares() -> None:
    rows = validation_pair_rows()
    val = build_validation_set("crops", rows, 12, "cosine")
    assert sorted(val.drift_texts) == sorted(rows["abstract"])
    generated = build_validation_set("summaries", rows, 12, "cosine")  # what its document check's targets are
    assert sorted(generated.drift_texts) == sorted(paper_text(rows)) == sorted(generated.document_targets)

    class Encoder:
        def encode(self, texts: list[str], batch_size: int = 64, max_length: int | None = None) -> np.ndarray:
            return np.stack([unit_rows(1, 4, seed=int(text.split()[-1].rstrip(".")))[0] for text in texts])

    validated = validate(Encoder(), val)  # type: ignore[arg-type]
    assert validated.drift_vectors is not None
    np.testing.assert_allclose(validated.drift_vectors, Encoder().encode(list(val.drift_texts)))
