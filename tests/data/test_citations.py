"""Papers exported for reference managers: every format parses back, whatever the titles hold."""

from __future__ import annotations

import csv
import io

from semcse.core.data.citations import citations

PAPERS = [
    {
        "id": "inv-1",
        "title": "Enemy release {and} 50% of the {story}",
        "abstract": "Invasive plants escape\ntheir herbivores & pathogens.",
        "Authors": "Keane, R. M.; Crawley, M. J.",
        "year": 2002.0,
        "journal": "Trends in Ecology & Evolution",
        "doi": "10.1016/S0169-5347(02)02499-0",
    },
    {"id": "inv 2", "title": "No columns but these", "abstract": "A short abstract."},
]


def test_bibtex_entries_keep_their_braces_balanced_and_escape_tex() -> None:
    bib = citations(PAPERS, "bibtex")
    assert bib.count("@article{") == 2 and "@article{inv-1," in bib and "@article{inv_2," in bib
    for entry in bib.split("\n@"):
        unescaped = entry.replace("\\{", "").replace("\\}", "")
        assert unescaped.count("{") == unescaped.count("}"), entry
    assert "author = {Keane, R. M. and Crawley, M. J.}" in bib and "year = {2002}" in bib
    assert "journal = {Trends in Ecology \\& Evolution}" in bib and "50\\%" in bib


def test_ris_records_have_their_tags_and_end_each_line_with_crlf() -> None:
    ris = citations(PAPERS, "ris")
    records = ris.split("ER  - \r\n")
    assert len(records) == 3 and records[-1] == ""
    first = records[0].split("\r\n")
    assert first[0] == "TY  - JOUR" and "AU  - Keane, R. M." in first and "AU  - Crawley, M. J." in first
    assert "PY  - 2002" in first and "DO  - 10.1016/S0169-5347(02)02499-0" in first
    assert "AB  - Invasive plants escape their herbivores & pathogens." in first  # one line per tag
    assert "AU  - " not in records[1] and "TI  - No columns but these" in records[1]


def test_csv_has_every_column_of_every_paper() -> None:
    rows = list(csv.DictReader(io.StringIO(citations(PAPERS, "csv"))))
    assert [r["id"] for r in rows] == ["inv-1", "inv 2"]
    assert rows[0]["abstract"] == PAPERS[0]["abstract"] and rows[1]["Authors"] == ""
