"""What a run starts from: the model as its recipe needs it, optimiser groups, validation sample, scratch models."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from semcse.core.config import TrainingConfig
from semcse.models.encoder import TextEncoder
from semcse.stages.training import attention
from semcse.stages.training.engine import build_encoder, deepspeed_config, parameter_groups
from semcse.stages.training.trainer import prepare
from semcse.stages.training.validation import Validated, build_validation_set, significantly_better, validate
from tests.fixtures.training import validation_pair_rows


def test_biases_and_norm_weights_are_not_decayed(tiny_encoder_dir: Path) -> None:
    model = build_encoder(TrainingConfig(base_model=str(tiny_encoder_dir), pairs="crops"))
    decayed, kept = parameter_groups(model, 0.01)
    names = {id(p): n for n, p in model.named_parameters()}
    assert decayed["weight_decay"] == 0.01 and kept["weight_decay"] == 0.0
    kept_names = {names[id(p)] for p in kept["params"]}
    decayed_names = {names[id(p)] for p in decayed["params"]}
    assert any("LayerNorm.weight" in n for n in kept_names) and all(n.endswith(("bias", "weight")) for n in kept_names)
    assert not any(n.endswith("bias") or "LayerNorm" in n for n in decayed_names)
    assert "backbone.embeddings.word_embeddings.weight" in decayed_names
    assert len(kept_names) + len(decayed_names) == sum(1 for _ in model.parameters())


def test_frozen_parameters_are_left_out_and_the_run_says_what_is_frozen(tiny_encoder_dir: Path) -> None:
    notes: list[str] = []
    model = build_encoder(TrainingConfig(base_model=str(tiny_encoder_dir), freeze_embeddings=True), notes)
    grouped = {id(p) for group in parameter_groups(model, 0.01) for p in group["params"]}
    assert not any(id(p) in grouped for p in model.backbone.embeddings.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad) / 1e6
    assert notes == [
        f"frozen: the input embeddings (training.freeze_embeddings, training.freeze_layers); {trainable:.1f} M of "
        f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters train, and the backward pass stops at "
        "layer 1"
    ]
    layers_only: list[str] = []
    build_encoder(TrainingConfig(base_model=str(tiny_encoder_dir), freeze_layers=1), layers_only)
    assert layers_only[0].startswith("frozen: transformer layer 1 ")
    assert layers_only[0].endswith(
        "the backward pass still runs through the frozen layers to the trainable embeddings"
    )
    half: list[str] = []
    build_encoder(TrainingConfig(base_model=str(tiny_encoder_dir), freeze_embeddings=True, freeze_layers="half"), half)
    assert half[0].startswith("frozen: the input embeddings and transformer layer 1 ")
    assert half[0].endswith("the backward pass stops at layer 2")
    unfrozen: list[str] = []
    build_encoder(TrainingConfig(base_model=str(tiny_encoder_dir)), unfrozen)
    assert unfrozen == []


def kernel(model: TextEncoder) -> str:
    return model.backbone.config._attn_implementation


def test_cpu_training_steps_with_eager_attention_and_encodes_with_sdpa(tiny_encoder_dir: Path, tmp_path: Path) -> None:
    """Eager attention for a CPU run's training steps (its attention dropout keeps SDPA off the fused kernels), SDPA
    again while validation encodes, and neither recorded in the model a run saves."""
    cpu = TrainingConfig(base_model=str(tiny_encoder_dir), pairs="crops")
    model = build_encoder(cpu)
    texts = ["a paper on coral reefs", "a short one"]
    assert kernel(model) == "sdpa" and model.backbone.config.attention_probs_dropout_prob > 0
    attention.for_training(model, cpu)
    assert kernel(model) == "eager"
    with attention.encoding(model):
        assert kernel(model) == "sdpa"
        inside = model.encode(texts)
    assert kernel(model) == "eager"
    np.testing.assert_allclose(model.encode(texts), inside, atol=1e-5)  # the same maths, another kernel
    model.save(tmp_path / "saved")
    assert kernel(TextEncoder.load(str(tmp_path / "saved"))) == "sdpa"

    gpu_cfg = TrainingConfig(base_model=str(tiny_encoder_dir), pairs="crops", use_gpu=True)
    gpu = build_encoder(gpu_cfg)
    attention.for_training(gpu, gpu_cfg)
    assert kernel(gpu) == "sdpa"  # CUDA's fused kernels take dropout
    no_dropout = build_encoder(cpu)
    no_dropout.backbone.config.attention_probs_dropout_prob = 0.0
    attention.for_training(no_dropout, cpu)
    assert kernel(no_dropout) == "sdpa"  # then the fused kernel serves training too


def test_cpu_runs_step_with_torchs_fused_adamw_and_gpu_runs_with_deepspeeds(tiny_encoder_dir: Path) -> None:
    cpu = deepspeed_config(TrainingConfig(base_model=str(tiny_encoder_dir)))["optimizer"]["params"]
    assert cpu["torch_adam"] is True and cpu["fused"] is True
    gpu = deepspeed_config(TrainingConfig(base_model=str(tiny_encoder_dir), use_gpu=True))["optimizer"]["params"]
    assert "fused" not in gpu and not gpu.get("torch_adam")  # DeepSpeed's FusedAdam takes no `fused` argument


def test_the_base_models_length_pooling_and_geometry_are_kept(minilm_dir: Path) -> None:
    notes: list[str] = []
    infonce = build_encoder(TrainingConfig(base_model=str(minilm_dir), pairs="crops", max_length=64), notes)
    assert (infonce.max_length, infonce.pooling, infonce.normalize, infonce.similarity) == (
        256,
        "mean",
        True,
        "cosine",
    )
    assert notes == []
    triplet = build_encoder(TrainingConfig(base_model=str(minilm_dir), pairs="semcse"), notes)
    # Euclidean triplet + L2 penalty on unit vectors would be meaningless: the Normalize module is dropped, and said so
    assert (triplet.normalize, triplet.similarity) == (False, "euclidean")
    assert len(notes) == 1 and "unnormalised" in notes[0]
    explicit = build_encoder(
        TrainingConfig(base_model=str(minilm_dir), pairs="crops", pooling="cls", export_max_length=128)
    )
    assert (explicit.max_length, explicit.pooling) == (128, "cls")


def test_validation_is_a_seeded_sample_not_the_head_of_a_sorted_split() -> None:
    rows = pd.DataFrame(
        {
            "texts": [("a", "b")] * 100,
            "title": [f"t{i}" for i in range(100)],
            "abstract": [f"topic{i // 25} paper {i}" for i in range(100)],  # sorted: 4 topics of 25
        }
    )
    first = build_validation_set("summaries", rows, 20, "cosine", seed=0)
    again = build_validation_set("summaries", rows, 20, "cosine", seed=0)
    other = build_validation_set("summaries", rows, 20, "cosine", seed=1)
    topics = {target.split()[1] for target in first.document_targets}
    assert len(first) == 20 and first.document_targets == again.document_targets
    assert other.document_targets != first.document_targets
    assert len(topics) == 4, topics  # the first 20 rows would all be topic0


class TopicEncoder:
    """Embeds a text as the one-hot of its topic word, plus the other topic's axis when the text names `blur`."""

    def __init__(self, blur: str | None = None) -> None:
        self.blur = blur

    def encode(self, texts: list[str], batch_size: int = 64, max_length: int | None = None) -> np.ndarray:
        vectors = np.zeros((len(texts), 3), dtype=np.float32)
        for i, text in enumerate(texts):
            vectors[i, 0 if "alpha" in text else 1] = 1.0
            if self.blur and self.blur in text:
                vectors[i] = [1.0, 1.0, 0.0]
            vectors[i, 2] = 1e-3 * i  # distinct vectors, so ranks are defined
        return vectors


class CountingEncoder(TopicEncoder):
    """A `TopicEncoder` that keeps every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def encode(self, texts: list[str], batch_size: int = 64, max_length: int | None = None) -> np.ndarray:
        self.seen += texts
        return super().encode(texts, batch_size, max_length)


def test_label_agreement_is_measured_among_labelled_validation_abstracts() -> None:
    ids = [f"p{i}" for i in range(12)]
    rows = pd.DataFrame(
        {
            "id": ids,
            "texts": [(f"{t} one {i}", f"{t} two {i}") for i, t in enumerate(["alpha"] * 6 + ["beta"] * 6)],
            "title": [f"{t} title {i}" for i, t in enumerate(["alpha"] * 6 + ["beta"] * 6)],
            "abstract": [f"{t} abstract {i}" for i, t in enumerate(["alpha"] * 6 + ["beta"] * 6)],
        }
    )
    labels = pd.Series(["A"] * 6 + ["B"] * 6, index=ids)
    val = build_validation_set("summaries", rows, 12, "cosine", labels=labels.drop("p0"), label_k=3)
    assert len(val.papers) == len(val.labels) == 11 and set(val.labels) == {"A", "B"}  # p0 has no label
    clean = validate(TopicEncoder(), val)
    assert clean.metrics["val_label_agreement"] == 1.0 and clean.label_items is not None
    assert clean.label_items.shape == (11,)
    blurred = validate(TopicEncoder(blur="abstract 1"), val)  # one alpha paper moves between the topics
    assert blurred.metrics["val_label_agreement"] < 1.0
    assert blurred.metrics["val_rank_pair"] == clean.metrics["val_rank_pair"]  # the pair check does not see it
    counted = CountingEncoder()
    assert validate(counted, val).metrics == clean.metrics
    # the label check's papers are the document check's targets: embedded once, not twice
    assert sorted(counted.seen) == sorted(set(val.pair_queries + val.pair_targets + val.document_targets))
    single_label = build_validation_set("summaries", rows, 12, "cosine", labels=pd.Series(["A"] * 12, index=ids))
    assert single_label.papers == () and isinstance(validate(TopicEncoder(), single_label), Validated)
    assert "val_label_agreement" not in validate(TopicEncoder(), single_label).metrics


def test_an_aspect_encoder_is_validated_on_its_summaries_alone() -> None:
    """SemCSE-Multi A.3: first summary → second summaries, average rank; the abstract (never trained on) is not a
    check, nor are the corpus's labels. The same rows under `summaries` keep SemCSE's document and label checks."""
    rows = validation_pair_rows()
    labels = pd.Series(["A"] * 6 + ["B"] * 6, index=rows["id"])
    aspect = build_validation_set("aspect:method", rows, 12, "cosine", labels=labels, label_k=3)
    generated = build_validation_set("summaries", rows, 12, "cosine")
    assert aspect.document_queries == [] and len(generated.document_queries) == 12
    assert aspect.papers == () and build_validation_set("summaries", rows, 12, "cosine", labels=labels).papers
    only_pairs, both = validate(TopicEncoder(), aspect), validate(TopicEncoder(), generated)
    assert set(only_pairs.metrics) == {"val_rank_pair", "val_score"}
    assert only_pairs.metrics["val_score"] == only_pairs.metrics["val_rank_pair"] == both.metrics["val_rank_pair"]
    assert "val_rank_document" in both.metrics and only_pairs.items is not None and len(only_pairs.items) == 12


class SpreadEncoder:
    """Two topics; a text's vector is its topic's axis plus `spread` along its own number's axis, so each true match
    ranks first whatever the spread, and a wider spread sets it further apart from its topic's other texts."""

    def __init__(self, spread: float) -> None:
        self.spread = spread

    def encode(self, texts: list[str], batch_size: int = 64, max_length: int | None = None) -> np.ndarray:
        out = np.zeros((len(texts), 22))
        for row, text in enumerate(texts):
            out[row, 0 if text.startswith("alpha") else 1] = 1.0
            out[row, 2 + int(text.split()[-1])] = self.spread
        return out


def test_smooth_validation_ranks_move_where_hard_ranks_are_saturated() -> None:
    topics = ["alpha"] * 10 + ["beta"] * 10
    rows = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(20)],
            "texts": [(f"{t} q {i}", f"{t} t {i}") for i, t in enumerate(topics)],
            "title": [f"{t} title {i}" for i, t in enumerate(topics)],
            "abstract": [f"{t} abstract {i}" for i, t in enumerate(topics)],
        }
    )
    hard = build_validation_set("summaries", rows, 20, "cosine")
    smooth = build_validation_set("summaries", rows, 20, "cosine", softness=0.05)
    close, apart = SpreadEncoder(0.3), SpreadEncoder(1.0)
    for val in (hard, smooth):  # every true match is first: the logged (hard) ranks are saturated either way
        assert validate(close, val).metrics["val_rank_pair"] == validate(apart, val).metrics["val_rank_pair"] == 1.0
    assert validate(close, hard).metrics["val_score"] == validate(apart, hard).metrics["val_score"]
    base, trained = validate(close, smooth), validate(apart, smooth)
    assert trained.metrics["val_score"] < base.metrics["val_score"]
    assert trained.items is not None and base.items is not None
    assert significantly_better(trained.items, base.items) and not significantly_better(base.items, trained.items)


def test_training_abstracts_are_label_neighbours_not_label_queries() -> None:
    ids, topics = ["p0", "p1", "p2", "p3"], ["alpha", "alpha", "beta", "beta"]
    rows = pd.DataFrame(
        {
            "id": ids,
            "texts": [(f"{t} one {i}", f"{t} two {i}") for i, t in enumerate(topics)],
            "title": [f"{t} title {i}" for i, t in enumerate(topics)],
            "abstract": [f"{t} abstract {i}" for i, t in enumerate(topics)],
        }
    )
    reference = pd.DataFrame({"id": [f"r{i}" for i in range(6)], "title": ["x"] * 6, "abstract": ["alpha r"] * 6})
    labels = pd.Series(["A", "A", "B", "B"] + ["A"] * 6, index=ids + list(reference["id"]))
    alone = build_validation_set("summaries", rows, 4, "cosine", labels=labels, label_k=3)
    pooled = build_validation_set("summaries", rows, 4, "cosine", labels=labels, label_k=3, reference=reference)
    assert (alone.label_queries, pooled.label_queries, len(pooled.papers)) == (4, 4, 10)
    # among themselves, each paper's 3 nearest are its one same-topic paper and the other topic's two: 1/3 each;
    # with the A-labelled alpha training abstracts as neighbours, an alpha paper's 3 nearest are all A
    assert validate(TopicEncoder(), alone).metrics["val_label_agreement"] == pytest.approx(1 / 3)
    with_reference = validate(TopicEncoder(), pooled)
    assert with_reference.label_items is not None
    assert with_reference.label_items.tolist() == pytest.approx([1, 1, 1 / 3, 1 / 3])  # the queries only
    unlabelled = reference.assign(id=[f"u{i}" for i in range(6)])  # no labels: no neighbours either
    assert (
        build_validation_set("summaries", rows, 4, "cosine", labels=labels, label_k=3, reference=unlabelled) == alone
    )


def test_the_label_guard_is_on_when_the_corpus_names_its_labels(make_config) -> None:
    prepared = prepare(make_config(**{"training.pairs": "crops", "corpus.label_col": "topic"}))
    val = prepared.validation
    assert prepared.counts["val_labelled"] == val.label_queries > 5
    # every labelled training abstract (fewer than training.label_reference) joins as a neighbour, none twice
    assert len(val.labels) - val.label_queries == prepared.counts["train_abstracts"]
    assert not set(val.papers[: val.label_queries]) & set(val.papers[val.label_queries :])
    (guards,) = [note for note in prepared.notes if note.startswith("guards:")]
    assert "label agreement ('topic'" in guards and "within 0.02" in guards and "title→abstract ranks" in guards
    unguarded = prepare(
        make_config(**{"training.pairs": "crops", "corpus.label_col": "topic", "training.label_guard": False})
    )
    assert unguarded.validation.labels == () and not any("label agreement" in note for note in unguarded.notes)
    assert not any(note.startswith("candidates:") for note in prepared.notes)  # not averaging: nothing to say
    averaged = prepare(make_config(**{"training.pairs": "auto", "training.average_with_base": 0.5}))
    (candidates,) = [note for note in averaged.notes if note.startswith("candidates:")]
    assert "0.5·trained + 0.5·base" in candidates and "training.average_with_base" in candidates
    summaries = prepare(make_config())  # summaries: no LLM-free checks; no labels: said once
    assert [n for n in summaries.notes if "guard" in n] == [
        "no guard: a step is judged on its validation score alone (the corpus has no label column (corpus.label_col))"
    ]


def test_scratch_models_are_random_bert_with_a_corpus_vocabulary(tmp_path: Path, sample_records) -> None:
    from semcse.models.encoder import TextEncoder
    from semcse.models.scratch import build_scratch_encoder

    texts = [r["abstract"] for r in sample_records]
    out = build_scratch_encoder("scratch:bert-mini", texts, tmp_path / "mini", seed=3)
    encoder = TextEncoder.load(out)
    config = encoder.backbone.config
    assert (config.num_hidden_layers, config.hidden_size, config.num_attention_heads) == (4, 256, 4)
    word = sample_records[0]["abstract"].split()[1].lower().strip(".,;:")
    assert word in encoder.tokenizer.get_vocab()
    again = build_scratch_encoder("scratch:bert-mini", texts, tmp_path / "again", seed=3)
    assert (out / "model.safetensors").read_bytes() == (again / "model.safetensors").read_bytes()
    with pytest.raises(ValueError, match="unknown scratch architecture 'bert-huge'"):
        build_scratch_encoder("scratch:bert-huge", texts, tmp_path / "x")


def test_evaluations_come_every_n_steps_or_every_n_minutes_and_at_the_end() -> None:
    import torch.distributed as dist

    from semcse.stages.training.loop import EvaluationClock

    by_steps = EvaluationClock(TrainingConfig(eval_every=5, max_steps=12), "cpu", dist)
    assert [step for step in range(1, 13) if by_steps.due(step, 0)] == [5, 10, 12]
    now = [1000.0]
    settings = TrainingConfig(eval_every=1, eval_every_minutes=0.5, max_steps=100)
    by_time = EvaluationClock(settings, "cpu", dist, clock=lambda: now[0])
    assert not by_time.due(1, 0)  # eval_every=1 is ignored when a time is set
    now[0] += 29.9
    assert not by_time.due(2, 0)
    now[0] += 0.1
    assert by_time.due(3, 0), "30 s after the last evaluation"
    by_time.restart()
    assert not by_time.due(4, 0) and by_time.due(100, 0), "a restarted clock waits again; the last step is always due"


def test_training_never_sees_the_test_rows_of_a_corpus_split_column(
    make_config, sample_records, tmp_path: Path
) -> None:
    """ohsumed-style corpora carry train/test in a column; evaluation scores those test rows, so training must
    leave every one of them out (it used to apply only its own hash split and train on most of them)."""
    from semcse.stages.training.trainer import prepare

    frame = pd.DataFrame(sample_records).assign(
        split=["test" if i % 2 else "train" for i in range(len(sample_records))]
    )
    frame.to_parquet(tmp_path / "with-split.parquet", index=False)
    prepared = prepare(make_config(**{"corpus.path": str(tmp_path / "with-split.parquet"), "training.pairs": "crops"}))
    test_ids = set(frame.loc[frame["split"] == "test", "id"])
    assert prepared.train_rows["id"].notna().all() and not test_ids & set(prepared.train_rows["id"])
    assert prepared.counts["val_abstracts"] > 0  # validation carved from the column's train rows


def test_llm_free_label_check_reuses_the_title_checks_abstracts() -> None:
    rows = validation_pair_rows()
    labels = pd.Series(["A"] * 6 + ["B"] * 6, index=rows["id"])
    val = build_validation_set("crops", rows, 12, "cosine", labels=labels)
    assert set(val.papers) == set(val.abstracts) and len(val.papers) == 12
    counted = CountingEncoder()
    assert validate(counted, val).metrics["val_label_agreement"] == 1.0
    # crops ×2, halves ×2, titles, abstracts: the label check adds no text of its own
    assert len(counted.seen) == len(set(counted.seen)) == 12 * 6


def test_a_runs_precision_is_its_setting_else_what_it_started_in_else_the_cpus(monkeypatch) -> None:
    """A resumed run keeps the precision its base model was validated in, on whatever node it resumes."""
    from semcse.stages.training import precision

    for native in (True, False):
        monkeypatch.setattr(precision, "native_bf16", lambda native=native: native)
        assert precision.run_precision(TrainingConfig())[0] is native  # a new run: this CPU decides
        assert precision.run_precision(TrainingConfig(), recorded=not native) == (
            not native,
            "the precision this run started in",
        )
        assert precision.run_precision(TrainingConfig(cpu_bf16=not native), recorded=native)[0] is (not native)
        assert precision.run_precision(TrainingConfig(use_gpu=True), recorded=True)[0] is False


def test_cpu_validation_runs_in_bf16_when_asked_and_ranks_as_fp32_does(tiny_encoder_dir: Path) -> None:
    from semcse.stages.training.precision import autocast, run_precision

    assert run_precision(TrainingConfig(cpu_bf16=True))[0]
    assert not run_precision(TrainingConfig(cpu_bf16=False))[0]
    assert not run_precision(TrainingConfig(cpu_bf16=True, use_gpu=True))[0]  # a GPU run is bf16 through DeepSpeed
    encoder = build_encoder(TrainingConfig(base_model=str(tiny_encoder_dir), pairs="crops"))
    texts = [f"topic {i % 4} passage number {i} about {'soil ' * (i % 5)}invasion" for i in range(24)]
    with autocast(False):
        full = encoder.encode(texts)
    with autocast(True):
        half = encoder.encode(texts)
    assert half.dtype == np.float32 and not np.array_equal(full, half)  # autocast really ran in bf16
    cosines = (full * half).sum(1) / np.linalg.norm(full, axis=1) / np.linalg.norm(half, axis=1)
    assert cosines.min() > 0.99
    nearest = [np.argsort(-vectors @ vectors.T, axis=1)[:, 1] for vectors in (full, half)]
    assert np.mean(nearest[0] == nearest[1]) >= 0.9  # the same nearest neighbours, up to near-ties


def test_bf16_training_forward_keeps_weights_gradients_and_loss_in_fp32(tiny_encoder_dir: Path) -> None:
    import torch

    from semcse.models.token_batches import TokenBatches
    from semcse.stages.training.objective import TEXTS, PairObjective
    from semcse.stages.training.precision import training_forward

    cfg = TrainingConfig(base_model=str(tiny_encoder_dir), pairs="crops", forward_batch_size=4)
    encoder = build_encoder(cfg)
    encoder.train()
    objective = PairObjective(cfg)
    texts = [f"topic {i % 4} passage {i} on {'soil ' * (i % 5)}invasion" for i in range(16)]
    batch = {TEXTS: TokenBatches.build(encoder.tokenizer, texts, 32, 4)}
    assert training_forward(encoder, False) is encoder  # fp32: untouched

    def loss_and_grads(precise: bool) -> tuple[float, list[torch.Tensor]]:
        encoder.zero_grad()
        torch.manual_seed(0)  # the same dropout masks in both precisions
        forward = training_forward(encoder, not precise)
        loss = objective.loss(forward, batch)
        loss.backward()
        assert loss.dtype == torch.float32
        return loss.item(), [p.grad.clone() for p in encoder.parameters() if p.grad is not None]

    full, full_grads = loss_and_grads(precise=True)
    half, half_grads = loss_and_grads(precise=False)
    assert half != full and abs(half - full) < 0.05 * abs(full)  # bf16 ran, and the loss barely moved
    assert all(p.dtype == torch.float32 for p in encoder.parameters())
    assert len(half_grads) == len(full_grads) and all(g.dtype == torch.float32 for g in half_grads)
    cosines = [
        torch.nn.functional.cosine_similarity(a.flatten(), b.flatten(), dim=0)
        for a, b in zip(full_grads, half_grads, strict=True)
        if a.norm() > 0
    ]
    assert float(torch.stack(cosines).median()) > 0.9  # the same descent direction


def test_a_scratch_model_keeps_its_recipe_once_built(make_config) -> None:
    """Title pairs freeze the lower half of a pretrained encoder only: the model built for `scratch:` (a path by
    then) still trains every layer."""
    prepared = prepare(make_config(**{"training.pairs": "title", "training.base_model": "scratch:bert-mini"}))
    recipe = prepared.training.recipe
    assert not prepared.training.base_model.startswith("scratch:")
    assert (recipe.freeze_embeddings, recipe.freeze_layers) == (False, 0)
    assert not any(note.startswith("frozen:") for note in prepared.notes)
