"""Sentence splitting, deterministic splits and resumable shards."""

from __future__ import annotations

import collections

import pandas as pd
import pyarrow as pa
import pytest

from semcse.core.data.sentences import split_sentences
from semcse.core.data.shards import content_key, finished_keys, read_shards, write_shard
from semcse.core.data.split import split_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We study ants. They invade islands.", ["We study ants.", "They invade islands."]),
        (
            "Growth rose 2.5-fold (e.g. in Fig. 2). Next, we tested it.",
            ["Growth rose 2.5-fold (e.g. in Fig. 2).", "Next, we tested it."],
        ),
        ("As shown by Smith et al. The effect holds.", ["As shown by Smith et al. The effect holds."]),
        (
            "E. coli and P. falciparum were cultured. Results differ!",
            ["E. coli and P. falciparum were cultured.", "Results differ!"],
        ),
        ('He said "it works." Then it failed? Yes.', ['He said "it works."', "Then it failed?", "Yes."]),
        ("BACKGROUND: first part.\n\nMETHODS: second part", ["BACKGROUND: first part.", "METHODS: second part"]),
        ("", []),
    ],
)
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


def test_split_sentences_sample_corpus(sample_records):
    counts = [len(split_sentences(r["abstract"])) for r in sample_records]
    assert min(counts) >= 4 and max(counts) <= 7


@pytest.mark.realdata
def test_split_sentences_real_abstracts(shared_data):
    frame = pd.read_parquet(shared_data / "ohsumed.parquet", columns=["abstract"]).head(300)
    for abstract in frame["abstract"]:
        sentences = split_sentences(abstract)
        assert sentences, abstract[:80]
        assert " ".join(sentences).replace(" ", "") == " ".join(abstract.split()).replace(" ", "")
        assert all(not s.lower().endswith((" e.g.", " i.e.", " et al.", " fig.")) for s in sentences[:-1])
    lengths = [len(split_sentences(a)) for a in frame["abstract"]]
    assert sum(lengths) / len(lengths) > 4


def test_split_is_deterministic_and_proportional():
    ids = [f"paper-{i}" for i in range(20_000)]
    splits = [split_of(i, 0.1, 0.2) for i in ids]
    assert splits == [split_of(i, 0.1, 0.2) for i in ids]
    share = collections.Counter(splits)
    assert abs(share["val"] / len(ids) - 0.1) < 0.01 and abs(share["test"] / len(ids) - 0.2) < 0.01
    assert split_of("paper-1", 0.1, 0.2, seed="other") in {"train", "val", "test"}


def test_shards_resume(tmp_path):
    rows = [{"id": str(i)} for i in range(10)]
    key_a = content_key(rows[:5], {"model": "m"})
    assert key_a == content_key(rows[:5], {"model": "m"})
    assert key_a != content_key(rows[:5], {"model": "other"}) != content_key(rows[5:], {"model": "m"})
    write_shard(tmp_path, key_a, pa.Table.from_pylist(rows[:5]))
    assert finished_keys(tmp_path) == {key_a}
    (tmp_path / ".tmp-partial.parquet").write_bytes(b"half")
    assert finished_keys(tmp_path) == {key_a}
    key_b = content_key(rows[5:], {"model": "m"})
    write_shard(tmp_path, key_b, pa.Table.from_pylist(rows[5:]))
    assert read_shards(tmp_path, [key_a, key_b]).column("id").to_pylist() == [str(i) for i in range(10)]


def test_a_corpus_split_column_is_kept_and_validation_is_carved_from_its_train_rows():
    import numpy as np
    import pandas as pd

    from semcse.core.config import CorpusConfig
    from semcse.core.data.io import CorpusError
    from semcse.core.data.split import frame_splits

    ids = [f"p{i}" for i in range(2000)]
    given = ["test" if i % 3 == 0 else "train" for i in range(2000)]
    names = frame_splits(pd.DataFrame({"id": ids, "split": given}), CorpusConfig(val_fraction=0.1))
    assert ((names == "test") == (np.array(given) == "test")).all()  # the column's test rows, exactly
    carved = (names == "val").sum() / (np.array(given) == "train").sum()
    assert 0.07 < carved < 0.13 and not ((names == "val") & (np.array(given) == "test")).any()
    explicit = frame_splits(pd.DataFrame({"id": ids[:3], "split": ["Train", "validation", "dev"]}), CorpusConfig())
    assert list(explicit) == ["train", "val", "val"]
    assert list(frame_splits(pd.DataFrame({"id": ids[:50]}), CorpusConfig())) == [split_of(i) for i in ids[:50]]
    with pytest.raises(CorpusError, match=r"split column 'split' holds \['holdout'\]"):
        frame_splits(pd.DataFrame({"id": ids[:2], "split": ["train", "holdout"]}), CorpusConfig())
