"""search, decode and map over real HTTP, with tiny models; plus the index-build CLI."""

from __future__ import annotations

import io
import re
from pathlib import Path

import httpx
import numpy as np
import pandas as pd
import pytest

from tests.paths import REPO

STATIC = REPO / "semcse" / "apps" / "static"


def test_search_by_text_and_by_id(apps: dict[str, str], client: httpx.Client, sample_records: list[dict]) -> None:
    first = sample_records[0]
    by_text = client.post(apps["search"], json={"query": f"{first['title']} {first['abstract']}", "k": 5}).json()
    hits = by_text["results"]
    assert len(hits) == 5 and hits[0]["id"] == first["id"]
    assert set(hits[0]) == {"id", "title", "snippet", "score", "distances", "similarities"}
    assert set(hits[0]["distances"]) == set(hits[0]["similarities"]) == {""}
    assert hits[0]["snippet"].removeprefix("… ").removesuffix(" …") in first["abstract"]
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    by_id = client.post(apps["search"], json={"id": first["id"], "k": 3, "weights": {"": 1.0}}).json()["results"]
    assert len(by_id) == 3 and first["id"] not in {h["id"] for h in by_id}
    topic = {r["id"]: r["topic"] for r in sample_records}
    where = {"column": "topic", "values": [topic[by_id[-1]["id"]]]}
    kept = client.post(apps["search"], json={"id": first["id"], "k": 3, "filter": where}).json()["results"]
    assert kept and all(topic[h["id"]] == where["values"][0] for h in kept)
    assert httpx.get(f"{apps['search']}/health").json()["papers"] == len(sample_records)


def test_papers_to_read_and_to_colour_by(apps: dict[str, str], client: httpx.Client, sample_records: list[dict]):
    listing = client.get(f"{apps['search']}/papers").json()
    assert listing["ids"] == [r["id"] for r in sample_records]
    assert listing["titles"] == [r["title"] for r in sample_records]
    topic = listing["columns"]["topic"]  # every stored corpus column but the abstract
    assert set(listing["columns"]) == {"topic"} and topic["kind"] == "category" and not topic["other"]
    assert [topic["categories"][code] for code in topic["codes"]] == [r["topic"] for r in sample_records]

    record = sample_records[1]
    paper = client.get(f"{apps['search']}/papers/{record['id']}").json()
    assert (paper["id"], paper["title"], paper["abstract"]) == (record["id"], record["title"], record["abstract"])
    assert paper["columns"] == {"topic": record["topic"]}
    # from the run's generated texts: summaries first, then the aspect summaries that applied
    assert list(paper["summaries"]) == ["summary", "aspect:methods"] and len(paper["summaries"]["summary"]) == 4
    not_applicable = client.get(f"{apps['search']}/papers/{sample_records[0]['id']}").json()
    assert list(not_applicable["summaries"]) == ["summary"]
    assert client.get(f"{apps['search']}/health").json()["summaries"] is True

    missing = client.get(f"{apps['search']}/papers/no-such-paper")
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == "unknown paper id 'no-such-paper': it is not in this index"


def test_hits_export_for_a_reference_manager(apps: dict[str, str], client: httpx.Client, sample_records: list[dict]):
    ids = [r["id"] for r in sample_records[:3]]
    bib = client.post(f"{apps['search']}/export", json={"ids": ids, "format": "bibtex"})
    assert bib.status_code == 200 and bib.headers["content-type"].startswith("application/x-bibtex")
    assert bib.headers["content-disposition"] == 'attachment; filename="papers.bib"'
    assert bib.text.count("@article{") == 3 and f"@article{{{ids[0]}," in bib.text
    ris = client.post(f"{apps['search']}/export", json={"ids": ids[:1], "format": "ris"}).text
    assert ris.startswith("TY  - JOUR\r\n") and f"TI  - {sample_records[0]['title']}\r\n" in ris
    rows = pd.read_csv(io.StringIO(client.post(f"{apps['search']}/export", json={"ids": ids, "format": "csv"}).text))
    assert rows["id"].tolist() == ids and rows["topic"].tolist() == [r["topic"] for r in sample_records[:3]]
    unknown = client.post(f"{apps['search']}/export", json={"ids": ["nope"], "format": "csv"})
    assert unknown.status_code == 400 and "unknown paper id 'nope'" in unknown.json()["error"]["message"]
    assert client.post(f"{apps['search']}/export", json={"ids": ids, "format": "docx"}).status_code == 422


def test_snippets_start_at_the_sentence_that_matches_and_columns_colour_by_their_commonest_values() -> None:
    from semcse.apps.search import MAX_CATEGORIES, column_for_colour, snippet

    abstract = "Reefs are declining. Heat stress bleaches corals. We measured it in 2020. It matters."
    assert (
        snippet(abstract, "coral bleaching under heat")
        == "… Heat stress bleaches corals. We measured it in 2020. It matters."
    )
    assert snippet(abstract, None, width=40) == "Reefs are declining. Heat stress …"
    assert snippet("", "anything") == ""
    values = pd.Series([f"journal {i % 30}" for i in range(300)] + [None])
    column = column_for_colour(values)
    assert column["other"] and len(column["categories"]) == MAX_CATEGORIES + 1 and column["categories"][-1] == "other"
    assert column["codes"][-1] == -1 and sorted(set(column["codes"][:-1])) == list(range(MAX_CATEGORIES + 1))
    years = column_for_colour(pd.Series([2001, None, 2003], dtype="Int64"))
    assert years == {"kind": "number", "values": [2001.0, None, 2003.0]}


@pytest.mark.parametrize(
    ("payload", "status", "words"),
    [
        ({"k": 3}, 422, "exactly one"),
        ({"query": "x", "id": "y"}, 422, "exactly one"),
        ({"id": "no-such-paper"}, 400, "unknown paper id"),
        ({"query": "x", "k": 500}, 400, "limit"),
        ({"query": "x", "weights": {"species": 1}}, 400, "unknown aspect"),
        ({"query": "x", "weights": {"": -1}}, 400, "non-negative"),
        ({"query": "x", "filter": {"column": "year", "min": 2000}}, 400, "no column 'year' to filter by"),
        ({"query": "x", "filter": {"column": "topic", "min": 2000}}, 400, "holds no numbers"),
        ({"query": "x", "filter": {"column": "topic"}}, 422, "either `min` and/or `max`"),
        ({"query": "x", "filter": {"column": "topic", "min": 3, "max": 1}}, 422, "min (3) is above its max (1)"),
    ],
)
def test_bad_search_requests(apps, client, payload, status, words) -> None:
    response = client.post(apps["search"], json=payload)
    assert response.status_code == status, response.text
    assert words in response.json()["error"]["message"]


def test_decode_and_dimension_mismatch(apps: dict[str, str], client: httpx.Client, tiny_encoder_dir: Path) -> None:
    from semcse.models.encoder import TextEncoder

    vector = TextEncoder.load(tiny_encoder_dir).encode(["coral reefs"])[0].tolist()
    decoded = client.post(apps["decode"], json={"embedding": vector}).json()
    assert decoded["aspect"] == "" and isinstance(decoded["text"], str)
    wrong = client.post(apps["decode"], json={"embedding": vector + [0.0]})
    assert wrong.status_code == 400 and "dimension" in wrong.json()["error"]["message"]
    unknown = client.post(apps["decode"], json={"embedding": vector, "aspect": "species"})
    assert unknown.status_code == 400 and "no decoder" in unknown.json()["error"]["message"]
    assert client.post(apps["decode"], json={"embedding": []}).status_code == 422
    assert httpx.post(apps["decode"], json={"embedding": vector}, timeout=30).status_code == 401


def test_the_explorer_page_and_its_files(apps: dict[str, str], client: httpx.Client) -> None:
    page = client.get(f"{apps['map']}/")
    assert page.status_code == 200 and "<canvas" in page.text
    assert page.headers["cache-control"] == "no-cache"  # asked again on every load: it names the files' version
    assert '<meta name="semcse-search" content="/search">' in page.text  # the default route of the search app
    assert not re.search(r"(src|href)=\"(https?:)?//", page.text)  # nothing from another origin
    linked = re.findall(r'(?:src|href)="(static/[^"]+)"', page.text)  # relative: the app's route comes first
    files = sorted(["explorer.css", *(path.name for path in STATIC.glob("*.js"))])
    assert sorted(path.rsplit("/", 1)[1] for path in linked) == files  # the entry; the modules it imports, preloaded
    version = linked[0].split("/")[1]
    kinds = {"explorer.css": "text/css", "explorer.js": "text/javascript", "state.js": "text/javascript"}
    for name, kind in kinds.items():
        served = client.get(f"{apps['map']}/static/{version}/{name}")
        assert served.status_code == 200 and served.headers["content-type"] == f"{kind}; charset=utf-8"
        assert served.headers["cache-control"] == "public, max-age=31536000, immutable"  # a new version, a new URL
    for missing in ["0000/explorer.js", *(f"{version}/{name}" for name in ["explorer.html", "package.json", "x.js"])]:
        refused = client.get(f"{apps['map']}/static/{missing}")
        assert refused.status_code == 404 and "reload the page" in refused.json()["error"]["message"]
    bare = client.get(apps["map"], params={"x": "1"})  # the route without its slash: to the page, whose URLs need it
    assert bare.status_code == 307 and bare.headers["location"] == f"{apps['map'].rsplit('/', 1)[1]}/?x=1"


def test_map_api(apps: dict[str, str], client: httpx.Client, sample_records: list[dict]) -> None:
    saved = client.get(f"{apps['map']}/points").json()
    assert len(saved["ids"]) == len(saved["x"]) == len(saved["y"]) == len(sample_records) and saved["aspects"] == [""]
    assert set(saved["labels"]) == {r["topic"] for r in sample_records}
    coords = np.array([saved["x"], saved["y"]]).T
    relaid = client.post(f"{apps['map']}/layout", json={"weights": {"": 0.5}}).json()
    assert relaid["ids"] == saved["ids"] and len(relaid["x"]) == len(coords)
    first = sample_records[0]  # the map embedded "title abstract": the same text lands on its own point
    placed = client.post(f"{apps['map']}/place", json={"text": f"{first['title']} {first['abstract']}"}).json()
    distances = np.linalg.norm(coords - [placed["x"], placed["y"]], axis=1)
    assert saved["ids"][int(np.argmin(distances))] == first["id"]
    spacing = np.median(np.sort(np.linalg.norm(coords[:, None] - coords[None], axis=2), axis=1)[:, 1])
    assert distances.min() < spacing, "nearer its own point than map points typically are to their nearest"
    centre = coords.mean(0)
    explained = client.post(f"{apps['map']}/explain", json={"x": centre[0], "y": centre[1]}).json()
    assert set(explained["texts"]) == {""}
    far = client.post(f"{apps['map']}/explain", json={"x": 1e6, "y": 0})
    assert far.status_code == 400 and "outside the map" in far.json()["error"]["message"]
    bad = client.post(f"{apps['map']}/layout", json={"weights": {"species": 1}})
    assert bad.status_code == 400 and "unknown aspect" in bad.json()["error"]["message"]


def test_a_map_without_a_decoder_serves_and_says_why_explain_is_off(apps: dict[str, str], client: httpx.Client):
    health = client.get(f"{apps['bare-map']}/health").json()
    assert health["explain"] is False and "semcse train-decoder" in health["explain_disabled"]
    assert len(client.get(f"{apps['bare-map']}/points").json()["ids"]) > 0
    response = client.post(f"{apps['bare-map']}/explain", json={"x": 0.0, "y": 0.0})
    assert response.status_code == 503 and "explain is disabled" in response.json()["error"]["message"]
