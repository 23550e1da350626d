"""Ray Data generation pipeline vs. a plain in-process `generate` loop: same prompts, same model.

    .venv/bin/python benchmarks/generation.py [--model PATH] [--abstracts 256] [--actors N] [--cpus-per-actor N]

The plain loop calls the very actor class the pipeline uses, in-process and batch by batch, so
the ratio is the pipeline's own cost (Ray Data scheduling, actor start-up, shard writes,
parsing, retries of unparsable answers) against the generation work, or its gain when several
actors share the cores. Both sides get the same cores (the plain loop's torch uses them all; the
actors split them, `--cpus-per-actor` each, which sets their torch threads) and sample with the
same settings; throughput is compared in generated tokens per second.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "sample_corpus.jsonl"


def corpus_file(directory: Path, abstracts: int) -> Path:
    """The sample corpus repeated (with fresh ids) up to `abstracts` rows."""
    records = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    path = directory / "corpus.jsonl"
    with path.open("w") as handle:
        for i in range(abstracts):
            handle.write(json.dumps({**records[i % len(records)], "id": f"bench-{i:05d}"}) + "\n")
    return path


def plain_loop(cfg, model: str, stop: bool = True) -> dict[str, float]:
    """Requests built and generated in this process, one batch after another.

    `stop=False` drops the task's stop strings, to count what decoding past the kept sentence costs.
    """
    import copy

    from semcse.core.data.io import read_corpus
    from semcse.stages.generation.engines import TransformersGenerator, encodable_stop_strings
    from semcse.stages.generation.stages import SHARD
    from semcse.stages.generation.tasks import build_task
    from semcse.stages.generation.tokens import TokenCounter

    gen = cfg.generation
    task = build_task(gen)
    if not stop:
        task = copy.copy(task)
        task.stop = ()
    counter = TokenCounter(model)
    units = task.units(read_corpus(cfg.corpus.path, cfg.corpus))
    wanted = task.samples()
    started = time.perf_counter()
    stops = encodable_stop_strings(model, task.stop)
    generator = TransformersGenerator(
        model, gen.new_tokens, gen.sampling_temperature, gen.top_p, gen.seed, task=task, stop_strings=stops
    )
    requests = []
    for unit in units.to_dict("records"):
        built, removed = task.requests(unit, counter, gen.max_model_len - gen.new_tokens)
        for r in built:
            requests.append(
                {
                    SHARD: "",
                    "unit": unit["unit"],
                    "prompt_id": r.prompt_id,
                    "samples": list(range(wanted[r.prompt_id])),
                }
                | {"chat": r.chat, "system": r.system, "prompt": r.prompt, "truncated": removed}
            )
    samples = tokens = kept = 0
    for start in range(0, len(requests), gen.rows_per_batch):
        batch = requests[start : start + gen.rows_per_batch]
        for request, result in zip(batch, generator.generate(batch, len(batch[0]["samples"]))):
            samples += len(result["raws"])
            tokens += result["generated_tokens"]
            answers = zip(result["raws"], result["finish_reasons"])
            kept += sum(task.parse(request["prompt_id"], raw, finish).status == "ok" for raw, finish in answers)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "samples": samples, "tokens": tokens, "kept": kept}


def pipeline(cfg) -> dict[str, float]:
    from semcse.stages.generation import run_generation

    started = time.perf_counter()
    report = run_generation(cfg)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "samples": report.metrics["samples"], "tokens": report.metrics["generated_tokens"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="local causal LM directory (default: a tiny Llama built on the spot)")
    parser.add_argument("--abstracts", type=int, default=256)
    parser.add_argument("--actors", type=int, help="default: one per core")
    parser.add_argument("--cpus-per-actor", type=int, help="default: this machine's cores / actors")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    actors = args.actors or cores
    cpus_per_actor = args.cpus_per_actor or max(1, cores // actors)

    import ray
    import torch

    from semcse.core.config import load_config
    from semcse.testing import build_tiny_causal_lm

    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        model = args.model or str(build_tiny_causal_lm(tmp_dir / "lm", [SAMPLE.read_text()], hidden_size=64))
        cfg = load_config(
            None,
            [
                f"corpus.path={corpus_file(tmp_dir, args.abstracts)}",
                f"generation.model={model}",
                f"generation.out={tmp_dir / 'out'}",
                f"generation.concurrency={actors}",
                f"generation.num_cpus_per_actor={cpus_per_actor}",
                f"generation.batch_size={args.batch_size}",
                f"generation.max_new_tokens={args.max_new_tokens}",
                "generation.max_model_len=1024",
                "generation.shard_rows=8",
                "tracking.enabled=false",
            ],
        )
        ray.init(num_cpus=max(cores, actors * cpus_per_actor), include_dashboard=False, logging_level="ERROR")
        loop = plain_loop(cfg, model)
        unstopped = plain_loop(cfg, model, stop=False)
        ray_data = pipeline(cfg)
        ray.shutdown()

    print(f"{args.abstracts} abstracts x 5 prompts x 3 samples, max_new_tokens={args.max_new_tokens}, model={model}")
    pipeline_name = f"Ray Data pipeline ({actors} actor x {cpus_per_actor} CPU)"
    print(f"{cores} cores; the plain loop's torch uses {torch.get_num_threads()} threads")
    for name, result in (("plain generate loop", loop), (pipeline_name, ray_data)):
        print(
            f"{name:40s} {result['seconds']:7.1f} s  {result['samples'] / result['seconds']:8.1f} samples/s  "
            f"{result['tokens'] / result['seconds']:9.1f} generated tokens/s"
        )
    ratio = (ray_data["tokens"] / ray_data["seconds"]) / (loop["tokens"] / loop["seconds"])
    print(f"pipeline / plain loop throughput (generated tokens/s): {ratio:.2f}x")
    per_kept = {name: r["tokens"] / max(r["kept"], 1) for name, r in (("stop", loop), ("no stop", unstopped))}
    print(
        f"tokens decoded per kept summary: {per_kept['stop']:.1f} stopping at the end of the line, "
        f"{per_kept['no stop']:.1f} without ({per_kept['no stop'] / per_kept['stop']:.2f}x)"
    )


if __name__ == "__main__":
    main()
