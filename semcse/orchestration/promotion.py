"""The promotion rule: when a trained model becomes `@champion`, decided from the evaluation alone.

A new model replaces the incumbent (the current champion, or the base model when there is none)
only when the paired bootstrap interval of `trained − incumbent` on the promotion metric excludes
zero on the better side, and the model is significantly worse on none of the guard metrics. A tie,
or a difference the bootstrap cannot tell from noise, keeps the incumbent: churning the champion on
noise would move every served vector for nothing. A guard the evaluation did not compute (a suite
that did not run, a corpus without labels) or could not put an interval on (a V-measure of test papers
that carry one label) is reported as not checked, never passed silently.

`decide` is pure (evaluation tables in, decision out), so the rule is tested without a registry;
the pipeline's register step applies and records it (`semcse.orchestration.pipeline`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from semcse.core.config import ConfigError


@dataclass(frozen=True)
class Promotion:
    """The decision and its evidence, as the register step records it."""

    champion: bool
    incumbent: str
    difference: dict[str, Any]
    guard_losses: dict[str, dict[str, Any]]
    guards_not_checked: list[str]
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _versus_incumbent(suites: Mapping[str, Any], metric: str) -> dict[str, Any] | None:
    """The evaluation's paired `trained − incumbent` difference on `SUITE:COLUMN`, or None when it was not computed."""
    suite, _, column = metric.partition(":")
    found = suites.get(suite, {}).get("versus_incumbent", {}).get(column)
    return dict(found) if found is not None else None


def _evidence(incumbent: str, metric: str, comparison: Mapping[str, Any], trained: str = "trained") -> str:
    """`trained − base on suite:column: −0.043 (95% CI [−0.085, −0.011])`."""
    return (
        f"{trained} − {incumbent} on {metric}: {comparison['difference']:+.3f} "
        f"(95% CI [{comparison['low']:+.3f}, {comparison['high']:+.3f}])"
    )


def decide(
    suites: Mapping[str, Any],
    incumbent: str,
    metric: str,
    guards: Sequence[str],
    version: str | None,
    name: str,
) -> Promotion:
    """Whether version `version` of registered model `name` should become `@champion`, and why.

    `suites` are the evaluate step's tables (each with its `versus_incumbent` differences);
    `version` is None when training registered nothing (no step beat the base model on validation).
    """
    comparison = _versus_incumbent(suites, metric)
    if version is None:
        return _nothing_registered(incumbent, metric, comparison)
    if comparison is None:
        raise ConfigError(
            f"pipeline.metric={metric!r} is not in the evaluation results (suites: {sorted(suites)}); use SUITE:COLUMN"
        )
    shown = _evidence(incumbent, metric, comparison)
    found = {guard: _versus_incumbent(suites, guard) for guard in guards}
    losses = {guard: diff for guard, diff in found.items() if diff and diff["verdict"] == "worse"}
    unchecked = [guard for guard, diff in found.items() if diff is None or diff["verdict"] == "no interval"]
    champion = comparison["verdict"] == "better" and not losses
    if champion:
        verdict = f"trained model beats the {incumbent}: {shown} → {name}@champion = version {version}"
    elif comparison["verdict"] == "better":
        worse = "; ".join(_evidence(incumbent, guard, diff) for guard, diff in losses.items())
        verdict = f"better ({shown}) but worse on a guard metric ({worse}); keeping the {incumbent}"
    else:
        outcome = "the trained model is worse" if comparison["verdict"] == "worse" else comparison["verdict"]
        verdict = f"{outcome}: {shown}; keeping the {incumbent}"
    return Promotion(champion, incumbent, comparison, losses, unchecked, verdict)


def _nothing_registered(incumbent: str, metric: str, comparison: Mapping[str, Any] | None) -> Promotion:
    """Training delivered the base model unchanged, so there is nothing to promote and no guard to check.

    The evaluation then scored the base itself as the candidate: against the base its difference is zero by
    construction, so only a champion incumbent makes the figure worth printing. A base scored alone has no figure
    relative to other models (`semantic:improvement`), hence `comparison` may be None here and only here.
    """
    verdict = "training delivered the base model unchanged (no step beat it on validation), so nothing was registered"
    if incumbent != "base" and comparison is not None:
        verdict += f"; the {incumbent} stays ({_evidence(incumbent, metric, comparison, trained='base')})"
    return Promotion(False, incumbent, dict(comparison or {}), {}, [], verdict)
