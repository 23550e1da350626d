"""Reruns into one output: the rest is finished, nothing is duplicated, nothing is missing. A run killed partway is
tests/code/generation/test_http_engine.py's `test_a_killed_run_resumes_losing_only_work_in_flight`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from semcse.stages.generation import run_generation


@pytest.mark.slow
def test_limit_then_full_then_new_settings_never_duplicate_or_mix(ray_cluster, gen_config):
    """docs/generate.md's smoke test (`--limit 8`), the full run, then a changed setting, all into one --out."""
    from semcse.core.data.generated import GeneratedDataError, read_texts

    common = ("generation.task=summaries", "generation.samples_per_prompt=1", "generation.shard_rows=3")
    out = Path(gen_config(*common).generation.out)
    smoke = run_generation(gen_config(*common, "generation.limit=2"))
    assert (smoke.units, smoke.units_reused) == (2, 0)
    full = run_generation(gen_config(*common, "generation.limit=5"))
    assert (full.units, full.units_reused) == (3, 2), "the smoke test's 2 abstracts are reused, not redone"
    texts = read_texts(out)
    assert len(texts) == 5 * 2 and not texts.duplicated(["id", "prompt_id", "sample"]).any()
    assert texts["id"].nunique() == 5

    # a stray part file (an older run's leftover) is not in the manifest: readers never see it
    texts.head(1).to_parquet(out / "part-stale.parquet")
    assert len(read_texts(out)) == 5 * 2

    hotter = run_generation(gen_config(*common, "generation.limit=5", "generation.temperature=1.3"))
    assert (hotter.units, hotter.units_reused) == (5, 0), "another setting reuses nothing"
    with pytest.raises(GeneratedDataError, match="2 different generation settings.*combine_settings"):
        read_texts(out)
    # combining on purpose still refuses the duplicates two settings make for the same samples
    with pytest.raises(GeneratedDataError, match="share their identity"):
        read_texts(out, combine=True)


def test_a_failing_sample_holds_back_only_its_own_unit(gen_config):
    """With retry rounds left, a shard's final units are written at once; only the failing unit waits."""
    from semcse.core.data.generated import Manifest, read_texts
    from semcse.stages.generation.parsing import Parsed
    from semcse.stages.generation.runner import Generation, GenerationReport, Sample

    cfg = gen_config("generation.task=summaries", "generation.samples_per_prompt=1", "generation.shard_rows=4")
    generation = Generation(cfg)
    generation.rounds = 2  # as for the http and vllm engines with max_json_retries=1
    (shard,), _, _ = generation.plan()
    generation.in_flight = {shard.key: shard}
    units = list(shard.units["unit"])
    for unit in units:
        for prompt_id in generation.task.samples():
            ok = unit != units[1] or prompt_id != "p1"
            parsed = Parsed("ok", text=f"summary of {unit}") if ok else Parsed("invalid", reason="not JSON")
            shard.results[(unit, prompt_id, 0)] = Sample(parsed, "raw", 1, "")
    report = GenerationReport("summaries", "transformers", "m", str(generation.out), 4, 0, 1)
    held: list[str] = []
    generation.complete(shard, attempt=0, held=held, report=report)

    (waiting_key,) = held
    waiting = generation.in_flight[waiting_key]
    assert list(waiting.units["unit"]) == [units[1]] and waiting.retry == {units[1]: {"p1": [0]}}
    assert waiting.pending == 1 and set(waiting.results) == {(units[1], p, 0) for p in generation.task.samples()}
    written = read_texts(generation.out)
    assert set(written["id"]) == set(units) - {units[1]} and report.shards_written == 1
    assert set(Manifest.load(generation.out).finished_units(generation.settings_key)) == set(units) - {units[1]}


def test_a_unit_the_engine_failed_on_is_neither_written_nor_rejected_nor_finished(gen_config):
    """An engine error (an outage) says nothing about the unit: it stays unfinished for the next run, whole."""
    from semcse.core.data.generated import Manifest, read_texts
    from semcse.stages.generation.parsing import Parsed
    from semcse.stages.generation.runner import REJECTS_DIR, Generation, GenerationReport, Sample

    cfg = gen_config("generation.task=summaries", "generation.samples_per_prompt=1", "generation.shard_rows=4")
    generation = Generation(cfg)
    (shard,), _, _ = generation.plan()
    units = list(shard.units["unit"])
    for unit in units:
        for prompt_id in generation.task.samples():
            failed = unit == units[2] and prompt_id == "p0"
            parsed = Parsed("invalid", reason="engine error: http 503") if failed else Parsed("ok", text=f"of {unit}")
            shard.results[(unit, prompt_id, 0)] = Sample(parsed, "", 1, "http 503: down" if failed else "")
    report = GenerationReport("summaries", "transformers", "m", str(generation.out), 4, 0, 1)
    generation.write(shard, report)

    assert (report.units_unfinished, report.engine_errors, report.rejects_written) == (1, {"http 503": 1}, 0)
    assert set(read_texts(generation.out)["id"]) == set(units) - {units[2]}, "not even its good sample is read"
    assert set(Manifest.load(generation.out).finished_units(generation.settings_key)) == set(units) - {units[2]}
    assert len(pd.read_parquet(Path(generation.out) / REJECTS_DIR)) == 0
    todo, _, reused = Generation(cfg).plan()
    assert reused == 3 and [list(s.units["unit"]) for s in todo] == [[units[2]]], "the rerun redoes exactly it"


def test_changed_settings_change_the_shard_keys(gen_config):
    """A shard key covers the settings that shape output: new sampling → new keys, nothing skipped."""
    from semcse.stages.generation.runner import Generation

    base = Generation(gen_config("generation.task=summaries")).plan()[0]
    hotter = Generation(gen_config("generation.task=summaries", "generation.temperature=1.3")).plan()[0]
    assert {s.key for s in base}.isdisjoint({s.key for s in hotter})
    assert [s.key for s in base] == [s.key for s in Generation(gen_config("generation.task=summaries")).plan()[0]]
