"""Duplicate papers: one paper under several ids, found by its normalised text, merged into the first of them.

An exact duplicate has the same title and abstract once markup, entities, case and punctuation are set aside; it
is merged into the first row with that text, and its id becomes an alias of that paper (`DUPLICATES`, beside the
validated corpus), which the search index resolves. A likely duplicate shares its normalised title or abstract with
an earlier paper and reads almost the same (`LIKELY_SIMILARITY`); it is listed, and merged only when
`corpus.merge_likely_duplicates` says so. A merged copy leaves the corpus, so it can sit in no other split.
"""

from __future__ import annotations

import html
import unicodedata
from difflib import SequenceMatcher
from pathlib import Path

import pandas as pd

from semcse.core import storage
from semcse.core.data.schema import ABSTRACT, ID, TITLE

DUPLICATES = "duplicates.parquet"
COLUMNS = ("id", "kept", "kind", "similarity", "merged")
LIKELY_SIMILARITY = 0.9
# a title shared by hundreds of papers ("Editorial") says nothing: each row is compared with this many earlier ones
MAX_COMPARED = 50


def normalised(text: pd.Series) -> pd.Series:
    """Text as duplicates are compared: entities decoded, tags and accents dropped, case folded, words only."""
    decoded = text.fillna("").astype(str).map(html.unescape).str.replace(r"<[^>]{0,40}>", " ", regex=True)
    folded = decoded.map(lambda s: unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().casefold())
    return folded.str.replace(r"[\W_]+", " ", regex=True).str.strip()


def find_duplicates(
    frame: pd.DataFrame, known: pd.DataFrame | None = None, merge_likely: bool = False
) -> pd.DataFrame:
    """The rows of `frame` that repeat an earlier paper (of `known`, then of `frame` in order): their id, the id of
    the paper they are merged into or resemble (`kept`), `kind` (exact / likely), `similarity` and `merged`.

    Papers of `known` (a corpus the rows are added to) are never merged away."""
    rows = pd.concat([known[[ID, TITLE, ABSTRACT]], frame[[ID, TITLE, ABSTRACT]]] if known is not None else [frame])
    ids = rows[ID].astype(str).tolist()
    own = len(ids) - len(frame)  # rows before this index belong to `known`
    title, abstract = normalised(rows[TITLE]).tolist(), normalised(rows[ABSTRACT]).tolist()
    words = [f"{t} {a}".split() for t, a in zip(title, abstract, strict=True)]  # compared word by word
    kept: dict[int, tuple[int, str, float]] = {}  # row → (row it repeats, kind, similarity)
    first: dict[tuple[str, str], int] = {}
    for row, key in enumerate(zip(title, abstract, strict=True)):
        if key in first and row >= own:
            kept[row] = (first[key], "exact", 1.0)
        first.setdefault(key, row)
    seen: dict[tuple[int, str], list[int]] = {}  # (field, normalised text) → earlier rows still standing
    for row in range(len(ids)):
        if row in kept:
            continue
        parts = [part for part in ((0, title[row]), (1, abstract[row])) if part[1]]
        # a known paper is only ever the earlier one, so it is compared with nothing
        for earlier in [e for part in parts for e in seen.get(part, [])] if row >= own else []:
            matcher = SequenceMatcher(None, words[row], words[earlier], autojunk=False)
            if matcher.quick_ratio() >= LIKELY_SIMILARITY and (similarity := matcher.ratio()) >= LIKELY_SIMILARITY:
                kept[row] = (earlier, "likely", similarity)
                break
        else:
            for part in parts:
                if len(bucket := seen.setdefault(part, [])) < MAX_COMPARED:
                    bucket.append(row)

    def root(row: int) -> int:  # a likely copy of a merged exact copy is merged into the paper both repeat
        while row in kept and (kept[row][1] == "exact" or merge_likely):
            row = kept[row][0]
        return row

    return duplicates_table(
        [
            (ids[row], ids[root(earlier)], kind, round(similarity, 4), kind == "exact" or merge_likely)
            for row, (earlier, kind, similarity) in sorted(kept.items())
        ]
    )


def duplicates_table(rows: list[tuple[str, str, str, float, bool]]) -> pd.DataFrame:
    """The duplicates contract (`COLUMNS`) from its rows, typed even when there are none."""
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype({"similarity": float, "merged": bool})


def duplicates_of(corpus: str | Path) -> str:
    """Where validation listed the duplicates of the validated corpus at `corpus` (its Parquet file)."""
    return storage.join(storage.parent(corpus), DUPLICATES)


def read_duplicates(path: str | Path) -> pd.DataFrame:
    """A duplicates table (`COLUMNS`); none when validation wrote none there (a corpus validated elsewhere)."""
    if not storage.is_file(path):
        return duplicates_table([])
    return storage.read_parquet(path).to_pandas()


def read_aliases(path: str | Path) -> dict[str, str]:
    """Every merged id of a duplicates table → the id of the paper it was merged into."""
    table = read_duplicates(path)
    merged = table[table["merged"]]
    return dict(zip(merged["id"].astype(str), merged["kept"].astype(str), strict=True))
