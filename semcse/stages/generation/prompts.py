"""Every prompt the platform sends an LLM, in one place: the summary continuations and their template,
the chat prompts of aspect summaries, queries and judgements, and the aspect packs that parameterise
two of them (`generation.tasks` decides what to do with the answers).

SemCSE summaries are *continuations*, not chat answers: the paper found that letting a base LLM
continue `title + abstract + "In summary, ..."` stays closer to the style of abstracts than chat
summaries; a run may replace the paper's five continuations with its own `generation.prompts`.
Aspect summaries and judgements are chat prompts whose wording follows the SemCSE-Multi rules; the
aspect-specific parts live in YAML packs (`semcse/packs/`) so that a new domain is a new file, not
new code.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from semcse.core.config import ConfigError, GenerationConfig, format_validation_error

NOT_APPLICABLE = "Not applicable."

SUMMARY_PROMPTS: tuple[str, ...] = (
    "In summary, our research is concerned with",
    "The main takeaway from our work is that",
    "A comprehensive summary for our work would be that",
    "In summary, a comprehensive and detailed conclusive statement would be that",
    "To summarize, the key findings of our research, stated in one sentence that includes all relevant information, "
    "are that",
)

Message = dict[str, str]


def summary_prompts(cfg: GenerationConfig) -> list[str]:
    """The unfinished sentences a run's summaries continue: its own `prompts`, else the paper's five."""
    return list(cfg.prompts or SUMMARY_PROMPTS)


def document(title: str, abstract: str) -> str:
    """Title and abstract as one text, the way every prompt shows a paper."""
    return f"{title.strip()}\n{abstract.strip()}" if title.strip() else abstract.strip()


def continuation_prompt(title: str, abstract: str, continuation: str) -> str:
    """The paper's summary prompt: the abstract, then an unfinished sentence for the LLM to complete."""
    return f"{document(title, abstract)} {continuation.strip()}"


class JudgeSpec(BaseModel):
    """How to score the similarity of two abstracts for one aspect (reasoning first, then an integer)."""

    model_config = ConfigDict(extra="forbid")

    label: str
    instructions: str
    rubric: dict[int, str] = Field(min_length=2)

    @property
    def scale(self) -> tuple[int, int]:
        return min(self.rubric), max(self.rubric)


class AspectSpec(BaseModel):
    """One aspect: what to describe, with examples that obey the isolation rules."""

    model_config = ConfigDict(extra="forbid")

    label: str
    instruction: str
    examples: list[str] = Field(default_factory=list)
    judge: JudgeSpec | None = None


class AspectPack(BaseModel):
    """A domain's aspects (a YAML file under semcse/packs/)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    domain: str
    aspects: dict[str, AspectSpec] = Field(min_length=1)

    @field_validator("aspects")
    @classmethod
    def _names_are_identifiers(cls, value: dict[str, AspectSpec]) -> dict[str, AspectSpec]:
        bad = [name for name in value if not name.replace("_", "").isalnum()]
        if bad:
            raise ValueError(f"aspect names must be letters, digits and underscores: {bad}")
        return value

    def select(self, names: list[str] | None) -> dict[str, AspectSpec]:
        """The requested aspects in the requested order (all of them when `names` is None)."""
        if names is None:
            return dict(self.aspects)
        unknown = [n for n in names if n not in self.aspects]
        if unknown:
            raise ConfigError(f"aspect pack {self.name!r} has no aspect {unknown}; it has {sorted(self.aspects)}")
        return {n: self.aspects[n] for n in names}


def find_pack(ref: str) -> Path:
    """A pack YAML path as given, else a pack shipped with the package (`semcse/packs/<name>.yaml`)."""
    from semcse.core.resources import ResourceNotFound, find

    try:
        return find("packs", ref)
    except ResourceNotFound as exc:
        raise ConfigError(str(exc)) from None


def load_aspect_pack(ref: str | None) -> AspectPack:
    if not ref:
        raise ConfigError("this task needs an aspect pack: set generation.aspect_pack (e.g. invasion_biology)")
    path = find_pack(ref)
    try:
        return AspectPack.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except yaml.YAMLError as exc:
        raise ConfigError(f"aspect pack {path} is not valid YAML: {exc}") from exc
    except ValidationError as exc:
        raise ConfigError(f"invalid aspect pack {path}:\n{format_validation_error(exc)}") from exc


def aspect_messages(pack: AspectPack, aspect: AspectSpec, text: str) -> list[Message]:
    """The SemCSE-Multi summary prompt: isolate one aspect, abstract away names, allow "Not applicable."."""
    system = (
        f"You are a precise summary generator for scientific abstracts from the field of {pack.domain}. "
        "For a single requested aspect, produce a short, self-contained, declarative sentence that describes "
        "the aspect as it is addressed in the study, in general terms: no species names, no place names, no "
        'numeric values, no references to "the study", "we", "this paper" or the authors. If the requested '
        f'aspect does not apply, return exactly: "{NOT_APPLICABLE}". Return a strict JSON object as requested in '
        "the user instruction, with no extra commentary."
    )
    examples = "".join(f'\nExample: "{example}"' for example in aspect.examples)
    user = (
        f"This is the relevant scientific abstract:\n\n{text}\n\n"
        f"Your task is the following:\n\n{aspect.instruction.strip()}{examples}\n\n"
        "Create a single comprehensive sentence that closely adheres to the requirements. Note that the given "
        f'task might not apply to this study. In this case, simply reply "{NOT_APPLICABLE}"\n\n'
        "Create a self-contained sentence that makes sense without any additional context and describes the "
        'relevant factors without referencing "the study" or "the paper" (as done by the examples).\n\n'
        'Use the following JSON response format: {"sentence": "Your sentence."}'
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def query_messages(text: str) -> list[Message]:
    """A literature-search query someone would type before finding this paper (query-matching benchmark)."""
    system = (
        "You are an experienced researcher searching the scientific literature. You write the short, "
        "realistic queries that people type into a literature search engine."
    )
    user = (
        f"Here is the abstract of a paper:\n\n{text}\n\n"
        "Write one realistic literature-search query for which this paper would be a highly relevant result. "
        "Describe the information need in your own words (4 to 15 words) instead of copying the title, and do "
        "not mention authors or years. Reply with the query only, on a single line."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def judgement_messages(pack: AspectPack, judge: JudgeSpec, text_a: str, text_b: str) -> list[Message]:
    """Pairwise aspect similarity: relevant factors listed, a rubric, and reasoning before the score."""
    low, _ = judge.scale
    system = (
        f"You are a scientific research assistant from the field of {pack.domain}. You assess how related two "
        "scientific studies are with regard to one specific aspect, based on their abstracts. Both abstracts "
        f"belong to the field of {pack.domain}, which in itself is no indicator of relatedness. Be concise and "
        "stick to the information that is actually present in the abstracts."
    )
    rubric = "\n".join(f"{score}. {text.strip()}" for score, text in sorted(judge.rubric.items(), reverse=True))
    user = (
        f"Abstract A:\n\n{text_a}\n\nAbstract B:\n\n{text_b}\n\n"
        f"Task: For the aspect '{judge.label}', judge how similar the two abstracts are "
        "on the scale defined below.\n\n"
        f"These are the detailed instructions for this aspect: {judge.instructions.strip()}\n\n"
        f"The default score is {low} unless there is a substantive match. Ignore study-specific details that do "
        f"not bear on the aspect '{judge.label}'; details this aspect is about (as the rubric below defines it) "
        "are exactly what to compare.\n\n"
        f"Scoring rubric (use integers only):\n\n{rubric}\n\n"
        "First summarise the relevant factors of both abstracts and how they compare, then give the score. "
        "Return EXACTLY a single JSON object and nothing else with the following format:\n"
        '{"reasoning": <a short summary of the differences and similarities, and which category this supports>, '
        '"score": <integer score>}'
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
