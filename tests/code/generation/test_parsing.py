"""Parsers on the kind of output real models produce."""

from __future__ import annotations

import pytest

from semcse.stages.generation.parsing import (
    extract_json_object,
    first_sentence,
    parse_aspect,
    parse_continuation,
    parse_judgement,
    parse_query,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (" the effects of knotweed on soil microbes. We also found that", "the effects of knotweed on soil microbes."),
        (
            " invasive plants (e.g. knotweed) reduce fungal diversity by 3.5 times. Further work",
            "invasive plants (e.g. knotweed) reduce fungal diversity by 3.5 times.",
        ),
        (" rats (R. rattus et al. 2014) displace natives! And more", "rats (R. rattus et al. 2014) displace natives!"),
        (' a "quoted finding." Next sentence', 'a "quoted finding."'),
        (" an unfinished clause without an end", "an unfinished clause without an end"),
        (" first paragraph line\n\nSecond paragraph.", "first paragraph line"),
    ],
)
def test_first_sentence(raw, expected):
    assert first_sentence(raw) == expected


def test_continuation_without_words_is_invalid():
    assert parse_continuation("  ...  ").status == "invalid"
    assert parse_continuation("\n\n").status == "invalid"


def test_a_continuation_cut_off_by_its_budget_is_a_summary_only_if_its_sentence_ended():
    cut = parse_continuation(" the effects of knotweed on soil microbes and the", cut_off=True)
    assert cut.status == "invalid" and cut.reason.startswith("cut off:")
    ended = parse_continuation(" the effects of knotweed on soil microbes. We also found", cut_off=True)
    assert ended == parse_continuation(" the effects of knotweed on soil microbes.")
    # a line the model ended itself (stopped at "\n", not by the budget) is kept as written
    assert parse_continuation(" the effects of knotweed on soil microbes").status == "ok"


@pytest.mark.parametrize(
    ("raw", "status", "text"),
    [
        (
            '{"sentence": "Clonal perennial herbs spread by rhizomes."}',
            "ok",
            "Clonal perennial herbs spread by rhizomes.",
        ),
        ('```json\n{\n  "sentence": "Disturbed   riparian corridors."\n}\n```', "ok", "Disturbed riparian corridors."),
        ('Sure! Here is the JSON:\n{"sentence": "Island ecosystems."} Let me know.', "ok", "Island ecosystems."),
        ("{'sentence': 'Python-style quotes are accepted.'}", "ok", "Python-style quotes are accepted."),
        ('{"Sentence": "Keys are matched case-insensitively."}', "ok", "Keys are matched case-insensitively."),
        ('{"sentence": "Not applicable."}', "not_applicable", "Not applicable."),
        ("Not applicable.", "not_applicable", "Not applicable."),
        ('"Not applicable"', "not_applicable", "Not applicable."),
        ("```\nNot applicable.\n```", "not_applicable", "Not applicable."),
        ("Not applicable. The abstract does not mention any management action.", "not_applicable", "Not applicable."),
        ('{"sentence": ""}', "invalid", ""),
        ('{"answer": "wrong key"}', "invalid", ""),
        ('{"sentence": "unterminated', "invalid", ""),
        ("The species is a plant.", "invalid", ""),
        ("", "invalid", ""),
    ],
)
def test_parse_aspect(raw, status, text):
    parsed = parse_aspect(raw)
    assert (parsed.status, parsed.text) == (status, text)
    assert parsed.status != "invalid" or parsed.reason


def test_extract_json_skips_braces_that_are_not_objects():
    assert extract_json_object('use {curly} braces, then {"sentence": "x"}') == {"sentence": "x"}
    assert extract_json_object("no json here") is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            "effects of invasive knotweed on soil nitrogen cycling",
            "effects of invasive knotweed on soil nitrogen cycling",
        ),
        ('Query: "knotweed soil microbes riparian"\n\nThis query targets...', "knotweed soil microbes riparian"),
        ("\n- **search query: rodent competition on islands**", "rodent competition on islands"),
        ("1. biotic resistance grassland invasions", "biotic resistance grassland invasions"),
    ],
)
def test_parse_query(raw, expected):
    assert parse_query(raw).text == expected


def test_parse_query_empty_is_invalid():
    assert parse_query(' \n "" \n').status == "invalid"


@pytest.mark.parametrize(
    ("raw", "score"),
    [
        ('{"reasoning": "Both study rodents.", "score": 4}', 4),
        ('```json\n{"reasoning": "Same driver.", "score": "3"}\n```', 3),
        ('{"reasoning": "Different", "score": 2.0}', 2),
        ('{"reasoning": "They say "similar" but differ", "score": 2}', 2),
        ("Reasoning: weak overlap.\nScore: 1", 1),
    ],
)
def test_parse_judgement_reads_scores(raw, score):
    parsed = parse_judgement(raw, (1, 5))
    assert (parsed.status, parsed.score) == ("ok", score)


@pytest.mark.parametrize(
    "raw", ['{"reasoning": "x", "score": 7}', '{"reasoning": "x", "score": 2.5}', '{"reasoning": "x"}', "I think 4"]
)
def test_parse_judgement_rejects_unusable_scores(raw):
    parsed = parse_judgement(raw, (1, 5))
    assert parsed.status == "invalid" and parsed.score is None and parsed.reason
