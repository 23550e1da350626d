"""The held-out checks every evaluation runs; their per-abstract mean (`val_score`, lower is better) decides.

Following SemCSE (A.3), on validation abstracts with two texts s1, s2 of the mode: `val_rank_pair`, the rank of s2
among all validation s2 for s1; `val_rank_document`, the rank of the paper among all validation papers for the mean
of s1 and s2 (not for an aspect encoder, validated on its summaries alone, SemCSE-Multi A.3). The LLM-free modes
use the analogues: first ↔ last crop, first ↔ second half of the abstract, and each title → its abstract among the
validation abstracts and the training abstracts that read most like them (`distractors`). Per-abstract scores and
per-check ranks are kept, so a step is tested against the base model on the same abstracts (`paired_change`);
cosine models decide on smooth ranks (`Recipe.rank_softness`); with corpus labels, `val_label_agreement`
guards the topics; `val_base_drift` says how far a step moved from the base model's similarities and decides
nothing. Why each check is as it is: docs/train.md, "Candidate zero" and "Guards".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch

from semcse.core.data.modes import ASPECT_PREFIX, needs_texts
from semcse.core.data.schema import ABSTRACT, TITLE, paper_text
from semcse.models.encoder import TextEncoder
from semcse.models.losses import similarity_kl
from semcse.stages.evaluation.metrics import Similarity, label_agreements, nearest_others, true_ranks
from semcse.stages.evaluation.uncertainty import Bootstrap, Estimate
from semcse.stages.training.distractors import lexical_neighbours
from semcse.stages.training.positives import TITLE_OK

# The checks a trained step must not be significantly worse on than the base model (where validation runs them).
GUARDED_CHECKS = ("pair", "title")
# the one validation metric where higher is better; every other `val_*` is an average rank (lower is better)
HIGHER_IS_BETTER = frozenset({"val_label_agreement"})
# one fixed scale for `val_base_drift`, whatever the run's loss temperature, so that runs and trials of a mode compare
DRIFT_TEMPERATURE = 0.1


@dataclass(frozen=True)
class Validated:
    """One evaluation: the logged metrics (with `val_score`, lower is better) and, where the check has
    them, per-abstract scores whose mean is `val_score` (None: only the averages can be compared),
    each check's per-abstract ranks (`checks`, lower is better), per-abstract label agreements
    (higher is better; None without labels) and the embeddings of the validation abstracts (`drift_vectors`, which
    the loop compares with the base model's: `base_drift`)."""

    metrics: dict[str, float]
    items: np.ndarray | None = None
    label_items: np.ndarray | None = None
    checks: dict[str, np.ndarray] | None = None
    drift_vectors: np.ndarray | None = None


@dataclass(frozen=True)
class ValidationSet:
    """Texts for the two checks; query i matches target i. Document queries are averaged embeddings.

    `papers`/`labels` (empty without labels) are the labelled abstracts of the label check (their abstract in the
    LLM-free modes, title + abstract with generated texts): the first `label_queries` are validation abstracts,
    whose `label_k` nearest are counted among all the others; the rest are training abstracts, neighbours only.
    `softness` > 0 makes the ranks behind decisions smooth (see the module docstring). `drift_texts` are the
    sampled validation abstracts, embedded as the label check embeds them, for `val_base_drift`.
    """

    pair_queries: list[str]
    pair_targets: list[str]
    similarity: Similarity
    document_queries: list[tuple[str, ...]] = field(default_factory=list)  # none: no document check (aspect modes)
    document_targets: list[str] = field(default_factory=list)
    max_length: int | None = None
    papers: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    label_k: int = 5
    label_queries: int = 0
    titles: tuple[str, ...] = ()  # title check: titles[j] → abstracts[j], for the abstracts in `titled`
    abstracts: tuple[str, ...] = ()
    titled: tuple[int, ...] = ()
    distractors: tuple[str, ...] = ()  # training abstracts that join the title check's candidates
    softness: float = 0.0
    drift_texts: tuple[str, ...] = ()  # the validation abstracts, as the label check embeds them (`val_base_drift`)

    def __len__(self) -> int:
        return len(self.pair_queries)


def build_validation_set(
    mode: str,
    rows: pd.DataFrame,
    size: int,
    similarity: Similarity,
    seed: int = 0,
    max_length: int | None = None,
    labels: pd.Series | None = None,
    label_k: int = 5,
    softness: float = 0.0,
    reference: pd.DataFrame | None = None,
    pool: pd.DataFrame | None = None,
    distractors: int = 0,
) -> ValidationSet:
    """From pair rows of the validation split (see `build_pair_rows`): a seeded sample of at most `size` abstracts.

    A random sample rather than the first rows: corpora are often sorted (by label, source or date),
    and the head of a sorted split covers a few topics, where ranks mean something else.
    `max_length` truncates validation texts as training does (None: the model's own length).
    `labels` (by id) adds the label check over the sampled abstracts that have a label, when they
    hold at least two labels and more abstracts than `label_k`; the labelled rows of `reference` (training corpus
    rows, sampled beforehand) join them as neighbours. `softness`: see `ValidationSet`. In the LLM-free modes the
    title check ranks each abstract among the others and, for each, the `distractors` abstracts of `pool` (training
    rows) that read most like it (`distractors.lexical_neighbours`).
    """
    usable = rows[rows["texts"].map(len) >= 2]
    usable = usable.sample(n=min(size, len(usable)), random_state=seed).sort_index()
    texts = [list(t) for t in usable["texts"]]
    # the label check embeds what another check already embeds: the abstracts of the title check in the LLM-free
    # modes, the document targets (title + abstract) with generated texts
    generated = needs_texts(mode)
    text = paper_text if generated else lambda rows: rows[ABSTRACT]
    aspect = mode.startswith(ASPECT_PREFIX)  # SemCSE-Multi A.3: an aspect encoder is validated on its summaries alone
    labelled = _label_check(usable, reference, None if aspect else labels, label_k, text)
    labelled |= {"similarity": similarity, "max_length": max_length, "softness": softness}
    labelled |= {"drift_texts": tuple(text(usable).astype(str))}
    if not generated:
        halves = [_halves(list(s)) for s in usable["sentences"]]
        titled = [i for i, ok in enumerate(usable[TITLE_OK]) if ok]
        abstracts = [str(usable[ABSTRACT].iat[i]) for i in titled] if len(titled) > 1 else []
        candidates = [] if pool is None else pool[ABSTRACT].astype(str).tolist()
        nearest = lexical_neighbours(abstracts, candidates, distractors)
        return ValidationSet(
            pair_queries=[t[0] for t in texts],
            pair_targets=[t[-1] for t in texts],
            document_queries=[(first,) for first, _ in halves],
            document_targets=[second for _, second in halves],
            titles=tuple(str(usable[TITLE].iat[i]) for i in titled) if len(titled) > 1 else (),
            abstracts=tuple(abstracts),
            titled=tuple(titled) if len(titled) > 1 else (),
            distractors=tuple(candidates[i] for i in nearest),
            **labelled,
        )
    return ValidationSet(
        pair_queries=[t[0] for t in texts],
        pair_targets=[t[1] for t in texts],
        document_queries=[] if aspect else [(t[0], t[1]) for t in texts],
        document_targets=[] if aspect else paper_text(usable).tolist(),
        **labelled,
    )


def _label_check(
    usable: pd.DataFrame,
    reference: pd.DataFrame | None,
    labels: pd.Series | None,
    k: int,
    text: Callable[[pd.DataFrame], pd.Series],
) -> dict[str, Any]:
    """The label check's fields: the sampled validation abstracts that have a label, then the labelled `reference`
    rows (each embedded as `text(rows)`); none when it cannot say anything."""
    if labels is None:
        return {}
    known = usable.assign(label=usable["id"].map(labels)).dropna(subset=["label"])
    if known["label"].nunique() < 2 or len(known) <= k:
        return {}
    if reference is None:
        reference = known.iloc[:0]
    neighbours = reference.assign(label=reference["id"].map(labels)).dropna(subset=["label"])
    return {
        "papers": tuple(text(known).astype(str)) + tuple(text(neighbours).astype(str)),
        "labels": tuple(known["label"].astype(str)) + tuple(neighbours["label"].astype(str)),
        "label_k": k,
        "label_queries": len(known),
    }


def _halves(sentences: list[str]) -> tuple[str, str]:
    middle = max(1, len(sentences) // 2)
    return " ".join(sentences[:middle]), " ".join(sentences[middle:])


def validate(encoder: TextEncoder, val: ValidationSet, batch_size: int = 64) -> Validated:
    """Each check's average (hard) rank, each abstract's mean rank over its checks (smooth with `val.softness`;
    their mean is `val_score`) and, with labels, each labelled abstract's label agreement; every distinct text is
    encoded once, in one batched pass without gradients."""
    width = len(val.document_queries[0]) if val.document_queries else 0
    flat_queries = [text for group in val.document_queries for text in group]
    groups = {
        "pair_q": val.pair_queries,
        "pair_t": val.pair_targets,
        "document_q": flat_queries,
        "document_t": val.document_targets,
        "titles": list(val.titles),
        "abstracts": list(val.abstracts),
        "distractors": list(val.distractors),
        "papers": list(val.papers),
        "drift": list(val.drift_texts),
    }
    vectors = _encode_once(encoder, [text for texts in groups.values() for text in texts], batch_size, val.max_length)
    split, start = {}, 0
    for name, texts in groups.items():
        split[name], start = vectors[start : start + len(texts)], start + len(texts)
    n = len(val)
    pairs = {"pair": (split["pair_q"], split["pair_t"])}
    if width:
        pairs["document"] = (split["document_q"].reshape(n, width, -1).mean(1), split["document_t"])
    if val.titles:
        pairs["title"] = (split["titles"], np.concatenate([split["abstracts"], split["distractors"]]))
    # the logged averages are hard ranks (SemCSE's figures); decisions read the smooth ones (`softness`), which
    # are the hard ones at softness 0
    hard = {name: true_ranks(q, t, similarity=val.similarity) for name, (q, t) in pairs.items()}
    metrics = {f"val_rank_{name}": float(ranks.mean()) for name, ranks in hard.items()}
    checks = hard
    if val.softness > 0:
        checks = {
            name: true_ranks(q, t, similarity=val.similarity, softness=val.softness) for name, (q, t) in pairs.items()
        }
    scored = [name for name in ("pair", "document") if name in checks]
    totals, counts = np.sum([checks[name] for name in scored], axis=0), np.full(n, float(len(scored)))
    if val.titles:
        rows = np.asarray(val.titled)
        totals[rows] += checks["title"]
        counts[rows] += 1
    items = totals / counts
    metrics["val_score"] = float(items.mean())
    drift = split["drift"] if val.drift_texts else None
    if not val.papers:
        return Validated(metrics, items, checks=checks, drift_vectors=drift)
    agreements = _label_agreements(split["papers"], np.asarray(val.labels), val)
    labelled = metrics | {"val_label_agreement": float(agreements.mean())}
    return Validated(labelled, items, agreements, checks, drift)


def base_drift(vectors: np.ndarray, base: np.ndarray) -> float:
    """How far `vectors` (the validation abstracts' embeddings by a step) are from the base model's similarities
    among the same abstracts: `losses.similarity_kl` with each abstract its own anchor and positive, at
    `DRIFT_TEMPERATURE`."""
    if len(vectors) != len(base):
        raise ValueError(f"{len(vectors)} validation abstracts against the base model's {len(base)}")
    student, reference = torch.from_numpy(np.asarray(vectors)), torch.from_numpy(np.asarray(base))
    return float(similarity_kl(student, student, reference, reference, DRIFT_TEMPERATURE))


def _encode_once(encoder: TextEncoder, texts: list[str], batch_size: int, max_length: int | None) -> np.ndarray:
    """`texts` embedded, each distinct text once: checks share texts (with generated texts, the label check's papers
    are the document check's targets), and validation runs at every evaluation of every run."""
    distinct, where = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
    return encoder.encode(list(distinct), batch_size=batch_size, max_length=max_length)[where]


def _label_agreements(vectors: np.ndarray, labels: np.ndarray, val: ValidationSet) -> np.ndarray:
    """Per validation abstract: the share of its k nearest other papers (in the loss's geometry) that carry its
    label."""
    nearest = nearest_others(vectors, val.label_k, val.similarity, queries=val.label_queries)
    return label_agreements(labels[nearest], labels[: val.label_queries])


def significantly_better(items: np.ndarray, base: np.ndarray, resamples: int = 1000, seed: int = 0) -> bool:
    """Whether per-abstract scores (lower is better) beat the base model's on the same abstracts: the 95%
    paired bootstrap interval of the mean difference lies below zero."""
    return bool(paired_change(items, base, resamples, seed).interval()[1] < 0)


def significantly_worse(items: np.ndarray, base: np.ndarray, resamples: int = 1000, seed: int = 0) -> bool:
    """Whether per-abstract ranks (lower is better) are worse than the base model's on the same abstracts: the
    95% paired bootstrap interval of the mean difference lies above zero."""
    return significantly_better(base, items, resamples, seed)


def paired_change(items: np.ndarray, base: np.ndarray, resamples: int = 1000, seed: int = 0) -> Estimate:
    """The mean per-abstract change `items − base` over the same abstracts, with its paired bootstrap replicates.

    The label guard is a non-inferiority test on it (`LoopState`): the 95% interval must stay above
    −margin. Not "not significantly worse": on a small validation set a real loss can hide in a wide
    interval that includes zero, and then the step would pass; here a wide interval fails it.
    """
    return Bootstrap(resamples, seed).mean("validation", np.asarray(items) - np.asarray(base))
