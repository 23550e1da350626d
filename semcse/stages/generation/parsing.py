"""Turn raw LLM output into a text, a "Not applicable.", a score, or a reason it is unusable.

Real model output is messy: JSON wrapped in code fences or prose, single quotes, a sentence that
runs on into a second one, "Not applicable" without its period or inside the JSON. Every parser
returns a `Parsed` instead of raising, so that the pipeline can retry or record a reject with
the raw text rather than lose the row.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from semcse.stages.generation.prompts import NOT_APPLICABLE

Status = Literal["ok", "not_applicable", "invalid"]

ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "vs.", "cf.", "fig.", "approx.", "ca.", "no.", "sp.", "spp.")
CLOSERS = {'"', "'", ")", "]"}
SENTENCE_END = re.compile(r"[.!?](?=[\"')\]]?(\s|$))")
FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
SCORE_FIELD = re.compile(r"[\"']?score[\"']?\s*[:=]\s*[\"']?(-?\d+(?:\.0+)?)", re.IGNORECASE)
QUERY_PREFIX = re.compile(r"^(?:search\s+)?query\s*[:\-]\s*", re.IGNORECASE)
LIST_MARKER = re.compile(r"^(?:[-*•]\s+|\d+[.)]\s+)")


@dataclass(frozen=True)
class Parsed:
    status: Status
    text: str = ""
    score: int | None = None
    reason: str = ""


def squash(text: str) -> str:
    return " ".join(text.split())


def first_sentence(text: str) -> str:
    """Cut at the end of the first sentence; a period inside "e.g." or "3.5" is not an end."""
    return _first_sentence(text)[0]


def _first_sentence(text: str) -> tuple[str, bool]:
    """The first sentence, and whether it ends with a sentence end (rather than with the text)."""
    text = squash(text.split("\n\n")[0])
    for match in SENTENCE_END.finditer(text):
        end = match.end()
        head = text[:end].lower()
        if head.endswith(ABBREVIATIONS) or re.search(r"\b[a-z]\.$", head):
            continue
        if text[end : end + 1] in CLOSERS:
            end += 1
        return text[:end].strip(), True
    return text.strip(), False


def is_not_applicable(text: str) -> bool:
    core = text.strip().strip("`\"'*").strip()
    return core.lower().rstrip(".!").strip() == NOT_APPLICABLE.lower().rstrip(".")


def extract_json_object(raw: str) -> dict[str, Any] | None:
    """The first JSON object in `raw`, tolerating code fences, surrounding prose and Python-style quotes."""
    candidates = [m.group(1) for m in FENCE.finditer(raw)] + [raw]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start in (i for i, ch in enumerate(candidate) if ch == "{"):
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                value = _python_literal(candidate, start)
            if isinstance(value, dict):
                return value
    return None


def _python_literal(text: str, start: int) -> Any:
    """`{'sentence': '...'}` is a common near-miss; accept it when it is a plain literal."""
    end = text.find("}", start)
    while end != -1:
        try:
            return ast.literal_eval(text[start : end + 1])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            end = text.find("}", end + 1)
    return None


def _field(obj: dict[str, Any], name: str) -> Any:
    for key, value in obj.items():
        if str(key).strip().lower() == name:
            return value
    return None


CUT_OFF = "cut off"


def parse_continuation(raw: str, cut_off: bool = False) -> Parsed:
    """A SemCSE summary: the continuation up to the end of its first sentence.

    `cut_off`: the engine stopped it at its token budget. Without a sentence end before that point
    it is half a sentence, not a summary, and is rejected (a continuation that ended on its own,
    at the end of its line, is kept as the model wrote it).
    """
    sentence, ended = _first_sentence(raw)
    if not any(ch.isalnum() for ch in sentence):
        return Parsed("invalid", reason="empty continuation")
    if cut_off and not ended:
        return Parsed("invalid", reason=f"{CUT_OFF}: the token budget ended it before its first sentence ended")
    return Parsed("ok", text=sentence)


def parse_aspect(raw: str) -> Parsed:
    """`{"sentence": ...}` (or exactly "Not applicable.", bare or inside the JSON)."""
    obj = extract_json_object(raw)
    if obj is not None:
        sentence = _field(obj, "sentence")
        if not isinstance(sentence, str):
            return Parsed("invalid", reason="JSON object has no 'sentence' string")
        if is_not_applicable(sentence):
            return Parsed("not_applicable", text=NOT_APPLICABLE)
        sentence = squash(sentence)
        if not any(ch.isalnum() for ch in sentence):
            return Parsed("invalid", reason="empty sentence")
        return Parsed("ok", text=sentence)
    fenced = FENCE.sub(lambda m: m.group(1), raw).strip()
    if is_not_applicable(fenced) or is_not_applicable(first_sentence(fenced)):
        return Parsed("not_applicable", text=NOT_APPLICABLE)
    return Parsed("invalid", reason="no JSON object with a 'sentence' string")


def parse_query(raw: str) -> Parsed:
    """The first non-empty line, without "Query:" labels, list markers or surrounding quotes."""
    for line in raw.strip().splitlines():
        line = LIST_MARKER.sub("", line.strip()).strip("*_ ")
        line = squash(QUERY_PREFIX.sub("", line).strip("\"'`“”*_ "))
        if any(ch.isalnum() for ch in line):
            return Parsed("ok", text=line)
    return Parsed("invalid", reason="empty query")


def parse_judgement(raw: str, scale: tuple[int, int]) -> Parsed:
    """`{"reasoning": ..., "score": n}`; a score that is readable but outside the rubric is invalid."""
    obj = extract_json_object(raw)
    value = _field(obj, "score") if obj is not None else None
    reasoning = _field(obj, "reasoning") if obj is not None else None
    if value is None:
        match = SCORE_FIELD.search(raw)
        value = match.group(1) if match else None
    score = _as_int(value)
    if score is None:
        return Parsed("invalid", reason="no integer 'score'")
    low, high = scale
    if not low <= score <= high:
        return Parsed("invalid", reason=f"score {score} outside the rubric {low}..{high}")
    return Parsed("ok", text=squash(reasoning) if isinstance(reasoning, str) else "", score=score)


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() else None
