"""Papers as a reference manager reads them: CSV, BibTeX and RIS, for a search's hits or a selection on the map.

A paper is a stored index record: id, title, abstract and whichever corpus columns it has. Columns a reference
needs are found by their usual names (`FIELDS`); a corpus without them still exports its titles and abstracts.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

Format = Literal["csv", "bibtex", "ris"]
MEDIA_TYPES: dict[Format, tuple[str, str]] = {
    "csv": ("text/csv; charset=utf-8", "csv"),
    "bibtex": ("application/x-bibtex; charset=utf-8", "bib"),
    "ris": ("application/x-research-info-systems; charset=utf-8", "ris"),
}
# a reference's field → the corpus column names that hold it, first match wins (compared case-insensitively)
FIELDS = {
    "authors": ("authors", "author"),
    "year": ("year", "publication_year", "pub_year"),
    "venue": ("venue", "journal", "journal_name", "booktitle"),
    "doi": ("doi",),
    "url": ("url", "link"),
}


def _field(paper: Mapping[str, Any], name: str) -> Any:
    columns = {str(key).lower(): value for key, value in paper.items()}
    return next((columns[c] for c in FIELDS[name] if columns.get(c) not in (None, "")), None)


def _authors(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [a.strip() for a in re.split(r";|\band\b", value) if a.strip()]
    return [str(a) for a in value]


def _year(value: Any) -> str | None:
    found = re.search(r"\d{4}", str(value)) if value is not None else None
    return found.group() if found else None


def _bibtex_text(value: Any) -> str:
    """Braces balanced and TeX's specials escaped, so that one odd title cannot break the file."""
    text = re.sub(r"([&%$#_])", r"\\\1", str(value)).replace("{", "\\{").replace("}", "\\}")
    return " ".join(text.split())


def _bibtex(papers: Sequence[Mapping[str, Any]]) -> str:
    entries, keys = [], set()
    for paper in papers:
        key = re.sub(r"[^\w:-]+", "_", str(paper["id"])).strip("_") or "paper"
        while key in keys:
            key += "_"
        keys.add(key)
        fields = {"title": paper.get("title"), "abstract": paper.get("abstract")}
        fields["author"] = " and ".join(_authors(_field(paper, "authors"))) or None
        fields |= {"year": _year(_field(paper, "year")), "journal": _field(paper, "venue")}
        fields |= {"doi": _field(paper, "doi"), "url": _field(paper, "url")}
        body = ",\n".join(f"  {name} = {{{_bibtex_text(v)}}}" for name, v in fields.items() if v not in (None, ""))
        entries.append(f"@article{{{key},\n{body}\n}}\n")
    return "\n".join(entries)


def _ris(papers: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for paper in papers:
        lines += ["TY  - JOUR", f"ID  - {paper['id']}", f"TI  - {' '.join(str(paper.get('title') or '').split())}"]
        lines += [f"AU  - {author}" for author in _authors(_field(paper, "authors"))]
        tags = {"PY": _year(_field(paper, "year")), "JO": _field(paper, "venue"), "DO": _field(paper, "doi")}
        tags |= {"UR": _field(paper, "url"), "AB": paper.get("abstract")}
        lines += [f"{tag}  - {' '.join(str(v).split())}" for tag, v in tags.items() if v not in (None, "")]
        lines.append("ER  - ")
    return "\r\n".join(lines) + "\r\n"  # the RIS specification ends every line with CR LF


def _csv(papers: Sequence[Mapping[str, Any]]) -> str:
    columns = ["id", "title", "abstract"]
    columns += [str(c) for paper in papers for c in paper if str(c) not in columns and not str(c).startswith("_")]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(dict.fromkeys(columns)), extrasaction="ignore")
    writer.writeheader()
    writer.writerows({k: "" if v is None else v for k, v in paper.items()} for paper in papers)
    return out.getvalue()


def citations(papers: Sequence[Mapping[str, Any]], fmt: Format) -> str:
    """The papers, in their order, as one file in `fmt`."""
    return {"csv": _csv, "bibtex": _bibtex, "ris": _ris}[fmt](papers)
