"""Row validation with quarantine, and the validate stage (`run_validation`) that applies it to a corpus.

Every row read either goes on (accepted) or into the rejects table with a `reason` (a short,
countable category) and a `detail` (what exactly was wrong), so that the counts always reconcile
and nothing is silently dropped. Checks are vectorised over pandas columns so a
100k-row corpus validates in seconds.

New rows for an existing corpus (`validate(..., against=corpus)`) are also checked against it: an
id the corpus already holds with the same title and abstract is *skipped* (counted, not added
again), the same id with another text is rejected as a conflict unless `replace` is set, in which
case it is accepted and listed as replacing the old paper.

A valid row that repeats an earlier paper (of the corpus, or of these rows) under another id is merged into it
(`data/duplicates.py`): counted, listed in `duplicates.parquet` with every likely duplicate, and resolved by the
search index. Then `in = accepted + merged + skipped + rejected`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from semcse.core import storage
from semcse.core.config import ConfigError, CorpusConfig, RunConfig
from semcse.core.data.duplicates import DUPLICATES, duplicates_of, duplicates_table, find_duplicates, read_duplicates
from semcse.core.data.io import BAD_UTF8, RawCorpus, read_corpus, read_raw, write_parquet
from semcse.core.data.schema import ABSTRACT, ID, REASON, TITLE

_CONTROL = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]"
_INTERNAL = ("__line", "__source", BAD_UTF8)


@dataclass
class ValidationCounts:
    """How `validate` counted the rows: total = accepted + merged + skipped + rejected, rejected = Σ reasons.

    `merged`: rows merged into an earlier paper they repeat, the `exact` duplicates and, when told to, the `likely`
    ones (which are counted whether or not they are merged).
    `skipped` (already in the corpus, unchanged) and `replaced` (accepted rows that replace a paper
    of the corpus) are only ever non-zero when rows are validated against an existing corpus.
    """

    sources: list[str]
    total: int
    accepted: int
    rejected: int
    reasons: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    replaced: int = 0
    merged: int = 0
    exact: int = 0
    likely: int = 0

    def equation(self) -> str:
        """The counts as one line: `in = accepted + merged + rejected: …`, likely duplicates after it."""
        line = (
            f"in = accepted + merged + rejected: {self.total:,} = {self.accepted:,} + {self.merged:,} + "
            f"{self.rejected:,}" + (f" {self.reasons}" if self.reasons else "")
        )
        unmerged = self.likely - (self.merged - self.exact)
        if unmerged:
            line += f"; {unmerged:,} likely duplicates kept (corpus.merge_likely_duplicates=true merges them)"
        return line

    def to_dict(self) -> dict[str, Any]:
        return {
            "sources": self.sources,
            "total": self.total,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "reasons": dict(self.reasons),
            "skipped": self.skipped,
            "replaced": self.replaced,
            "merged": self.merged,
            "exact": self.exact,
            "likely": self.likely,
        }


@dataclass
class ValidatedCorpus:
    accepted: pd.DataFrame
    rejects: pd.DataFrame
    report: ValidationCounts
    skipped: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    duplicates: pd.DataFrame = field(default_factory=lambda: duplicates_table([]))

    def write(self, out_dir: str | Path) -> dict[str, str]:
        """Write accepted rows, rejects, duplicates and the report under `out_dir` (a path or a storage URI)."""
        return {
            "accepted": write_parquet(self.accepted, storage.join(out_dir, "accepted.parquet")),
            "rejects": write_parquet(self.rejects, storage.join(out_dir, "rejects.parquet")),
            "duplicates": write_parquet(self.duplicates, storage.join(out_dir, DUPLICATES)),
            "report": storage.write_json(storage.join(out_dir, "report.json"), self.report.to_dict()),
        }


def merge_additions(corpus: pd.DataFrame, accepted: pd.DataFrame) -> pd.DataFrame:
    """`corpus` grown by accepted additions: papers they replace leave their place, new versions go last.

    Merging into a corpus that already holds these rows gives the same corpus, so a merge that was
    interrupted after its write can simply be done again.
    """
    kept = corpus[~corpus[ID].astype(str).isin(set(accepted[ID].astype(str)))]
    return pd.concat([kept, accepted], ignore_index=True)


def grow_corpus(path: str | Path, accepted: pd.DataFrame) -> int:
    """Merge accepted additions into the validated corpus at `path` (`merge_additions`); its size after.

    The file is written whole and renamed over the old one, so readers see the old corpus or the
    merged one, never a mix; a merge interrupted after its write is simply done again.
    """
    merged = merge_additions(read_corpus(path), accepted)
    write_parquet(merged, path)
    return len(merged)


def grow_duplicates(corpus: str | Path, duplicates: str | Path) -> int:
    """Add the duplicates an update found (the table at `duplicates`) to those of the validated corpus at `corpus`;
    how many ids are merged into its papers after. Done again after an interruption, it changes nothing."""
    path = duplicates_of(corpus)
    table = pd.concat([read_duplicates(path), read_duplicates(duplicates)], ignore_index=True)
    table = table.drop_duplicates("id", keep="last").reset_index(drop=True)
    write_parquet(table, path)
    return int(table["merged"].sum())


def _raw_record(row: pd.Series, extra: list[str]) -> str:
    record = {k: row[k] for k in (ID, TITLE, ABSTRACT, *extra)}
    return json.dumps(record, ensure_ascii=False, default=str)


def _clean(text: pd.Series) -> pd.Series:
    """Text as an accepted row stores it: control characters blanked, outer whitespace stripped."""
    return text.str.replace(_CONTROL, " ", regex=True).str.strip()


def validate(
    raw: RawCorpus, cfg: CorpusConfig, against: pd.DataFrame | None = None, replace: bool = False
) -> ValidatedCorpus:
    """Apply every row check in priority order; the first failing check names the reason.

    With `against` (a validated corpus) the rows are additions to it: see the module docstring.
    """
    frame = raw.frame
    reasons = pd.Series("", index=frame.index, dtype=object)
    details = pd.Series("", index=frame.index, dtype=object)
    skip = pd.Series(False, index=frame.index)
    replacing = pd.Series(False, index=frame.index)

    def flag(mask: pd.Series, reason: str, detail: pd.Series | str) -> None:
        mask = mask & (reasons == "")
        reasons[mask] = reason
        details[mask] = detail[mask] if isinstance(detail, pd.Series) else detail

    if len(frame):
        ids = frame[ID].str.strip()
        title, abstract = frame[TITLE], frame[ABSTRACT]
        text = title + " " + abstract
        flag(frame[BAD_UTF8].astype(bool), "invalid UTF-8", "undecodable bytes (shown as \\xNN in raw)")
        flag(ids == "", "missing id", "the id column is empty")
        empty_title, empty_abstract = title.str.strip() == "", abstract.str.strip() == ""
        flag(empty_title & empty_abstract, "empty text", "both title and abstract are empty")
        if cfg.require_abstract:
            flag(
                empty_abstract, "empty abstract", "the abstract is empty (set corpus.require_abstract=false to allow)"
            )
        controls = text.str.count(_CONTROL)
        garbage = (controls > 0) & (
            text.str.contains("\x00") | (controls > cfg.max_control_char_fraction * text.str.len())
        )
        flag(garbage, "control characters", controls.astype(str) + " control characters")
        length = abstract.str.len()
        flag(
            ~empty_abstract & (length < cfg.min_abstract_chars),
            "abstract too short",
            length.astype(str) + f" chars < min {cfg.min_abstract_chars}",
        )
        flag(
            length > cfg.max_abstract_chars,
            "abstract too long",
            length.astype(str) + f" chars > max {cfg.max_abstract_chars}",
        )
        still_valid = ids.where(reasons == "")
        flag(
            still_valid.notna() & still_valid.duplicated(keep="first"),
            "duplicate id",
            "an earlier row has the same id",
        )
        frame = frame.assign(**{ID: ids})
        if against is not None:
            known = against.assign(**{ID: against[ID].astype(str)}).set_index(ID)
            present = (reasons == "") & ids.isin(known.index)
            old = known.reindex(ids.where(present))
            same = (_clean(title).to_numpy() == old[TITLE].to_numpy()) & (
                _clean(abstract).to_numpy() == old[ABSTRACT].to_numpy()
            )
            skip = present & same
            conflict = present & ~same
            if replace:
                replacing = conflict
            else:
                flag(
                    conflict,
                    "conflicting id",
                    "the corpus already holds this id with another title or abstract (--replace replaces it)",
                )

    ok = (reasons == "") & ~skip
    extra = [c for c in frame.columns if c not in (ID, TITLE, ABSTRACT, *_INTERNAL)]
    accepted = frame.loc[ok].drop(columns=[c for c in _INTERNAL if c in frame.columns]).reset_index(drop=True)
    if len(accepted):
        for column in (TITLE, ABSTRACT):
            accepted[column] = _clean(accepted[column])
    # a replacing row's old version leaves the corpus, so it is no paper to merge into; the new version (the user's
    # explicit choice) stays, so later rows may merge into it
    replaced = frame.loc[replacing & ok, ID].tolist() if len(frame) else []
    standing = None
    if against is not None:
        old_versions = against[~against[ID].astype(str).isin(replaced)]
        standing = pd.concat([old_versions, accepted[accepted[ID].isin(replaced)]], ignore_index=True)
    candidates = accepted[~accepted[ID].isin(replaced)]
    duplicates = find_duplicates(candidates, standing, cfg.merge_likely_duplicates)
    merged = set(duplicates.loc[duplicates["merged"], "id"])
    accepted = accepted[~accepted[ID].isin(merged)].reset_index(drop=True)
    rejected = reasons != ""
    rejected_rows = frame.loc[rejected]
    rejects = pd.DataFrame(
        {
            "source": rejected_rows.get("__source", pd.Series(dtype=object)).astype(str).tolist(),
            "line": rejected_rows.get("__line", pd.Series(dtype=np.int64)).astype(np.int64).tolist(),
            REASON: reasons[rejected].tolist(),
            "detail": details[rejected].tolist(),
            ID: rejected_rows.get(ID, pd.Series(dtype=object)).astype(str).tolist(),
            "raw": [_raw_record(r, extra) for _, r in rejected_rows.iterrows()],
        }
    )
    if raw.broken:
        broken = pd.DataFrame(
            {
                "source": [b["source"] for b in raw.broken],
                "line": [b["line"] for b in raw.broken],
                REASON: [b["reason"] for b in raw.broken],
                "detail": [b["detail"] for b in raw.broken],
                ID: [""] * len(raw.broken),
                "raw": [b["raw"] for b in raw.broken],
            }
        )
        rejects = pd.concat([rejects, broken], ignore_index=True)
    skipped = frame.loc[skip, ID].tolist() if len(frame) else []
    report = ValidationCounts(
        sources=raw.sources,
        total=raw.total,
        accepted=len(accepted),
        rejected=len(rejects),
        reasons=dict(Counter(rejects[REASON]).most_common()),
        skipped=len(skipped),
        replaced=len(replaced),
        merged=len(merged),
        exact=int((duplicates["kind"] == "exact").sum()),
        likely=int((duplicates["kind"] == "likely").sum()),
    )
    return ValidatedCorpus(accepted, rejects, report, skipped=skipped, replaced=replaced, duplicates=duplicates)


@dataclass
class ValidationReport:
    """What the validate stage did: its counts, where accepted rows, rejects and report.json went, its MLflow run."""

    source: str
    counts: ValidationCounts
    accepted: str
    rejects: str
    duplicates: str
    report: str
    run_id: str | None


def run_validation(cfg: RunConfig, out: str | Path | None = None) -> ValidationReport:
    """The validate stage: read `corpus.path` with the corpus settings, check every row, write the outcome
    under `out` (accepted.parquet, rejects.parquet, report.json) and log the counts to MLflow.

    Without `out`, the outcome goes to `<run_dir>/corpus/<the corpus's name>`, so validating two corpora
    in one run directory keeps both."""
    from semcse.core.tracking import Tracker

    source = cfg.corpus.path
    if not source:
        raise ConfigError("corpus.path is not set: there is no corpus to validate")
    out = out or storage.join(cfg.run_dir, "corpus", storage.basename(source).split(".")[0])
    for location in (source, out):
        storage.check_access(location)  # a bucket without credentials is one message, not a pyarrow error
    result = validate(read_raw(source, cfg.corpus), cfg.corpus)
    paths = result.write(out)
    counts = result.report
    with Tracker.start(cfg.tracking, run_name="corpus-validate", tags={"stage": "corpus"}) as tracker:
        tracker.log_params({"corpus.path": str(source), **cfg.corpus.model_dump()})
        tracker.log_metrics(
            {"rows_in": counts.total, "rows_accepted": counts.accepted, "rows_rejected": counts.rejected}
            | {"rows_merged": counts.merged, "likely_duplicates": counts.likely}
            | {f"rejected.{reason.replace(' ', '_')}": n for reason, n in counts.reasons.items()}
        )
        tracker.log_artifact(paths["report"])
    return ValidationReport(
        str(source), counts, paths["accepted"], paths["rejects"], paths["duplicates"], paths["report"], tracker.run_id
    )
