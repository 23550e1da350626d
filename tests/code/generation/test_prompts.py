"""Prompts and aspect packs: shipped packs load and obey the method's rules; bad input fails clearly."""

from __future__ import annotations

import pytest

from semcse.core.config import ConfigError, GenerationConfig, load_config
from semcse.stages.generation.prompts import (
    NOT_APPLICABLE,
    SUMMARY_PROMPTS,
    aspect_messages,
    continuation_prompt,
    judgement_messages,
    load_aspect_pack,
    summary_prompts,
)
from semcse.stages.generation.tasks import build_task

PACKS = {
    "invasion_biology": {
        "hypothesis_general",
        "hypothesis_specific",
        "ecosystem",
        "research_question",
        "species",
        "methodology",
        "recommendation",
    },
    "medicine": {"disease", "methodology", "patient_group"},
}


@pytest.mark.parametrize("name", sorted(PACKS))
def test_shipped_packs_cover_their_aspects_with_judges(name):
    pack = load_aspect_pack(name)
    assert set(pack.aspects) == PACKS[name]
    for spec in pack.aspects.values():
        assert spec.examples and spec.judge is not None and spec.judge.scale[0] == 1
        messages = aspect_messages(pack, spec, "Title\nAbstract text.")
        system, user = messages[0]["content"], messages[1]["content"]
        assert NOT_APPLICABLE in system and NOT_APPLICABLE in user
        assert '{"sentence":' in user and "no species names" in system and "Abstract text." in user


def test_judgement_prompt_asks_for_reasoning_before_the_score():
    pack = load_aspect_pack("medicine")
    judge = pack.aspects["disease"].judge
    user = judgement_messages(pack, judge, "A text", "B text")[1]["content"]
    assert user.index('"reasoning"') < user.index('"score"')
    assert "5. The same disease" in user and user.index("5.") < user.index("1. Unrelated")


def test_continuation_prompt_ends_with_the_unfinished_sentence():
    prompt = continuation_prompt("A title", "An abstract.", "In summary, our research is concerned with")
    assert prompt == "A title\nAn abstract. In summary, our research is concerned with"


def test_a_run_continues_the_papers_five_summary_prompts_unless_it_names_its_own():
    assert summary_prompts(GenerationConfig()) == list(SUMMARY_PROMPTS) and len(SUMMARY_PROMPTS) == 5
    assert summary_prompts(GenerationConfig(prompts=["To sum up,"])) == ["To sum up,"]


def test_unknown_pack_and_aspect_fail_clearly(tmp_path):
    with pytest.raises(ConfigError, match="unknown aspect pack 'astrology'.*invasion_biology"):
        load_aspect_pack("astrology")
    with pytest.raises(ConfigError, match="has no aspect"):
        load_aspect_pack("medicine").select(["species"])
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ndomain: y\naspects:\n  a:\n    label: l\n    instrucion: typo\n")
    with pytest.raises(ConfigError, match="instrucion"):
        load_aspect_pack(str(bad))


def test_tasks_need_their_settings():
    with pytest.raises(ConfigError, match="aspect_pack"):
        build_task(load_config(None, ["generation.task=aspects"]).generation)
    with pytest.raises(ConfigError, match="judgement_aspect"):
        build_task(load_config(None, ["generation.task=judgements", "generation.aspect_pack=medicine"]).generation)


def test_the_judge_never_tells_the_species_aspect_to_ignore_species():
    pack = load_aspect_pack("invasion_biology")
    (_, user) = judgement_messages(pack, pack.aspects["species"].judge, "A", "B")
    assert "species names" not in user["content"].lower()
    assert "Ignore study-specific details that do not bear on the aspect" in user["content"]


def test_judgement_pairs_are_drawn_among_abstracts_where_the_aspect_applies(sample_records, tmp_path):
    import itertools

    import pandas as pd

    from semcse.core.data.generated import write_generated

    corpus = pd.DataFrame(sample_records)[["id", "title", "abstract"]]
    ids = list(corpus["id"])
    texts = pd.DataFrame(
        {
            "id": ids[:10],
            "kind": "aspect:species",
            "prompt_id": "species",
            "sample": 0,
            "text": ["A herb." if i % 2 == 0 else "Not applicable." for i in range(10)],
            "applicable": [i % 2 == 0 for i in range(10)],
        }
    )
    write_generated(tmp_path / "aspects", texts, {"task": "aspects"})
    overrides = [
        "generation.task=judgements",
        "generation.aspect_pack=invasion_biology",
        "generation.judgement_aspect=species",
        "generation.judgement_abstracts=4",
    ]
    task = build_task(
        load_config(overrides=[*overrides, f"generation.judgement_texts={tmp_path / 'aspects'}"]).generation
    )
    units = task.units(corpus)
    judged = {i for unit in units["unit"] for i in unit.split("\t")}
    assert (
        judged <= set(ids[0:10:2]) and len(judged) == 4 and len(units) == len(list(itertools.combinations(judged, 2)))
    )
    # without the aspect texts the whole corpus is the pool (and a warning says so)
    anywhere = build_task(load_config(overrides=overrides).generation).units(corpus)
    assert len(anywhere) == 6 and {i for u in anywhere["unit"] for i in u.split("\t")} - set(ids[0:10:2])
    assert load_config().generation.judgement_abstracts == 250, "the paper's sample size"


def test_judgement_pairs_are_drawn_from_the_test_split_only(sample_records):
    import pandas as pd

    from semcse.core.data.split import frame_splits

    cfg = load_config(
        overrides=[
            "generation.task=judgements",
            "generation.aspect_pack=invasion_biology",
            "generation.judgement_aspect=species",
            "generation.judgement_abstracts=5",
            "corpus.test_fraction=0.3",
        ]
    )
    corpus = pd.DataFrame(sample_records)[["id", "title", "abstract"]]
    splits = frame_splits(corpus, cfg.corpus)
    test = set(corpus["id"][(splits == "test").to_numpy()])
    units = build_task(cfg.generation).units(corpus, splits)
    judged = {i for unit in units["unit"] for i in unit.split("\t")}
    assert judged <= test and len(judged) == 5 and len(test) > 5
    everywhere = build_task(cfg.generation).units(corpus)
    assert {i for unit in everywhere["unit"] for i in unit.split("\t")} - test, "the guard above can fail"
    none = splits.where(splits != "test", "train")
    with pytest.raises(ConfigError, match="0 candidate .test-split. abstracts"):
        build_task(cfg.generation).units(corpus, none)
