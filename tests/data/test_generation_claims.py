"""Each unit is read from the shard that generated it last; invalidated units are hidden until generated again."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from semcse.core.data.generated import GeneratedDataError, Manifest, read_judgements, read_texts, write_generated

SETTINGS = {"task": "summaries", "model": "synthetic"}


def _texts(ids: list[str], version: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"id": i, "kind": "summary", "prompt_id": "p0", "sample": s, "text": f"{version} summary {s} of {i}"}
            for i in ids
            for s in range(2)
        ]
    )


def test_a_regenerated_unit_is_read_in_its_new_version_only(tmp_path: Path) -> None:
    out = tmp_path / "texts"
    write_generated(out, _texts(["a", "b", "c"], "old"), SETTINGS)
    write_generated(out, _texts(["b"], "new"), SETTINGS)
    texts = read_texts(out)
    assert len(texts) == 6 and not texts.duplicated(["id", "prompt_id", "sample"]).any()
    assert set(texts.loc[texts["id"] == "b", "text"].str.split().str[0]) == {"new"}
    assert set(texts.loc[texts["id"] != "b", "text"].str.split().str[0]) == {"old"}


def test_invalidated_units_are_not_finished_and_not_read(tmp_path: Path) -> None:
    out = tmp_path / "texts"
    write_generated(out, _texts(["a", "b", "c"], "old"), SETTINGS)
    key = next(iter(Manifest.load(out).claims))
    Manifest.load(out).invalidate(["b", "not-generated"])
    manifest = Manifest.load(out)  # the invalidation is in the log: it holds for every later reader
    assert set(manifest.finished_units(key)) == {"a", "c"}
    assert set(read_texts(out)["id"]) == {"a", "c"}
    write_generated(out, _texts(["b"], "new"), SETTINGS)
    texts = read_texts(out)
    assert len(texts) == 6 and set(texts.loc[texts["id"] == "b", "text"].str.split().str[0]) == {"new"}


def test_a_directory_whose_every_unit_was_invalidated_says_so(tmp_path: Path) -> None:
    out = tmp_path / "texts"
    write_generated(out, _texts(["a"], "old"), SETTINGS)
    Manifest.load(out).invalidate(["a"])
    with pytest.raises(GeneratedDataError, match="no finished shards"):
        read_texts(out)


def test_judgement_pairs_are_claimed_by_their_pair(tmp_path: Path) -> None:
    out = tmp_path / "judgements"
    pairs = pd.DataFrame({"a": ["x", "x"], "b": ["y", "z"], "aspect": ["m", "m"], "score": [1, 2]})
    write_generated(out, pairs.assign(unit=pairs["a"] + "\t" + pairs["b"]), {"task": "judgements"}, "unit")
    again = pairs.head(1).assign(score=5)
    write_generated(out, again.assign(unit=again["a"] + "\t" + again["b"]), {"task": "judgements"}, "unit")
    read = read_judgements(out).set_index("b")["score"].to_dict()
    assert read == {"y": 5, "z": 2}
