"""Encoder training: check everything and prepare the data, then run it the way every training run goes.

`prepare` does all the checking a run needs before any Ray work is scheduled (model loads, pooling
and head are valid, there are pairs to train on, the batch fits the data, validation is possible),
so a misconfiguration costs seconds and prints one clear message instead of failing inside a
worker. `train` describes the run (pairs objective, encoder, banner) and hands it to
`driver.fit_and_deliver`, which saves the best checkpoint's encoder as a sentence-transformers
directory. The base model is candidate zero: when a trained step beats it on
validation, the best step is logged to MLflow and registered under `training.register_name`; when
none does, the run says so, delivers the base model unchanged and registers nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from semcse.core import logs, storage
from semcse.core.config import SCRATCH_PREFIX, RunConfig, TrainingConfig, is_scratch
from semcse.core.data.io import read_corpus
from semcse.core.data.modes import ASPECT_PREFIX, mix_weights, needs_texts, pair_mode
from semcse.core.data.split import frame_splits
from semcse.models.scratch import build_scratch_encoder
from semcse.stages.training.driver import TrainingJob, TrainingSetupError, TrainResult, fit_and_deliver
from semcse.stages.training.engine import build_encoder
from semcse.stages.training.loop import StepCallback
from semcse.stages.training.objective import PairObjective
from semcse.stages.training.positives import build_pair_rows, title_exclusions
from semcse.stages.training.validation import ValidationSet, build_validation_set


@dataclass
class PreparedData:
    """Training rows (one per usable abstract), the validation texts, and the run's resolved training config.

    `training` differs from the run config's where preparation resolved something, e.g. a
    `scratch:` base model built into the run directory.
    """

    train_rows: pd.DataFrame
    validation: ValidationSet
    counts: dict[str, int]
    training: TrainingConfig
    notes: list[str] = field(default_factory=list)


def prepare(cfg: RunConfig) -> PreparedData:
    """Validate the configuration against the model and the data; build train rows and the validation set."""
    tc = cfg.training
    if not cfg.corpus.path:
        raise TrainingSetupError("corpus.path is not set; pass --corpus PATH (a validated corpus)")
    corpus = read_corpus(cfg.corpus.path, cfg.corpus)
    split = frame_splits(corpus, cfg.corpus)
    train_corpus = corpus[split == "train"]
    _check_splits(cfg, corpus, split)
    if is_scratch(tc.base_model):
        tc = _build_scratch(cfg, tc.base_model, train_corpus)
    notes: list[str] = []
    try:
        build_encoder(tc, notes)
    except (OSError, ValueError) as exc:
        raise TrainingSetupError(
            f"cannot build the encoder from training.base_model={tc.base_model!r}: {exc}"
        ) from exc
    pairs = tc.recipe.pairs
    texts = _read_texts(tc.texts, pairs, cfg.generation.combine_settings) if needs_texts(pairs) else None
    if tc.train_fraction < 1:
        train_corpus = train_corpus.sample(frac=tc.train_fraction, random_state=tc.seed)
    train_rows = build_pair_rows(pairs, train_corpus, texts, tc)
    val_rows = build_pair_rows(pairs, corpus[split == "val"], texts, tc)
    labels = _labels(corpus, cfg) if tc.label_guard else None
    labelled = train_corpus[train_corpus["id"].isin(labels.index)] if labels is not None else train_corpus.iloc[:0]
    validation = build_validation_set(
        pairs,
        val_rows,
        tc.val_size,
        tc.recipe.similarity,
        tc.seed,
        tc.max_length,
        labels=labels,
        label_k=cfg.evaluation.agreement_k,
        softness=tc.recipe.rank_softness,
        reference=labelled.sample(n=min(tc.label_reference, len(labelled)), random_state=tc.seed),
        pool=train_corpus,
        distractors=tc.val_distractors,
    )
    counts = {
        "corpus_rows": len(corpus),
        "train_abstracts": len(train_corpus),
        "train_rows": len(train_rows),
        "val_abstracts": int((split == "val").sum()),
        "val_rows": len(validation),
        "val_labelled": validation.label_queries,
    }
    _check_sizes(tc, counts)
    if "title" in mix_weights(pairs):
        excluded = title_exclusions(train_corpus, tc.min_title_words).value_counts().drop("", errors="ignore")
        if len(excluded):
            reasons = ", ".join(f"{n} {reason}" for reason, n in excluded.items())
            notes.append(f"title pairs: {int(excluded.sum())} of {len(train_corpus)} titles excluded ({reasons})")
    if tc.average_with_base:
        w = tc.average_with_base
        notes.append(
            f"candidates: every trained step is validated, checkpointed and delivered as {1 - w:g}·trained + "
            f"{w:g}·base weights (training.average_with_base); training itself continues from the trained ones"
        )
    if tc.base_similarity_weight:
        notes.append(
            f"loss: {tc.recipe.loss} plus {tc.base_similarity_weight:g} × the KL divergence of each anchor's "
            f"in-batch similarities from the base model's (training.base_similarity_weight; one more forward pass "
            f"per step)"
        )
    if validation.titles:
        notes.append(
            f"validation: each of {len(validation.titles)} validation titles ranks its abstract among theirs and "
            f"{len(validation.distractors)} training abstracts that read most like them (training.val_distractors)"
        )
    notes.append(_guards(cfg, validation))
    return PreparedData(train_rows, validation, counts, tc, notes)


def _guards(cfg: RunConfig, validation: ValidationSet) -> str:
    """What a trained step must not lose against the base model to be delivered: said once, also when nothing."""
    guarded = ["crop↔crop ranks"] if not needs_texts(cfg.training.recipe.pairs) else []
    guarded += ["title→abstract ranks"] if validation.titles else []
    parts = [f"not significantly worse on {' or '.join(guarded)}"] if guarded else []
    if validation.labels:
        parts.append(
            f"label agreement ({cfg.corpus.label_col!r}, {validation.label_queries} validation abstracts among "
            f"{len(validation.labels) - validation.label_queries} labelled training abstracts) within "
            f"{cfg.training.label_margin:g} of the base model's (95% non-inferiority)"
        )
    if not parts:
        why = (
            "an aspect encoder is validated on its summaries alone, as SemCSE-Multi's are"
            if cfg.training.recipe.pairs.startswith(ASPECT_PREFIX)
            else "training.label_guard is off"
            if not cfg.training.label_guard
            else "the corpus has no label column (corpus.label_col)"
            if not cfg.corpus.label_col
            else "too few labelled validation abstracts"
        )
        return f"no guard: a step is judged on its validation score alone ({why})"
    return "guards: a step is delivered only when " + ", and ".join(parts)


def _check_splits(cfg: RunConfig, corpus: pd.DataFrame, split: pd.Series) -> None:
    """No training (or validation) abstract at all is the split's doing, not the pairs': say so, with the counts."""
    counts = split.value_counts().to_dict()
    if counts.get("train", 0) and counts.get("val", 0):
        return
    column = cfg.corpus.split_col
    missing = "training" if not counts.get("train", 0) else "validation"
    if column in corpus.columns:
        source = f"its split column {column!r}"
        fix = f"mark some rows {'train' if missing == 'training' else 'val'} there, or drop the column to split by id"
    else:
        source = (
            f"the id hash (corpus.val_fraction={cfg.corpus.val_fraction}, test_fraction={cfg.corpus.test_fraction})"
        )
        fix = "raise corpus.val_fraction" if missing == "validation" else "lower corpus.val_fraction and test_fraction"
    raise TrainingSetupError(
        f"no {missing} abstracts: {source} splits the {len(corpus)} rows of {cfg.corpus.path} into {counts}; {fix}"
    )


def _labels(corpus: pd.DataFrame, cfg: RunConfig) -> pd.Series | None:
    """The corpus's labels by id for the label guard, or None when the corpus names no label column."""
    column = cfg.corpus.label_col
    if not column:
        return None
    if column not in corpus.columns:
        raise TrainingSetupError(
            f"corpus.label_col={column!r} is not a column of {cfg.corpus.path} (columns: {list(corpus.columns)}); "
            "fix the name, or unset it (the label guard then checks pair ranks only)"
        )
    labels = corpus.set_index("id")[column]
    return labels[labels.notna() & (labels.astype(str).str.strip() != "")].astype(str)


def _build_scratch(cfg: RunConfig, ref: str, train_corpus: pd.DataFrame) -> TrainingConfig:
    """Build `scratch:<architecture>` from the training split's text into the run directory; point the run at it.

    Only training abstracts shape the vocabulary, so nothing of the validation or test split leaks in.
    The model goes under the run directory (a storage URI on a cluster), where every worker finds it.
    """
    tc = cfg.training
    out = storage.join(cfg.run_dir, "scratch", f"{ref.removeprefix(SCRATCH_PREFIX)}-seed{tc.seed}")
    texts = (train_corpus["title"].fillna("") + " " + train_corpus["abstract"].fillna("")).tolist()
    try:
        with storage.staged(out) as staged:
            build_scratch_encoder(ref, texts, staged, seed=tc.seed)
    except ValueError as exc:
        raise TrainingSetupError(str(exc)) from exc
    # the built model is no longer a `scratch:` reference, so its freezing (none by default) is pinned here
    frozen = {"freeze_embeddings": tc.recipe.freeze_embeddings, "freeze_layers": tc.recipe.freeze_layers}
    return tc.model_copy(update={"base_model": storage.normalize(out)} | frozen)


def _read_texts(path: str | None, mode: str, combine: bool) -> pd.DataFrame:
    from semcse.core.data.generated import GeneratedDataError, read_texts

    if not path:
        raise TrainingSetupError(f"pairs mode {mode!r} trains on generated texts; pass --texts DIR")
    try:
        return read_texts(path, combine)
    except GeneratedDataError as exc:
        raise TrainingSetupError(str(exc)) from exc


def _material(tc: TrainingConfig, name: str) -> str:
    """What one abstract needs to give a pair of mode `name`, in words."""
    mode = pair_mode(name)
    count = "≥2" if mode.min_texts >= 2 else "at least one"
    if mode.source == "crops":
        sentences = f"{tc.crop_sentences} sentences of {tc.min_sentence_chars}–{tc.max_sentence_chars} chars"
        return f"{count} crop(s) of {sentences}"
    if mode.source == "title":
        return f"a title of ≥{tc.min_title_words} words that no other paper shares"
    return f"{count} {'applicable' if mode.source == 'aspect' else 'generated'} summaries"


def _check_sizes(tc: TrainingConfig, counts: dict[str, int]) -> None:
    what = " or ".join(_material(tc, name) for name in mix_weights(tc.recipe.pairs))
    if counts["train_rows"] == 0:
        raise TrainingSetupError(
            f"no training pairs after filtering: 0 of {counts['train_abstracts']} training abstracts have {what} "
            f"(pairs mode {tc.recipe.pairs!r})"
        )
    if counts["train_rows"] < tc.batch_size:
        raise TrainingSetupError(
            f"batch_size {tc.batch_size} is larger than the training data: {counts['train_rows']} usable abstracts; "
            "lower training.batch_size"
        )
    if counts["val_rows"] < 2:
        raise TrainingSetupError(
            f"validation needs ≥2 held-out abstracts with {what}, found {counts['val_rows']} "
            f"(of {counts['val_abstracts']} in the val split); raise corpus.val_fraction"
        )


def _objective_settings(tc: TrainingConfig) -> dict[str, object]:
    """The settings the run's loss and schedule use (`TrainingConfig.recipe` where unset), printed and logged."""
    recipe = tc.recipe
    objective: dict[str, object] = (
        {"loss": "triplet", "margin": tc.margin, "anchor_l2_weight": tc.anchor_l2_weight}
        if recipe.loss == "triplet"
        else {"loss": "infonce", "temperature": recipe.temperature}
    )
    return objective | {
        "learning_rate": recipe.learning_rate,
        "warmup_steps": recipe.warmup_steps,
        "weight_decay": tc.weight_decay,
    }


def train(
    cfg: RunConfig,
    prepared: PreparedData | None = None,
    callbacks: Sequence[StepCallback] = (),
    ray_callbacks: Sequence[Any] = (),
) -> TrainResult:
    """Check, train (`training.launcher`), save the best encoder under `training.out`; register it if it won.

    `callbacks` observe every step in the workers; `ray_callbacks` go to Ray Train's controller (Tune's)."""
    prepared = prepared or prepare(cfg)
    tc = prepared.training
    objective = _objective_settings(tc)
    described = ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}" for k, v in objective.items())
    banner = [
        f"{tc.recipe.pairs} pairs: {prepared.counts['train_rows']} training abstracts, {prepared.counts['val_rows']} "
        f"validation; {logs.counted(tc.num_workers, 'worker')} × {tc.worker_batch_size} pairs, "
        f"ZeRO-{tc.recipe.zero_stage}, {tc.max_steps} steps; {described}",
        *(f"note: {note}" for note in prepared.notes),
    ]
    job = TrainingJob(
        stage="train",
        run_name=f"train-{tc.recipe.pairs}",
        tags={"stage": "train", "pairs": tc.recipe.pairs},
        params={f"recipe.{k}": v for k, v in objective.items()}
        | {"corpus.path": cfg.corpus.path}
        | {f"data.{k}": v for k, v in prepared.counts.items()},
        objective=PairObjective(tc),
        model_factory=functools.partial(build_encoder, tc),
        validation=prepared.validation,
        rows=prepared.train_rows,
        out=tc.out or storage.join(cfg.run_dir, "encoder"),
        artifact="encoder",
        register_name=tc.register_name,
        register_alias=tc.register_alias,
        banner=banner,
        callbacks=tuple(callbacks),
    )
    return fit_and_deliver(cfg, tc, job, ray_callbacks)
