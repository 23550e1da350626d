"""LLM text generation (SemCSE summaries, SemCSE-Multi aspect summaries, queries, pairwise judgements) on Ray Data."""

from __future__ import annotations

from semcse.stages.generation.runner import GenerationIncomplete, GenerationReport, run_generation

__all__ = ["GenerationIncomplete", "GenerationReport", "run_generation"]
