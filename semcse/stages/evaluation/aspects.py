"""SemCSE-Multi's aspect evaluation: summary-retrieval MRR, the aspect correlation matrix, top-10 overlap.

- correlation matrix (per model): each embedding aspect × each judged aspect, the per-abstract
  Spearman correlation of embedding similarity with the judged scores over the abstract's judged
  partners, averaged over abstracts. The "combined" row uses, for each judged aspect, the model's
  matching aspect (the paper's "SemCSE-Multi Combined"); a multi-aspect model without it is an
  error, not a silent fallback. A single-vector model is one aspect, so its combined row is its
  only row. Judged and summary aspects are folded by `multi.merge` as in training, and named
  explicitly (see `read_pairwise`).
- top-10 overlap: of each abstract's 10 most similar judged partners (combined row), the share among its
  10 best judged.
- MRR: two summaries per abstract and aspect, the first retrieves the second among all second
  summaries; with the matching aspect's embedding (`mrr:<aspect>`) and, for multi-aspect models,
  the mean over the other aspects' embeddings (`mrr_others:<aspect>`).

Ground truth: files in the `pairwise/` format (the data path itself: separate evaluation data,
scored whole), or a corpus plus generated judgements (`evaluation.judgements`) and generated aspect
summaries (`evaluation.texts`). On a corpus only its `evaluation.split` (default: the test split)
is scored, as in SemCSE-Multi (250 test abstracts per aspect): judgements with an abstract outside it
are left out (and counted), summaries of other abstracts too, and only judged abstracts are embedded,
so no model is scored on abstracts it trained on. Similarities are computed for the judged pairs
only, abstract by abstract: memory O(judged pairs), never O(abstracts²).

Every table figure carries a 95% bootstrap interval over abstracts: one draw of abstracts serves every
figure of a model (and is the same for every model), so figures stay paired across aspects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from semcse.core import storage
from semcse.core.config import RunConfig
from semcse.core.data.generated import read_judgements, read_texts
from semcse.core.data.schema import paper_text
from semcse.stages.embedding import ModelEmbeddings, ModelRef, embed_sets
from semcse.stages.evaluation import metrics
from semcse.stages.evaluation.inputs import (
    EvaluationDataError,
    JudgedPairs,
    evaluated_rows,
    judged_pairs,
    load_corpus,
    read_pairwise,
    text_set,
)
from semcse.stages.evaluation.results import SuiteResult
from semcse.stages.evaluation.uncertainty import Bootstrap, Estimate, interval_note

NAME = "aspects"
COMBINED = "combined"


@dataclass
class GroundTruth:
    """What the suite scores against: abstracts (id, text), judgements (a, b, aspect, score), summaries (id, kind,
    text), and notes on what was left out."""

    abstracts: pd.DataFrame
    judgements: pd.DataFrame
    summaries: pd.DataFrame
    notes: list[str] = field(default_factory=list)


def ground_truth(data: str | Path, cfg: RunConfig) -> GroundTruth:
    """The judged abstracts, their judgements and the evaluated abstracts' aspect summaries."""
    path = Path(data)
    pairwise = path.is_dir() or path.name.endswith(("_samples.json", "_pairs.jsonl"))
    pairwise = pairwise or path.with_name(path.name + "_pairs.jsonl").is_file()
    if pairwise and not cfg.evaluation.judgements:
        abstracts, judgements, summaries = read_pairwise(path, cfg.evaluation.judged_aspects)
        return GroundTruth(abstracts, judgements, summaries, [f"pairwise files {path}, scored whole"])
    if not cfg.evaluation.judgements:
        raise EvaluationDataError(
            f"{data}: the aspects suite needs judgements: a pairwise/ directory or prefix as --data, "
            "or --set evaluation.judgements=JUDGEMENTS.parquet with a corpus"
        )
    combine = cfg.generation.combine_settings
    frame = load_corpus(data, cfg)
    judgements = read_judgements(cfg.evaluation.judgements, combine)
    unknown = sorted(set(judgements["a"]).union(judgements["b"]) - set(frame["id"]))
    if unknown:
        raise EvaluationDataError(
            f"{cfg.evaluation.judgements}: mismatched ids: {len(unknown)} judged id(s) are not in {data}, "
            f"e.g. {unknown[:3]}"
        )
    rows, split_note = evaluated_rows(frame, cfg, data)
    evaluated = set(rows["id"])
    inside = judgements["a"].isin(evaluated) & judgements["b"].isin(evaluated)
    judgements = judgements[inside.to_numpy()].reset_index(drop=True)
    notes = [f"evaluated on the {split_note}"]
    if not inside.all():
        notes.append(
            f"{int((~inside).sum()):,} of {len(inside):,} judgements left out: they pair an abstract outside "
            f"the {cfg.evaluation.split} split"
        )
    if judgements.empty:
        raise EvaluationDataError(
            f"{cfg.evaluation.judgements}: none of the {len(inside):,} judgements pairs two abstracts of the "
            f"{cfg.evaluation.split} split of {data}; generate them from it (`semcse generate --task judgements` "
            "draws its pairs from the test split)"
        )
    judged = set(judgements["a"]).union(judgements["b"])
    rows = rows[rows["id"].isin(judged).to_numpy()]
    summaries = pd.DataFrame(columns=["id", "kind", "text"])
    if cfg.evaluation.texts:
        texts = read_texts(cfg.evaluation.texts, combine)
        summaries = texts[texts["kind"].str.startswith("aspect:") & texts["id"].isin(evaluated)]
        summaries = summaries.sort_values(["id", "sample"] if "sample" in summaries else ["id"])
    return GroundTruth(text_set(rows["id"], paper_text(rows)), judgements, summaries, notes)


def summary_pairs(summaries: pd.DataFrame) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """Per aspect: (first summaries, second summaries) of the abstracts that have at least two."""
    pairs = {}
    for kind, group in summaries.groupby("kind", sort=True):
        ranked = group.assign(n=group.groupby("id").cumcount())
        both = ranked.groupby("id")["n"].transform("max") >= 1
        first, second = ranked[both & (ranked["n"] == 0)], ranked[both & (ranked["n"] == 1)]
        if len(first) >= 2:
            pairs[str(kind).removeprefix("aspect:")] = (
                text_set(first["id"], first["text"]),
                text_set(second["id"], second["text"]),
            )
    return pairs


def fold_aspects(
    judgements: pd.DataFrame, summaries: pd.DataFrame, merge: dict[str, str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Judged and summary aspects renamed by `multi.merge`, as training folds them (e.g. hypothesis_general)."""
    judgements = judgements.assign(aspect=judgements["aspect"].astype(str).map(lambda a: merge.get(a, a)))
    kinds = {f"aspect:{source}": f"aspect:{target}" for source, target in merge.items()}
    return judgements, summaries.assign(kind=summaries["kind"].replace(kinds))


def run(
    models: list[ModelRef], data: str | Path, cfg: RunConfig, out: str | Path, embeddings: str | Path | None = None
) -> SuiteResult:
    truth = ground_truth(data, cfg)
    judgements, summaries = fold_aspects(truth.judgements, truth.summaries, cfg.multi.merge)
    judged = set(judgements["a"]).union(judgements["b"])
    abstracts = truth.abstracts[truth.abstracts["id"].isin(judged)].reset_index(drop=True)
    ids = list(abstracts["id"])
    judged_aspects = sorted(judgements["aspect"].astype(str).unique())
    pairs_by_aspect = {
        a: judged_pairs(judgements[judgements["aspect"] == a], ids, cfg.evaluation.judgements or data)
        for a in judged_aspects
    }
    pairs = summary_pairs(summaries)
    sets = {"abstracts": abstracts}
    for aspect, (first, second) in pairs.items():
        sets[f"summaries_{aspect}_1"], sets[f"summaries_{aspect}_2"] = first, second
    units = [*ids, *(i for first, _ in pairs.values() for i in first["id"])]
    bootstrap = Bootstrap(cfg.evaluation.bootstrap, cfg.evaluation.seed, units=units)
    rows: dict[str, dict[str, Estimate]] = {}
    details = {}
    store = embeddings or storage.join(out, "embeddings")
    for embedded in embed_sets(models, sets, store, cfg.evaluation):
        spec = embedded.spec
        matrix, row = _correlations(embedded, ids, pairs_by_aspect, cfg.evaluation.overlap_k, bootstrap)
        row |= _retrieval(embedded, pairs, bootstrap)
        rows[spec.name] = row
        details[f"correlation_{spec.name}"] = matrix
    notes = [
        *truth.notes,
        f"{len(abstracts)} judged abstracts, judged aspects {judged_aspects} "
        f"({', '.join(f'{a}: {len(p.rows) // 2:,} pairs' for a, p in pairs_by_aspect.items())}), "
        f"summary aspects {sorted(pairs)}",
        interval_note(cfg.evaluation.bootstrap, "abstracts", len(rows)),
    ]
    return SuiteResult(NAME, rows, details=details, notes=notes)


def _correlations(
    embedded: ModelEmbeddings,
    ids: list[str],
    truth: dict[str, JudgedPairs],
    k: int,
    bootstrap: Bootstrap,
) -> tuple[pd.DataFrame, dict[str, Estimate]]:
    """The correlation matrix and the combined row's per-abstract figures, one judged aspect at a time."""
    per_aspect = {aspect or "embedding": v for aspect, v in embedded.vectors("abstracts", ids).items()}
    if len(per_aspect) > 1:
        missing = sorted(set(truth) - set(per_aspect))
        if missing:
            raise EvaluationDataError(
                f"model {embedded.spec.name!r} has no aspect {missing[0]!r} to compare with these judgements "
                f"(its aspects: {sorted(per_aspect)}); name the judged aspect with evaluation.judged_aspects "
                "or a _meta.json"
            )
    cells: dict[str, dict[str, float]] = {}
    row: dict[str, Estimate] = {}
    for judged, pairs in truth.items():
        combined = judged if len(per_aspect) > 1 else next(iter(per_aspect))
        cells[judged] = {}
        for aspect, vectors in per_aspect.items():
            sims = metrics.pair_similarities(vectors, pairs.rows, pairs.partners, embedded.similarity)
            cells[judged][aspect] = metrics.rowwise_spearman(pairs.rows, sims, pairs.scores, len(ids))
            if aspect != combined:
                continue
            cells[judged][COMBINED] = cells[judged][aspect]
            spearmans = metrics.rowwise_spearmans(pairs.rows, sims, pairs.scores, len(ids))
            overlaps = metrics.top_k_overlaps(pairs.rows, sims, pairs.scores, len(ids), k)
            row[f"spearman:{judged}"] = bootstrap.mean(f"spearman:{judged}", spearmans, units=ids)
            row[f"top{k}:{judged}"] = bootstrap.mean(f"top{k}:{judged}", overlaps, units=ids)
    matrix = pd.DataFrame(cells).reindex([*per_aspect, COMBINED])
    matrix.index.name = "embedding aspect"
    order = [f"spearman:{j}" for j in truth] + [f"top{k}:{j}" for j in truth]
    return matrix, {name: row[name] for name in order}


def _retrieval(
    embedded: ModelEmbeddings, pairs: dict[str, tuple[pd.DataFrame, pd.DataFrame]], bootstrap: Bootstrap
) -> dict[str, Estimate]:
    row = {}
    for aspect, (first, second) in pairs.items():
        ids = sorted(set(first["id"]) & set(second["id"]))
        queries = embedded.vectors(f"summaries_{aspect}_1", ids)
        candidates = embedded.vectors(f"summaries_{aspect}_2", ids)
        task = f"summaries:{aspect}"
        if aspect in queries:
            row[f"mrr:{aspect}"] = bootstrap.mean(
                task, _reciprocal_ranks(queries[aspect], candidates[aspect], embedded.similarity), units=ids
            )
            others = [a for a in queries if a != aspect]
            if others:
                per_query = np.mean(
                    [_reciprocal_ranks(queries[a], candidates[a], embedded.similarity) for a in others], axis=0
                )
                row[f"mrr_others:{aspect}"] = bootstrap.mean(task, per_query, units=ids)
        elif len(queries) == 1:
            (vectors,) = queries.values()
            (candidate_vectors,) = candidates.values()
            row[f"mrr:{aspect}"] = bootstrap.mean(
                task, _reciprocal_ranks(vectors, candidate_vectors, embedded.similarity), units=ids
            )
        else:
            raise EvaluationDataError(
                f"model {embedded.spec.name!r} has no aspect {aspect!r} to retrieve its summaries with "
                f"(its aspects: {sorted(queries)})"
            )
    return row


def _reciprocal_ranks(queries: np.ndarray, candidates: np.ndarray, similarity: metrics.Similarity) -> np.ndarray:
    """Per query: 1 / rank of its true candidate, the values MRR averages."""
    return 1.0 / metrics.true_ranks(queries, candidates, similarity=similarity)
