"""Pair building and sampling for every mode, on the sample corpus and synthetic texts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semcse.config import PositiveMix, TrainingConfig
from semcse.data.positives import PairSampler, build_pair_rows, crops
from tests.fixtures.training import synthetic_texts


@pytest.fixture(scope="module")
def corpus(sample_records) -> pd.DataFrame:
    return pd.DataFrame(sample_records)


@pytest.fixture(scope="module")
def texts(sample_records) -> pd.DataFrame:
    return pd.DataFrame(synthetic_texts(sample_records))


def draw(mode: str, rows: pd.DataFrame, mix: PositiveMix | None = None, seed: int = 0) -> tuple[list, list]:
    return PairSampler(mode, mix).sample(rows.to_dict("list"), np.random.default_rng(seed))


def test_crops_discard_short_and_long_sentences() -> None:
    long, short = "L" * 260 + ".", "Short one."
    kept = [f"Sentence {i} " + "x" * 120 + "." for i in range(3)]
    abstract = " ".join([kept[0], short, kept[1], long, kept[2]])
    assert crops(abstract, 2, 100, 250) == [f"{kept[0]} {kept[1]}", f"{kept[1]} {kept[2]}"]


@pytest.mark.parametrize("mode", ["crops", "summaries", "aspect:methods"])
def test_distinct_modes_pair_two_different_texts_of_one_abstract(mode, corpus, texts) -> None:
    rows = build_pair_rows(mode, corpus, texts, TrainingConfig(pairs=mode))
    anchors, positives = draw(mode, rows)
    for anchor, positive, pool in zip(anchors, positives, rows["texts"]):
        assert anchor != positive and anchor in pool and positive in pool


@pytest.mark.parametrize("mode", ["dropout", "same-input"])
def test_same_modes_pair_a_text_with_itself(mode, corpus, texts) -> None:
    rows = build_pair_rows(mode, corpus, texts, TrainingConfig(pairs=mode))
    anchors, positives = draw(mode, rows)
    assert anchors == positives


def test_aspect_mode_keeps_only_abstracts_with_two_applicable_texts(corpus, texts) -> None:
    rows = build_pair_rows("aspect:methods", corpus, texts, TrainingConfig(pairs="aspect:methods"))
    assert len(rows) == 30  # every 4th abstract answered "Not applicable."
    assert all("Not applicable." not in pool for pool in rows["texts"])


def test_semcse_anchors_are_summaries_and_positives_follow_the_mix(corpus, texts) -> None:
    rows = build_pair_rows("semcse", corpus, texts, TrainingConfig())
    big = pd.concat([rows] * 50, ignore_index=True)
    anchors, positives = draw("semcse", big)
    kinds = []
    for anchor, positive, row in zip(anchors, positives, big.to_dict("records")):
        assert anchor in row["texts"]
        kinds.append("summary" if positive in row["texts"] else "title" if positive == row["title"] else "sentence")
        assert kinds[-1] != "sentence" or positive in row["sentences"]
    shares = pd.Series(kinds).value_counts(normalize=True)
    assert abs(shares["summary"] - 0.5) < 0.03 and abs(shares["title"] - 0.15) < 0.03
    only_titles = draw("semcse", rows, PositiveMix(summary=0, title=1, sentence=0))[1]
    assert only_titles == rows["title"].tolist()
