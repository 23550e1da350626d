"""Pair building and sampling for every mode, on the sample corpus and synthetic texts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from semcse.core.config import PositiveMix, TrainingConfig
from semcse.core.data.modes import mix_weights
from semcse.stages.training.positives import DRAW, PairSampler, build_pair_rows, crops, title_exclusions
from tests.fixtures.training import synthetic_texts


@pytest.fixture(scope="module")
def corpus(sample_records) -> pd.DataFrame:
    return pd.DataFrame(sample_records)


@pytest.fixture(scope="module")
def texts(sample_records) -> pd.DataFrame:
    return pd.DataFrame(synthetic_texts(sample_records))


def draw(mode: str, rows: pd.DataFrame, mix: PositiveMix | None = None, seed: int = 0) -> tuple[list, list]:
    return PairSampler(mode, mix).sample(rows.to_dict("list"), seed)


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


def test_title_pairs_anchor_a_title_and_skip_short_or_shared_titles(corpus) -> None:
    edited = corpus.copy()
    edited.loc[0, "title"] = "Soil"  # too short
    edited.loc[[1, 2], "title"] = "A shared title of two papers"  # the same title twice: false negatives
    reasons = title_exclusions(edited, min_words=3)
    assert reasons.iloc[0] == "too short" and list(reasons.iloc[1:3]) == ["shared by several papers"] * 2
    assert (reasons.iloc[3:] == "").all()
    rows = build_pair_rows("title", edited, None, TrainingConfig(pairs="title"))
    assert set(rows["id"]) == set(edited["id"].iloc[3:]), "an abstract without a usable title gives no title pair"
    anchors, positives = draw("title", rows)
    assert anchors == rows["title"].tolist()
    sources = ["abstract" if p == row["abstract"] else "crop" for p, row in zip(positives, rows.to_dict("records"))]
    assert all(s == "abstract" or p in row["texts"] for s, p, row in zip(sources, positives, rows.to_dict("records")))
    assert {"abstract", "crop"} <= set(sources)


def test_a_mix_draws_each_mode_by_its_weight_over_what_a_row_can_give(corpus) -> None:
    assert mix_weights("crops:1+title:3") == {"crops": 0.25, "title": 0.75}
    cfg = TrainingConfig(pairs="crops:1+title:3", min_sentence_chars=40)
    rows = build_pair_rows(cfg.pairs, corpus, None, cfg)
    big = pd.concat([rows] * 40, ignore_index=True)
    anchors, _ = draw(cfg.pairs, big)
    titles = np.mean([a == t for a, t in zip(anchors, big["title"])])
    assert abs(titles - 0.75) < 0.04, titles
    no_titles = rows.assign(title_ok=False)
    anchors, positives = draw(cfg.pairs, no_titles)
    assert all(a in pool and p in pool for a, p, pool in zip(anchors, positives, no_titles["texts"])), "crops only"


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ("crops+summaries", "only the LLM-free modes"),
        ("crops:-1+title", "must be positive"),
        ("crops+crops", "twice"),
        ("crop+title", "unknown pairs mode 'crop'"),
    ],
)
def test_bad_mixes_are_refused_by_name(pairs, message) -> None:
    with pytest.raises(ValueError, match=message):
        TrainingConfig(pairs=pairs)


def test_auto_is_the_chosen_recipe_and_the_run_settings_win() -> None:
    from semcse.core.data.modes import AUTO

    auto = TrainingConfig(pairs="auto")
    assert auto.pairs == "auto", "the user's setting stays as written"
    assert {key: getattr(auto.recipe, key) for key in AUTO} == AUTO and auto.recipe.crop_based
    assert TrainingConfig(pairs="auto", temperature=0.1).recipe.temperature == 0.1


@pytest.mark.parametrize(
    ("settings", "frozen"),
    [
        ({"pairs": "title"}, (True, "half")),
        ({"pairs": "auto"}, (True, "half")),
        ({"pairs": "title", "freeze_layers": 0}, (False, 0)),  # setting either one sets freezing: every layer trains
        ({"pairs": "auto", "freeze_embeddings": True}, (True, 0)),
        ({"pairs": "title", "base_model": "scratch:bert-mini"}, (False, 0)),  # random lower layers: nothing to keep
        ({"pairs": "auto", "base_model": "scratch:bert-mini"}, (False, 0)),
        ({"pairs": "crops"}, (False, 0)),  # crops frozen did not keep every held-out verdict
        ({"pairs": "crops:0.3+title:0.7"}, (False, 0)),
        ({"pairs": "dropout"}, (False, 0)),
        ({"pairs": "semcse"}, (False, 0)),
    ],
)
def test_titles_and_auto_train_the_upper_half_of_a_pretrained_encoder_unless_told(settings, frozen) -> None:
    recipe = TrainingConfig(**settings).recipe
    assert (recipe.freeze_embeddings, recipe.freeze_layers) == frozen


def test_a_rows_draw_depends_on_its_place_in_the_global_order_not_on_the_batch(corpus) -> None:
    """The same row at the same (epoch, position) draws the same pair whatever else is in its batch."""
    cfg = TrainingConfig(pairs="crops+title", min_sentence_chars=40)
    rows = build_pair_rows(cfg.pairs, corpus, None, cfg).head(8).to_dict("list")
    places = np.stack([np.zeros(8, dtype=int), np.arange(8)], axis=1)
    whole = PairSampler(cfg.pairs).sample(rows | {DRAW: places}, seed=3)
    halves = [
        PairSampler(cfg.pairs).sample({k: v[part] for k, v in rows.items()} | {DRAW: places[part]}, seed=3)
        for part in (slice(0, 4), slice(4, 8))
    ]
    assert whole[0] == halves[0][0] + halves[1][0] and whole[1] == halves[0][1] + halves[1][1]
    other_epoch = PairSampler(cfg.pairs).sample(rows | {DRAW: places + [1, 0]}, seed=3)
    assert other_epoch != whole, "a new epoch draws new pairs"
