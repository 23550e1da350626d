"""Counters of a generation run: outcomes, N/A rate per prompt, truncation and throughput.

Prompt and generated tokens are kept apart because they cost differently: at scale the prompt
prefill dominates unless samples share it, and separate rates make that saving visible.
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

OUTCOMES = ("ok", "not_applicable", "rejected")


@dataclass
class RunStats:
    started: float = field(default_factory=time.monotonic)
    outcomes: Counter[str] = field(default_factory=Counter)
    per_prompt: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    reject_reasons: Counter[str] = field(default_factory=Counter)
    samples: int = 0
    retried: int = 0
    engine_errors: int = 0
    prompt_tokens: int = 0
    generated_tokens: int = 0
    truncated_units: int = 0
    truncated_tokens: int = 0

    def add_sample(self, prompt_tokens: int, generated_tokens: int, truncated: int, error: str) -> None:
        """An engine result arrived (any attempt)."""
        self.samples += 1
        self.prompt_tokens += prompt_tokens
        self.generated_tokens += generated_tokens
        self.engine_errors += bool(error)
        if truncated:
            self.truncated_units += 1
            self.truncated_tokens += truncated

    def add_outcome(self, prompt_id: str, outcome: str, reason: str = "") -> None:
        """A sample's final outcome, once per (unit, prompt, sample); a reject is also counted by its cause."""
        self.outcomes[outcome] += 1
        self.per_prompt[prompt_id][outcome] += 1
        if outcome == "rejected":
            self.reject_reasons[reject_cause(reason)] += 1

    @property
    def seconds(self) -> float:
        return max(time.monotonic() - self.started, 1e-9)

    def rates(self) -> dict[str, float]:
        return {
            "samples_per_s": self.samples / self.seconds,
            "prompt_tokens_per_s": self.prompt_tokens / self.seconds,
            "generated_tokens_per_s": self.generated_tokens / self.seconds,
        }

    def na_rates(self) -> dict[str, float]:
        return {
            prompt_id: counts["not_applicable"] / total
            for prompt_id, counts in sorted(self.per_prompt.items())
            if (total := sum(counts.values()))
        }

    def metrics(self) -> dict[str, float]:
        """Flat numbers for MLflow."""
        counts = {f"count.{o}": self.outcomes[o] for o in OUTCOMES}
        return {
            **counts,
            "count.retried": self.retried,
            "count.engine_errors": self.engine_errors,
            "samples": self.samples,
            "prompt_tokens": self.prompt_tokens,
            "generated_tokens": self.generated_tokens,
            "truncated_units": self.truncated_units,
            "truncated_tokens": self.truncated_tokens,
            "seconds": self.seconds,
            **self.rates(),
            **{f"na_rate.{prompt_id}": rate for prompt_id, rate in self.na_rates().items()},
            # MLflow keys allow letters, digits and `_-. /`; the report keeps the causes as written
            **{f"rejected.{re.sub(r'[^A-Za-z0-9_. -]+', '_', cause)}": n for cause, n in self.reject_reasons.items()},
        }


def reject_cause(reason: str) -> str:
    """A reject's reason without its particulars (`cut off`, `no integer 'score'`, `score N outside the rubric`)."""
    return re.sub(r"-?\d+", "N", reason.split(":", 1)[0]).strip()[:80] or "unknown"
