"""The four generation tasks: what a unit of work is, which requests it makes, how answers become rows.

A *unit* is what a shard is made of (an abstract, or a pair of abstracts for judgements). Each
unit makes one request per prompt, and each request asks for several samples at once, so the
engines can share the prompt's prefill between samples. Output rows follow the DESIGN.md
"texts" and "judgements" contracts; rejects keep the same identity columns plus the raw output.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from semcse.core.config import ConfigError, GenerationConfig
from semcse.core.data.generated import PAIR_SEP
from semcse.core.data.schema import ABSTRACT, ID, JUDGEMENTS_SCHEMA, TEXTS_SCHEMA, TITLE
from semcse.stages.generation import parsing, prompts
from semcse.stages.generation.parsing import Parsed
from semcse.stages.generation.prompts import AspectPack, Message
from semcse.stages.generation.tokens import TokenCounter

log = logging.getLogger(__name__)

UNIT = "unit"


@dataclass(frozen=True)
class Request:
    """One prompt of one unit: a raw continuation prompt, or a chat (system + user)."""

    prompt_id: str
    prompt: str
    system: str = ""
    chat: bool = False

    @property
    def messages(self) -> list[Message]:
        head = [{"role": "system", "content": self.system}] if self.system else []
        return [*head, {"role": "user", "content": self.prompt}]


def chat_request(prompt_id: str, messages: list[Message]) -> Request:
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    user = next(m["content"] for m in messages if m["role"] == "user")
    return Request(prompt_id=prompt_id, prompt=user, system=system, chat=True)


class Task(ABC):
    """A generation task; subclasses say what to ask and how to read the answer."""

    name: str
    schema: pa.Schema
    identity_fields: tuple[str, ...]
    chat: bool = True
    text_fields: tuple[str, ...] = (ABSTRACT,)
    # Strings that end an answer early: whatever follows them would be decoded only to be thrown away.
    stop: tuple[str, ...] = ()

    def answer_schema(self) -> dict[str, Any] | None:
        """The JSON schema of an answer, for engines that can constrain decoding to it (None: free text)."""
        return None

    def __init__(self, cfg: GenerationConfig) -> None:
        self.cfg = cfg

    @abstractmethod
    def samples(self) -> dict[str, int]:
        """Samples wanted per unit, by prompt id (fixes how many rows each unit yields)."""

    @abstractmethod
    def build(self, unit: dict[str, Any]) -> list[Request]:
        """Every request of one unit, in prompt order (kept together so prefix caches reuse the abstract)."""

    @abstractmethod
    def parse(self, prompt_id: str, raw: str, finish_reason: str = "") -> Parsed:
        """An answer as a row or a reason it is unusable; `finish_reason` is `length` when it used its whole budget."""

    def unit_of(self, rows: pd.DataFrame) -> pd.Series:
        """The unit of each output or reject row (the inverse of `identity`): the paper id."""
        return rows["id"].astype(str)

    @abstractmethod
    def identity(self, unit: str, prompt_id: str, sample: int) -> dict[str, Any]:
        """The contract's key columns for one sample (shared by output rows and rejects)."""

    @abstractmethod
    def payload(self, parsed: Parsed) -> dict[str, Any]: ...

    def units(self, corpus: pd.DataFrame, splits: pd.Series | None = None) -> pd.DataFrame:
        """One unit per abstract: `unit` (the id), title, abstract.

        `splits` (each corpus row's split, `data.split.frame_splits`) matters to tasks whose outputs
        are evaluation ground truth: those draw from the test split only.
        """
        return pd.DataFrame({UNIT: corpus[ID], TITLE: corpus[TITLE], ABSTRACT: corpus[ABSTRACT]})

    def settings(self) -> dict[str, Any]:
        """Everything that shapes this task's output, for the shard content keys."""
        return {"task": self.name, "samples": self.samples()}

    def requests(
        self, unit: dict[str, Any], counter: TokenCounter, max_prompt_tokens: int
    ) -> tuple[list[Request], int]:
        """The unit's requests with its abstracts cut to fit the context; returns them and the tokens cut.

        The abstract is cut once for all prompts of the unit, so that they keep a common prefix.
        """
        empty = self.build({**unit, **dict.fromkeys(self.text_fields, "")})
        overhead = max(counter.count_messages(r.messages) if r.chat else counter.count(r.prompt) for r in empty)
        budget = (max_prompt_tokens - overhead) // len(self.text_fields)
        if budget <= 0:
            raise ConfigError(
                f"generation.max_model_len={self.cfg.max_model_len} leaves no room for the abstract after the prompt "
                f"({overhead} tokens) and max_new_tokens={self.cfg.new_tokens}"
            )
        cut = dict(unit)
        removed = 0
        for field in self.text_fields:
            cut[field], lost = counter.truncate(str(unit[field]), budget)
            removed += lost
        return self.build(cut), removed

    @property
    def rejects_schema(self) -> pa.Schema:
        """The contract's identity columns, then why the sample was rejected and what the model said."""
        identity = [self.schema.field(name) for name in self.identity_fields]
        sample = [] if "sample" in self.identity_fields else [pa.field("sample", pa.int32())]
        extra = [("reason", pa.string()), ("raw", pa.string()), ("attempts", pa.int32())]
        return pa.schema([*identity, *sample, *extra, ("model", pa.string()), ("engine", pa.string())])

    def row(self, unit: str, prompt_id: str, sample: int, parsed: Parsed) -> dict[str, Any]:
        return {**self.identity(unit, prompt_id, sample), **self.payload(parsed)}

    def reject(
        self, unit: str, prompt_id: str, sample: int, parsed: Parsed, raw: str, attempts: int
    ) -> dict[str, Any]:
        return {
            **self.identity(unit, prompt_id, sample),
            "sample": sample,
            "reason": parsed.reason,
            "raw": raw,
            "attempts": attempts,
            "model": self.cfg.model or "",
            "engine": self.cfg.engine,
        }


class TextTask(Task):
    """Tasks that write the "texts" contract."""

    schema = TEXTS_SCHEMA
    identity_fields = ("id", "kind", "prompt_id", "sample")

    @abstractmethod
    def kind(self, prompt_id: str) -> str: ...

    def identity(self, unit: str, prompt_id: str, sample: int) -> dict[str, Any]:
        return {"id": unit, "kind": self.kind(prompt_id), "prompt_id": prompt_id, "sample": sample}

    def payload(self, parsed: Parsed) -> dict[str, Any]:
        return {
            "text": parsed.text,
            "applicable": parsed.status == "ok",
            "model": self.cfg.model or "",
            "engine": self.cfg.engine,
        }


class SummaryTask(TextTask):
    """SemCSE: continue `title + abstract + prompt`; the summary is the first sentence of the continuation."""

    name = "summaries"
    chat = False
    stop = ("\n",)  # a continuation is kept up to its first sentence; the next line is never used

    def prompt_ids(self) -> list[str]:
        return [f"p{i}" for i in range(len(prompts.summary_prompts(self.cfg)))]

    def samples(self) -> dict[str, int]:
        return dict.fromkeys(self.prompt_ids(), self.cfg.samples_per_prompt)

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "prompts": prompts.summary_prompts(self.cfg)}

    def kind(self, prompt_id: str) -> str:
        return "summary"

    def build(self, unit: dict[str, Any]) -> list[Request]:
        return [
            Request(pid, prompts.continuation_prompt(unit[TITLE], unit[ABSTRACT], text))
            for pid, text in zip(self.prompt_ids(), prompts.summary_prompts(self.cfg))
        ]

    def parse(self, prompt_id: str, raw: str, finish_reason: str = "") -> Parsed:
        return parsing.parse_continuation(raw, cut_off=finish_reason == "length")


class AspectTask(TextTask):
    """SemCSE-Multi: one chat prompt per aspect; JSON `{"sentence": ...}` or "Not applicable."."""

    name = "aspects"

    def __init__(self, cfg: GenerationConfig) -> None:
        super().__init__(cfg)
        self.pack: AspectPack = prompts.load_aspect_pack(cfg.aspect_pack)
        self.aspects = self.pack.select(cfg.aspects)

    def samples(self) -> dict[str, int]:
        return dict.fromkeys(self.aspects, self.cfg.aspect_samples)

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "pack": self.pack.model_dump(), "aspects": list(self.aspects)}

    def kind(self, prompt_id: str) -> str:
        return f"aspect:{prompt_id}"

    def build(self, unit: dict[str, Any]) -> list[Request]:
        text = prompts.document(unit[TITLE], unit[ABSTRACT])
        return [
            chat_request(name, prompts.aspect_messages(self.pack, spec, text)) for name, spec in self.aspects.items()
        ]

    def parse(self, prompt_id: str, raw: str, finish_reason: str = "") -> Parsed:
        return parsing.parse_aspect(raw)

    def answer_schema(self) -> dict[str, Any]:
        """`{"sentence": ...}`; "Not applicable." then comes as that sentence, which the parser reads as such."""
        return {
            "type": "object",
            "properties": {"sentence": {"type": "string"}},
            "required": ["sentence"],
            "additionalProperties": False,
        }


class QueryTask(TextTask):
    """One realistic literature-search query per abstract, for the query-matching benchmark."""

    name = "queries"

    def samples(self) -> dict[str, int]:
        return {"query": self.cfg.query_samples}

    def kind(self, prompt_id: str) -> str:
        return "query"

    def build(self, unit: dict[str, Any]) -> list[Request]:
        return [chat_request("query", prompts.query_messages(prompts.document(unit[TITLE], unit[ABSTRACT])))]

    def parse(self, prompt_id: str, raw: str, finish_reason: str = "") -> Parsed:
        return parsing.parse_query(raw)


class JudgementTask(Task):
    """Pairwise similarity of two abstracts for one aspect: reasoning first, then an integer from the rubric."""

    name = "judgements"
    schema = JUDGEMENTS_SCHEMA
    identity_fields = ("a", "b", "aspect")
    text_fields = ("abstract_a", "abstract_b")

    def __init__(self, cfg: GenerationConfig) -> None:
        super().__init__(cfg)
        self.pack = prompts.load_aspect_pack(cfg.aspect_pack)
        if not cfg.judgement_aspect:
            raise ConfigError(f"judgements need generation.judgement_aspect, one of {sorted(self.pack.aspects)}")
        self.aspect = cfg.judgement_aspect
        judge = self.pack.select([self.aspect])[self.aspect].judge
        if judge is None:
            raise ConfigError(f"aspect {self.aspect!r} of pack {self.pack.name!r} has no `judge` section")
        self.judge = judge

    def samples(self) -> dict[str, int]:
        return {self.aspect: 1}

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "judge": self.judge.model_dump(), "domain": self.pack.domain}

    def units(self, corpus: pd.DataFrame, splits: pd.Series | None = None) -> pd.DataFrame:
        """All pairs of a seeded sample of test-split abstracts, or the explicit pairs file, as `a<TAB>b` units.

        Judgements are the aspects suite's ground truth, which scores models on the test split: pairs
        drawn elsewhere would be judged at a cost and never used (SemCSE-Multi drew its 250 abstracts
        per aspect from its test set). Without `splits` every abstract is a candidate.
        """
        by_id = corpus.set_index(ID)
        if self.cfg.judgement_pairs:
            pairs = self._explicit_pairs(by_id)
        else:
            test = corpus if splits is None else corpus[(splits == "test").to_numpy()]
            pairs = self._sampled_pairs(test)
        a, b = by_id.loc[[p[0] for p in pairs]], by_id.loc[[p[1] for p in pairs]]
        return pd.DataFrame(
            {
                UNIT: [f"{x}{PAIR_SEP}{y}" for x, y in pairs],
                "title_a": a[TITLE].to_numpy(),
                "abstract_a": a[ABSTRACT].to_numpy(),
                "title_b": b[TITLE].to_numpy(),
                "abstract_b": b[ABSTRACT].to_numpy(),
            }
        )

    def _sampled_pairs(self, corpus: pd.DataFrame) -> list[tuple[str, str]]:
        """All pairs of a seeded sample (ids with the smallest seeded hashes, so file order does not matter).

        As in SemCSE-Multi, the sample is drawn among abstracts with an applicable summary of the
        judged aspect (`generation.judgement_texts`, the aspects task's output): for a rare aspect,
        pairs of abstracts that do not address it would all be trivially "unrelated".
        """

        def rank(identifier: str) -> str:
            return hashlib.blake2b(f"{self.cfg.seed}:{identifier}".encode(), digest_size=8).hexdigest()

        candidates = list(corpus[ID])
        if self.cfg.judgement_texts:
            applicable = self._applicable_ids()
            candidates = [i for i in candidates if i in applicable]
            if len(candidates) < 2:
                raise ConfigError(
                    f"fewer than two of the {len(corpus)} candidate (test-split) abstracts have an applicable "
                    f"'{self.aspect}' summary in {self.cfg.judgement_texts}: nothing to judge"
                )
        else:
            log.warning(
                "judgement pairs drawn from all abstracts; set generation.judgement_texts to the aspects output "
                "to draw them among abstracts where '%s' applies, as SemCSE-Multi does",
                self.aspect,
            )
        if len(candidates) < 2:
            raise ConfigError(
                f"{len(candidates)} candidate (test-split) abstracts: judgement pairs need at least two; "
                "raise corpus.test_fraction or --limit"
            )
        chosen = sorted(candidates, key=rank)[: self.cfg.judgement_abstracts]
        return list(itertools.combinations(sorted(chosen), 2))

    def _applicable_ids(self) -> set[str]:
        from semcse.core.data.generated import read_texts

        texts = read_texts(str(self.cfg.judgement_texts), self.cfg.combine_settings)
        kind = texts["kind"] == f"aspect:{self.aspect}"
        applicable = texts["applicable"].fillna(True).astype(bool) if "applicable" in texts else True
        return set(texts.loc[kind & applicable, "id"])

    def _explicit_pairs(self, by_id: pd.DataFrame) -> list[tuple[str, str]]:
        path = Path(str(self.cfg.judgement_pairs))
        readers: dict[str, Callable[[Path], pd.DataFrame]] = {
            ".parquet": pd.read_parquet,
            ".csv": pd.read_csv,
            ".jsonl": lambda p: pd.read_json(p, lines=True),
        }
        if not path.is_file() or path.suffix not in readers:
            raise FileNotFoundError(f"judgement pairs file not found or not .parquet/.csv/.jsonl: {path}")
        frame = readers[path.suffix](path)
        if not {"a", "b"} <= set(frame.columns):
            raise ConfigError(f"{path} needs columns 'a' and 'b' (abstract ids); it has {list(frame.columns)}")
        pairs = list(zip(frame["a"].astype(str), frame["b"].astype(str)))
        missing = sorted({i for pair in pairs for i in pair} - set(by_id.index))
        if missing:
            raise ConfigError(f"{path} names ids that are not in the corpus: {missing[:5]}")
        return pairs

    def build(self, unit: dict[str, Any]) -> list[Request]:
        text_a = prompts.document(unit["title_a"], unit["abstract_a"])
        text_b = prompts.document(unit["title_b"], unit["abstract_b"])
        return [chat_request(self.aspect, prompts.judgement_messages(self.pack, self.judge, text_a, text_b))]

    def parse(self, prompt_id: str, raw: str, finish_reason: str = "") -> Parsed:
        return parsing.parse_judgement(raw, self.judge.scale)

    def answer_schema(self) -> dict[str, Any]:
        """Reasoning first, then an integer score inside the rubric's range."""
        low, high = self.judge.scale
        return {
            "type": "object",
            "properties": {
                "reasoning": {"type": "string"},
                "score": {"type": "integer", "minimum": low, "maximum": high},
            },
            "required": ["reasoning", "score"],
            "additionalProperties": False,
        }

    def identity(self, unit: str, prompt_id: str, sample: int) -> dict[str, Any]:
        a, b = unit.split(PAIR_SEP)
        return {"a": a, "b": b, "aspect": prompt_id}

    def unit_of(self, rows: pd.DataFrame) -> pd.Series:
        return rows["a"].astype(str) + PAIR_SEP + rows["b"].astype(str)

    def payload(self, parsed: Parsed) -> dict[str, Any]:
        return {"score": parsed.score}


TASKS: dict[str, type[Task]] = {t.name: t for t in (SummaryTask, AspectTask, QueryTask, JudgementTask)}


def build_task(cfg: GenerationConfig) -> Task:
    return TASKS[cfg.task](cfg)
