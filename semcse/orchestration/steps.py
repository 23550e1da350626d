"""Resumable steps: a table of named steps run in order, each finished one recorded, under one MLflow run.

The pipeline (`pipeline.py`) and a corpus update (`update.py`) are both sequences of steps
that may each take hours and may each be killed. What makes that safe is the same for both, so it
lives here once. The state file (`pipeline.json` in the run's or the update's directory, written
whole through `semcse.core.storage` after every step) says which steps finished, what they returned and
how long they took; a rerun skips those, redoes the step that was interrupted (every step is written
to be idempotent) and logs into the same MLflow parent run, whose id the state file keeps. A step is
a name and a callable returning its outputs (JSON-serialisable); the table's order is the run order.

A finished step is only reused while it is still the step the run asks for. Each record keeps the
settings that shaped the step and a key of each step whose outputs it read; a recorded step whose
settings changed since (a new recipe, another corpus) or whose inputs were made again (a retrained
model) runs again, and says why. Otherwise a user who changes a setting, or upgrades to a version
whose defaults changed, would be answered with the earlier run's model. The state file carries its format
(`STATE_FORMAT`); a file of another is refused with a message, never read by guesswork.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from semcse.core import logs, storage
from semcse.core.config import ConfigError, TrackingConfig, flatten
from semcse.core.data.shards import content_key
from semcse.core.tracking import Tracker

log = logging.getLogger(__name__)

STATE_FILE = "pipeline.json"
STATE_FORMAT = 1  # the state file's layout: every record keeps its outputs, seconds, settings and inputs
SHOWN_CHANGES = 4  # a rerun's line names this many changed settings, then counts the rest

Outputs = dict[str, Any]
Step = Callable[[], Outputs]


@dataclass
class StepState:
    """What is finished: persisted whole after every step, so a killed run resumes where it stopped."""

    path: str
    parent_run_id: str | None = None
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, directory: str) -> StepState:
        """The state kept in `directory` (a path or a storage URI); nothing finished when it has none yet."""
        path = storage.join(directory, STATE_FILE)
        if not storage.is_file(path):
            return cls(path)
        data = storage.read_json(path)
        if data.get("format") != STATE_FORMAT:
            raise ConfigError(
                f"{path} is a state file of format {data.get('format', 'none')}, which this version of semcse does "
                f"not read (it writes format {STATE_FORMAT}); run in another run_dir, or with the version that "
                "wrote it"
            )
        return cls(path, data.get("parent_run_id"), data["steps"])

    def save(self) -> None:
        state = {"format": STATE_FORMAT, "parent_run_id": self.parent_run_id, "steps": self.steps}
        storage.write_json(self.path, state)

    def outputs(self, step: str) -> Outputs:
        """A finished step's outputs; a step that has not run is an error that says which step to run."""
        if step not in self.steps:
            raise ConfigError(f"step {step!r} has not run yet in this run directory; run the pipeline from {step!r}")
        return dict(self.steps[step]["outputs"])

    def recorded(self, step: str) -> Outputs:
        """A step's outputs, or none when it has not run (for steps whose outputs are optional to a later one)."""
        return dict(self.steps.get(step, {}).get("outputs", {}))

    def key(self, step: str) -> str | None:
        """What a later step's record keeps of this one: changes whenever the step is made again differently."""
        record = self.steps.get(step)
        if record is None:
            return None
        return content_key([record["outputs"], record["inputs"]], record["settings"])


def changed_settings(
    before: dict[str, Any],
    now: dict[str, Any],
    defaults: dict[str, Any] | None = None,
    resolved: Collection[str] = (),
) -> str:
    """`a.b 0.05 → 0.1, c.d 3 → 4 and 2 more`: what differs between two settings, for one line ("" when nothing).

    A setting `before` lacks but `defaults` holds was added by a later version: the run that recorded
    `before` behaved as its default, so only a value other than the default counts as a change. A setting in
    `resolved` was left unset and is recorded as decided; a version that recorded it unset (None) made the same
    choice.
    """
    old, new, fallback = flatten(before), flatten(now), flatten(defaults or {})
    old |= {name: value for name, value in fallback.items() if name not in old}
    old |= {name: new[name] for name in resolved if name in old and old[name] is None}
    names = sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))
    shown = ", ".join(f"{name} {old.get(name)} → {new.get(name)}" for name in names[:SHOWN_CHANGES])
    return shown + (f" and {len(names) - SHOWN_CHANGES} more" if len(names) > SHOWN_CHANGES else "")


def step_range(names: Sequence[str], start: str | None, until: str | None) -> list[str]:
    """The steps of `names` from `start` to `until` inclusive, in their order."""
    for name in (start, until):
        if name is not None and name not in names:
            raise ConfigError(f"unknown step {name!r}; steps are {', '.join(names)}")
    first = names.index(start) if start else 0
    last = names.index(until) if until else len(names) - 1
    if first > last:
        raise ConfigError(f"--from {start} comes after --until {until}")
    return list(names[first : last + 1])


class StepRunner:
    """Runs a step table over a `StepState`: skips what is recorded, times and records the rest.

    `stage` names the runner in its lines (`[semcse <stage>] ✓ train: done in an earlier run,
    skipped`) and its metrics (`<stage>/<step>_seconds`); `headings` opens each step run with a
    heading line. `on_step(name)` is called after a step's work and before it is recorded (progress
    hooks; tests that stand in for a kill at the worst moment). `reads[step]` names the earlier
    steps whose outputs it uses and `settings[step]` (JSON-serialisable) what shapes its outputs; a
    step given neither is reused whenever it is recorded. `defaults[step]` are the values its
    settings take when nobody sets them: a record from a version that lacked a setting is compared
    as if it held the default, so a new setting alone never redoes a step; `resolved[step]` are the
    settings the run left for the version to decide (`changed_settings`).
    """

    def __init__(
        self,
        stage: str,
        table: Mapping[str, Step],
        state: StepState,
        headings: bool = True,
        on_step: Callable[[str], None] | None = None,
        reads: Mapping[str, Sequence[str]] | None = None,
        settings: Mapping[str, Mapping[str, Any]] | None = None,
        defaults: Mapping[str, Mapping[str, Any]] | None = None,
        resolved: Mapping[str, Collection[str]] | None = None,
    ) -> None:
        self.stage, self.table, self.state = stage, dict(table), state
        self.headings, self.on_step = headings, on_step
        self.parent: Tracker | None = None  # the MLflow run `run` works under, once started
        self.reads = {name: tuple((reads or {}).get(name, ())) for name in self.table}
        self.settings, self.defaults = self._as_recorded(settings), self._as_recorded(defaults)
        self.resolved = {name: tuple((resolved or {}).get(name, ())) for name in self.table}

    def _as_recorded(self, per_step: Mapping[str, Mapping[str, Any]] | None) -> dict[str, Any]:
        """Each step's settings as a record keeps them after a JSON round trip (tuples become lists), so that equal
        settings compare equal."""
        return {name: json.loads(json.dumps((per_step or {}).get(name, {}))) for name in self.table}

    @property
    def names(self) -> list[str]:
        return list(self.table)

    @property
    def complete(self) -> bool:
        return all(name in self.state.steps for name in self.table)

    def run(
        self,
        tracking: TrackingConfig,
        start_run: Callable[[], Tracker],
        steps: Sequence[str] | None = None,
        force: bool = False,
    ) -> StepState:
        """Run `steps` (default: the whole table) under the parent run, resumed or started by `start_run`.

        `force` reruns steps recorded earlier. The parent run ends FINISHED once every step of the
        table is recorded, FAILED when a step raises, and stays open after a slice that leaves steps.
        """
        chosen = self.names if steps is None else list(steps)
        read = self._read_by(chosen)
        for step in [name for name in self.names if name in read and name not in chosen]:  # read, not run
            reason = self.outdated(step)
            if reason is not None:
                log.info(
                    "! %s: %s, but this run does not include it, so its earlier outputs are used",
                    step,
                    reason,
                    extra=logs.stage(self.stage),
                )
        tracker = self.parent = self._parent(tracking, start_run)
        try:
            with tracker.as_parent():
                for step in chosen:
                    self._run_step(step, tracker, force)
        except BaseException:
            tracker.finish("FAILED")
            raise
        if self.complete:
            tracker.finish("FINISHED")
        return self.state

    def redo(self, step: str, parent: Tracker | None) -> Outputs:
        """Run one of this table's steps again and record it, under `parent`, another table's run: how an update
        remakes the build's own steps on the grown corpus, with no runner nested inside its step."""
        self._run_step(step, parent, force=True)
        return self.state.outputs(step)

    def _parent(self, tracking: TrackingConfig, start_run: Callable[[], Tracker]) -> Tracker:
        if self.state.parent_run_id:
            return Tracker.resume(tracking, self.state.parent_run_id)
        tracker = start_run()
        self.state.parent_run_id = tracker.run_id
        self.state.save()
        return tracker

    def _read_by(self, steps: Sequence[str]) -> set[str]:
        """The steps whose outputs `steps` use, directly or through other steps."""
        found: set[str] = set()
        waiting = [read for step in steps for read in self.reads[step]]
        while waiting:
            step = waiting.pop()
            if step not in found:
                found.add(step)
                waiting += self.reads[step]
        return found

    def outdated(self, step: str) -> str | None:
        """Why a recorded step is not the one this run asks for (None when it is, or when it has not run)."""
        record = self.state.steps.get(step)
        if record is None:
            return None
        changed = changed_settings(record["settings"], self.settings[step], self.defaults[step], self.resolved[step])
        if changed:
            return f"changed since the earlier run: {changed}"
        remade = [name for name in self.reads[step] if record["inputs"].get(name) != self.state.key(name)]
        if remade:
            return f"{' and '.join(remade)} {'was' if len(remade) == 1 else 'were'} made again since it ran"
        return None

    def _run_step(self, step: str, tracker: Tracker | None, force: bool) -> None:
        if step in self.state.steps and not force:
            reason = self.outdated(step)
            if reason is None:
                log.info("✓ %s: done in an earlier run, skipped", step, extra=logs.stage(self.stage))
                return
            log.info("↻ %s: %s; running it again", step, reason, extra=logs.stage(self.stage))
        if self.headings:
            log.info(step, extra=logs.HEADING)
        began = time.time()
        outputs = self.table[step]()
        if self.on_step is not None:
            self.on_step(step)
        seconds = round(time.time() - began, 2)
        inputs = {name: self.state.key(name) for name in self.reads[step]}
        self.state.steps[step] = {
            "outputs": outputs,
            "seconds": seconds,
            "settings": self.settings[step],
            "inputs": inputs,
        }
        self.state.save()
        if tracker is not None:
            tracker.log_metrics({f"{self.stage}/{step}_seconds": seconds})
