"""Crash partway, rerun: the rest is finished, nothing is duplicated, nothing is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from semcse.data.schema import TEXTS_SCHEMA
from semcse.generation import run_generation

from tests.generation.checks import assert_complete


class Crash(RuntimeError):
    """Stands in for the driver dying after some shards are on disk."""


@pytest.mark.slow
def test_rerun_after_crash_finishes_the_rest(ray_cluster, gen_config):
    cfg = gen_config("generation.task=summaries", "generation.limit=6", "generation.samples_per_prompt=1")
    out = Path(cfg.generation.out)
    written: list[str] = []

    def crash_after_two(key: str) -> None:
        written.append(key)
        if len(written) == 2:
            raise Crash("driver killed")

    with pytest.raises(Crash):
        run_generation(cfg, on_shard_written=crash_after_two)
    assert len(list(out.glob("part-*.parquet"))) == 2

    report = run_generation(cfg)
    assert report.shards_total == 3 and report.shards_skipped == 2 and report.shards_written == 1
    assert report.units == 2
    assert_complete(out, ["id", "prompt_id", "sample"], 6 * 2 * 1, TEXTS_SCHEMA)

    again = run_generation(cfg)
    assert again.shards_skipped == 3 and again.shards_written == 0 and again.units == 0


def test_changed_settings_do_not_reuse_old_shards(gen_config):
    """A shard key covers the settings that shape output: new sampling → new keys, nothing skipped."""
    from semcse.generation.pipeline import Generation

    base = Generation(gen_config("generation.task=summaries")).plan()[0]
    hotter = Generation(gen_config("generation.task=summaries", "generation.temperature=1.3")).plan()[0]
    assert {s.key for s in base}.isdisjoint({s.key for s in hotter})
    assert [s.key for s in base] == [s.key for s in Generation(gen_config("generation.task=summaries")).plan()[0]]
