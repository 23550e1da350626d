"""What the suites read: corpora with labels and splits, text sets, generated texts and judgements.

Every reader fails with an `EvaluationDataError` that names the file, the column and the rows at
fault, because an evaluation silently run on the wrong rows is worse than none.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from semcse.core.config import RunConfig, with_overrides
from semcse.core.data.generated import read_texts
from semcse.core.data.io import read_corpus
from semcse.core.data.sentences import split_sentences
from semcse.core.data.split import frame_splits, unit_hash


class EvaluationDataError(ValueError):
    """Evaluation input that cannot be used as asked (missing labels, unknown ids, bad judgement files)."""


def load_corpus(path: str | Path, cfg: RunConfig) -> pd.DataFrame:
    """The corpus with canonical `id`, `title`, `abstract` columns (extra columns kept)."""
    frame = read_corpus(path, cfg.corpus)
    duplicated = frame["id"][frame["id"].duplicated()]
    if len(duplicated):
        raise EvaluationDataError(f"{path}: duplicate ids, e.g. {duplicated.iloc[0]!r}; validate the corpus first")
    return frame.reset_index(drop=True)


def label_column(frame: pd.DataFrame, cfg: RunConfig, required: bool, source: str | Path) -> str | None:
    """evaluation.label_col, else corpus.label_col, else `label` when present; missing labels are an error."""
    column = cfg.evaluation.label_col or cfg.corpus.label_col or ("label" if "label" in frame.columns else None)
    if column is None:
        if required:
            raise EvaluationDataError(
                f"{source}: missing labels: no label column (columns are {list(frame.columns)}); "
                "name it with --set evaluation.label_col=COLUMN"
            )
        return None
    if column not in frame.columns:
        raise EvaluationDataError(f"{source}: missing labels: label column {column!r} not in {list(frame.columns)}")
    empty = frame[column].isna() | (frame[column].astype(str).str.strip() == "")
    if empty.any():
        raise EvaluationDataError(
            f"{source}: missing labels: {int(empty.sum())} of {len(frame)} rows have no {column!r}, "
            f"e.g. id {frame['id'][empty].iloc[0]!r}"
        )
    return column


def scoring_config(cfg: RunConfig, corpus_split: str | None = None) -> RunConfig:
    """The run config a suite scores with: on the training corpus, its `corpus_split` (else the run's
    `evaluation.split`); separate `evaluation.data`, which no model trained on, whole unless the run chose a split."""
    if not cfg.evaluation.data:
        return cfg if corpus_split is None else with_overrides(cfg, {"evaluation.split": corpus_split})
    if "split" in cfg.evaluation.model_fields_set:
        return cfg
    return with_overrides(cfg, {"evaluation.split": "all"})


def split_rows(frame: pd.DataFrame, cfg: RunConfig, split: str = "test") -> np.ndarray:
    """Rows of one split, by the rule training uses (`data.split.frame_splits`: the corpus's split column,
    else the hash split), so the test rows are exactly the papers a model trained on this corpus never saw."""
    return (frame_splits(frame, cfg.corpus) == split).to_numpy()


def query_rows(frame: pd.DataFrame, cfg: RunConfig) -> tuple[np.ndarray, np.ndarray]:
    """(queries, references) for kNN and clustering: test papers against the rest, the papers' protocol.

    With `evaluation.split=val` (tuning) the validation papers query the training papers and the
    test split is left out entirely, so choosing between trials never looks at it. With `all` (data no
    model trained on) every paper queries every other (`knn.reference_neighbours` leaves each one out).
    """
    if cfg.evaluation.split == "all":
        everything = np.ones(len(frame), dtype=bool)
        return everything, everything
    if cfg.evaluation.split == "val":
        queries, references = split_rows(frame, cfg, "val"), split_rows(frame, cfg, "train")
    else:
        queries = split_rows(frame, cfg, "test")
        references = ~queries
    if not queries.any() or not references.any():
        raise EvaluationDataError(
            f"need both query ({'val' if cfg.evaluation.split == 'val' else 'test'}) and reference rows for kNN, "
            f"got {int(queries.sum())} queries and {int(references.sum())} references of {len(frame)}"
        )
    return queries, references


def evaluated_rows(frame: pd.DataFrame, cfg: RunConfig, source: str | Path) -> tuple[pd.DataFrame, str]:
    """The rows a suite may score, and a note saying which: `evaluation.split` (default: the test split).

    A model trained on this corpus saw its training abstracts, so scoring it on them flatters it;
    `val` is for choosing between models (tuning) without touching the test split, `all` for
    separate evaluation data that no model was trained on.
    """
    split = cfg.evaluation.split
    if split == "all":
        return frame, f"all {len(frame):,} rows of {source} (evaluation.split=all: data no model trained on)"
    mask = split_rows(frame, cfg, split)
    if not mask.any():
        raise EvaluationDataError(
            f"{source}: no {split}-split rows among {len(frame):,} (corpus.val_fraction={cfg.corpus.val_fraction}, "
            f"test_fraction={cfg.corpus.test_fraction}); for separate evaluation data set evaluation.split=all"
        )
    return frame[mask].reset_index(drop=True), f"{split} split: {int(mask.sum()):,} of {len(frame):,} rows of {source}"


def sample_ids(ids: pd.Series, limit: int | None, seed: str = "semcse-eval") -> np.ndarray:
    """Boolean mask keeping at most `limit` rows, chosen by a stable hash of the id (same rows every run)."""
    if limit is None or len(ids) <= limit:
        return np.ones(len(ids), dtype=bool)
    keys = np.array([unit_hash(str(i), seed) for i in ids])
    return keys <= np.sort(keys)[limit - 1]


def halves(abstract: str) -> tuple[str, str]:
    """First and second half of an abstract by sentences (by words when it has a single sentence)."""
    sentences = split_sentences(abstract)
    if len(sentences) < 2:
        words = abstract.split()
        middle = len(words) // 2
        return " ".join(words[:middle]), " ".join(words[middle:])
    middle = len(sentences) // 2
    return " ".join(sentences[:middle]), " ".join(sentences[middle:])


def text_set(ids: pd.Series | list[str], texts: pd.Series | list[str]) -> pd.DataFrame:
    """A frame of (id, text) with empty texts dropped: the unit `embed_sets` embeds."""
    frame = pd.DataFrame({"id": list(map(str, ids)), "text": [str(t) if t is not None else "" for t in texts]})
    return frame[frame["text"].str.strip() != ""].reset_index(drop=True)


def queries_from(frame: pd.DataFrame, cfg: RunConfig, source: str | Path) -> pd.DataFrame | None:
    """(id, text) of one query per paper: generated `kind='query'` texts, or a text column (e.g. `tldr`)."""
    if cfg.evaluation.query_col:
        column = cfg.evaluation.query_col
        if column not in frame.columns:
            raise EvaluationDataError(f"{source}: query column {column!r} not in {list(frame.columns)}")
        return text_set(frame["id"], frame[column].fillna(""))
    if cfg.evaluation.texts:
        texts = read_texts(cfg.evaluation.texts, cfg.generation.combine_settings)
        queries = texts[texts["kind"] == "query"].sort_values(["id", "sample"] if "sample" in texts else ["id"])
        queries = queries.drop_duplicates("id")
        return text_set(queries["id"], queries["text"]) if len(queries) else None
    return None


@dataclass(frozen=True)
class JudgedPairs:
    """One judged aspect's scores over the evaluated ids, as entries: each judged pair in both directions
    (`rows[i]` judged against `partners[i]` with `scores[i]`), a pair judged twice averaged.

    Memory is O(judged pairs): an [n, n] matrix of scores needs 11.6 GB in float64 at 38k abstracts.
    """

    rows: np.ndarray
    partners: np.ndarray
    scores: np.ndarray


def judged_pairs(pairs: pd.DataFrame, ids: list[str], source: str | Path) -> JudgedPairs:
    """`JudgedPairs` of (a, b, score) rows over `ids`; a judged id not among them is an error."""
    position = {key: i for i, key in enumerate(ids)}
    unknown = sorted(set(pairs["a"]).union(pairs["b"]) - set(position))
    if unknown:
        raise EvaluationDataError(
            f"{source}: mismatched ids: {len(unknown)} judged id(s) are not in the evaluated texts, e.g. {unknown[:3]}"
        )
    a = pairs["a"].map(position).to_numpy(dtype=np.int64)
    b = pairs["b"].map(position).to_numpy(dtype=np.int64)
    scores = pairs["score"].to_numpy(dtype=np.float64)
    apart = a != b
    entries = pd.DataFrame(
        {
            "row": np.concatenate([a[apart], b[apart]]),
            "partner": np.concatenate([b[apart], a[apart]]),
            "score": np.concatenate([scores[apart], scores[apart]]),
        }
    )
    mean = entries.groupby(["row", "partner"], sort=True)["score"].mean()
    return JudgedPairs(
        mean.index.get_level_values("row").to_numpy(dtype=np.int64),
        mean.index.get_level_values("partner").to_numpy(dtype=np.int64),
        mean.to_numpy(dtype=np.float64),
    )


def read_pairwise(
    path: str | Path, judged_aspects: dict[str, str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Judgement files in the `pairwise/` format: `<prefix>_samples.json` + `<prefix>_pairs.jsonl`.

    `path` is the directory (every prefix in it), a prefix, or one of the two files. Each prefix's
    judged aspect is named, never guessed from the file name (`medical_patient_group` would read as
    `group`): by `<prefix>_meta.json` (`{"aspect": "patient_group"}`) next to the files, else by
    `judged_aspects` ({prefix: aspect}, e.g. `{"medical_methodology": "methodology"}`). Returns the
    abstracts (id, text), judgements (a, b, aspect, score) and the samples' example summaries
    (id, kind, text), which serve as the aspect summaries for summary-retrieval MRR.
    """
    path = Path(path)
    if path.is_dir():
        prefixes = sorted(p.with_name(p.name[: -len("_pairs.jsonl")]) for p in path.glob("*_pairs.jsonl"))
    else:
        name = path.name
        for suffix in ("_samples.json", "_pairs.jsonl", "_meta.json", "_*"):
            name = name.removesuffix(suffix)
        prefixes = [path.with_name(name)]
    if not prefixes:
        raise EvaluationDataError(f"{path}: no *_pairs.jsonl judgement files")
    texts, judged, summaries = [], [], []
    for prefix in prefixes:
        samples_file = prefix.with_name(prefix.name + "_samples.json")
        pairs_file = prefix.with_name(prefix.name + "_pairs.jsonl")
        for required in (samples_file, pairs_file):
            if not required.is_file():
                raise EvaluationDataError(f"judgements in the pairwise format need {required}, which does not exist")
        aspect = judged_aspect(prefix, judged_aspects or {})
        samples = json.loads(samples_file.read_text(encoding="utf-8"))
        for key, sample in samples.items():
            texts.append({"id": str(key), "text": sample["abstract"]})
            for sentence in _meta(sample).get("sample_sentences", []):
                summaries.append({"id": str(key), "kind": f"aspect:{aspect}", "text": sentence})
        pairs = pd.read_json(pairs_file, lines=True, dtype={"a": str, "b": str})
        judged.append(pairs.assign(aspect=aspect, a=pairs["a"].astype(str), b=pairs["b"].astype(str)))
    abstracts = pd.DataFrame(texts).drop_duplicates("id").reset_index(drop=True)
    return abstracts, pd.concat(judged, ignore_index=True), pd.DataFrame(summaries, columns=["id", "kind", "text"])


def judged_aspect(prefix: Path, judged_aspects: dict[str, str]) -> str:
    """The aspect one prefix's judgements are about: its `_meta.json`, else `evaluation.judged_aspects`."""
    meta_file = prefix.with_name(prefix.name + "_meta.json")
    if meta_file.is_file():
        try:
            aspect = json.loads(meta_file.read_text(encoding="utf-8")).get("aspect")
        except (json.JSONDecodeError, AttributeError) as exc:
            raise EvaluationDataError(f"{meta_file}: not a JSON object with an 'aspect' name ({exc})") from None
        if not isinstance(aspect, str) or not aspect.strip():
            raise EvaluationDataError(f"{meta_file}: needs a non-empty 'aspect' name, got {aspect!r}")
        return aspect.strip()
    if prefix.name in judged_aspects:
        return judged_aspects[prefix.name]
    raise EvaluationDataError(
        f"{prefix.name}: which aspect do these judgements rate? Write {meta_file.name} with "
        f'{{"aspect": "NAME"}} next to them, or pass --set evaluation.judged_aspects.{prefix.name}=NAME'
    )


def _meta(sample: dict[str, Any]) -> dict[str, Any]:
    """The samples' `meta` field is a Python-literal string in the shipped files, or a mapping."""
    import ast

    meta = sample.get("meta") or {}
    if isinstance(meta, str):
        try:
            meta = ast.literal_eval(meta)
        except (ValueError, SyntaxError):
            return {}
    return meta if isinstance(meta, dict) else {}
