"""SemCSE-Multi's aspect evaluation: summary-retrieval MRR, the aspect correlation matrix, top-10 overlap.

- correlation matrix (per model): each embedding aspect × each judged aspect, the per-abstract
  Spearman correlation of embedding similarity with the judged scores, averaged over abstracts.
  The "combined" row uses, for each judged aspect, the model's matching aspect (the paper's
  "SemCSE-Multi Combined"); a multi-aspect model without it is an error, not a silent fallback.
  A single-vector model is one aspect, so its combined row is its only row. Judged and summary
  aspects are folded by `multi.merge` as in training, and named explicitly (see `read_pairwise`).
- top-10 overlap: of each abstract's 10 most similar (combined row), the share among its 10 best judged.
- MRR: two summaries per abstract and aspect, the first retrieves the second among all second
  summaries; with the matching aspect's embedding (`mrr:<aspect>`) and, for multi-aspect models,
  the mean over the other aspects' embeddings (`mrr_others:<aspect>`).

Every table figure carries a 95% bootstrap interval over abstracts (queries for MRR), the same draws
for every model. Ground truth: files in the `pairwise/` format (the data path itself), or a corpus plus generated
judgements (`evaluation.judgements`) and generated aspect summaries (`evaluation.texts`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from semcse import storage
from semcse.config import RunConfig
from semcse.data.generated import read_judgements, read_texts
from semcse.data.schema import paper_text
from semcse.embedding import ModelEmbeddings, ModelRef, embed_sets
from semcse.evaluation import metrics
from semcse.evaluation.inputs import (
    EvaluationDataError,
    judgement_matrix,
    load_corpus,
    read_pairwise,
    text_set,
)
from semcse.evaluation.results import SuiteResult
from semcse.evaluation.uncertainty import Bootstrap, Estimate, interval_note

NAME = "aspects"
COMBINED = "combined"


def ground_truth(data: str | Path, cfg: RunConfig) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(abstracts: id, text), (judgements: a, b, aspect, score), (summaries: id, kind, text)."""
    path = Path(data)
    pairwise = path.is_dir() or path.name.endswith(("_samples.json", "_pairs.jsonl"))
    pairwise = pairwise or path.with_name(path.name + "_pairs.jsonl").is_file()
    if pairwise and not cfg.evaluation.judgements:
        return read_pairwise(path, cfg.evaluation.judged_aspects)
    if not cfg.evaluation.judgements:
        raise EvaluationDataError(
            f"{data}: the aspects suite needs judgements: a pairwise/ directory or prefix as --data, "
            "or --set evaluation.judgements=JUDGEMENTS.parquet with a corpus"
        )
    frame = load_corpus(data, cfg)
    combine = cfg.generation.combine_settings
    abstracts = text_set(frame["id"], paper_text(frame))
    summaries = pd.DataFrame(columns=["id", "kind", "text"])
    if cfg.evaluation.texts:
        texts = read_texts(cfg.evaluation.texts, combine)
        summaries = texts[texts["kind"].str.startswith("aspect:")]
        summaries = summaries.sort_values(["id", "sample"] if "sample" in summaries else ["id"])
    return abstracts, read_judgements(cfg.evaluation.judgements, combine), summaries


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


def run(models: list[ModelRef], data: str | Path, cfg: RunConfig, out: str | Path) -> SuiteResult:
    abstracts, judgements, summaries = ground_truth(data, cfg)
    judgements, summaries = fold_aspects(judgements, summaries, cfg.multi.merge)
    judged_aspects = sorted(judgements["aspect"].astype(str).unique())
    truth = {
        a: judgement_matrix(judgements[judgements["aspect"] == a], list(abstracts["id"]), data) for a in judged_aspects
    }
    pairs = summary_pairs(summaries)
    sets = {"abstracts": abstracts}
    for aspect, (first, second) in pairs.items():
        sets[f"summaries_{aspect}_1"], sets[f"summaries_{aspect}_2"] = first, second
    bootstrap = Bootstrap(cfg.evaluation.bootstrap, cfg.evaluation.seed)
    rows: dict[str, dict[str, Estimate]] = {}
    details = {}
    for spec in models:
        embedded = embed_sets(spec, sets, storage.join(out, "embeddings"), cfg.evaluation)
        matrix, row = _correlations(embedded, abstracts, truth, cfg.evaluation.overlap_k, bootstrap)
        row |= _retrieval(embedded, pairs, bootstrap)
        rows[spec.name] = row
        details[f"correlation_{spec.name}"] = matrix
    notes = [
        f"{len(abstracts)} abstracts, judged aspects {judged_aspects}, summary aspects {sorted(pairs)}",
        interval_note(cfg.evaluation.bootstrap, "abstracts"),
    ]
    return SuiteResult(NAME, rows, details=details, notes=notes)


def _correlations(
    embedded: ModelEmbeddings,
    abstracts: pd.DataFrame,
    truth: dict[str, np.ndarray],
    k: int,
    bootstrap: Bootstrap,
) -> tuple[pd.DataFrame, dict[str, Estimate]]:
    per_aspect = embedded.vectors("abstracts", abstracts["id"].tolist())
    similarities = {
        aspect or "embedding": metrics.similarity_matrix(v, v, embedded.similarity) for aspect, v in per_aspect.items()
    }
    if len(per_aspect) == 1:
        combined = dict.fromkeys(truth, next(iter(similarities.values())))
    else:
        missing = sorted(set(truth) - set(similarities))
        if missing:
            raise EvaluationDataError(
                f"model {embedded.spec.name!r} has no aspect {missing[0]!r} to compare with these judgements "
                f"(its aspects: {sorted(similarities)}); name the judged aspect with evaluation.judged_aspects "
                "or a _meta.json"
            )
        combined = {judged: similarities[judged] for judged in truth}
    matrix = pd.DataFrame(
        {
            judged: {
                row: metrics.rowwise_spearman(sims, scores)
                for row, sims in [*similarities.items(), (COMBINED, combined[judged])]
            }
            for judged, scores in truth.items()
        }
    )
    matrix.index.name = "embedding aspect"
    row = {
        f"spearman:{judged}": bootstrap.mean("abstracts", metrics.rowwise_spearmans(combined[judged], scores))
        for judged, scores in truth.items()
    }
    row |= {
        f"top{k}:{judged}": bootstrap.mean("abstracts", metrics.top_k_overlaps(combined[judged], scores, k))
        for judged, scores in truth.items()
    }
    return matrix, row


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
                task, _reciprocal_ranks(queries[aspect], candidates[aspect], embedded.similarity)
            )
            others = [a for a in queries if a != aspect]
            if others:
                per_query = np.mean(
                    [_reciprocal_ranks(queries[a], candidates[a], embedded.similarity) for a in others], axis=0
                )
                row[f"mrr_others:{aspect}"] = bootstrap.mean(task, per_query)
        elif len(queries) == 1:
            (vectors,) = queries.values()
            (candidate_vectors,) = candidates.values()
            row[f"mrr:{aspect}"] = bootstrap.mean(
                task, _reciprocal_ranks(vectors, candidate_vectors, embedded.similarity)
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
