"""Prompts and aspect packs: shipped packs load and obey the method's rules; bad input fails clearly."""

from __future__ import annotations

import pytest
from semcse.config import ConfigError, load_config
from semcse.generation.prompts import (
    NOT_APPLICABLE,
    aspect_messages,
    continuation_prompt,
    judgement_messages,
    load_aspect_pack,
)
from semcse.generation.tasks import build_task

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
