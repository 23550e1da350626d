"""The kernels a CPU training run picks, each against the obvious alternative, on one worker's share of a step.

- attention in a training step (`training/attention.py`): transformers' eager attention against torch's SDPA, for
  the trainer's loss forward and backward on `--batch` title or crop pairs in train mode (attention dropout on),
  under the run's precision (bf16 autocast on a CPU with native bf16);
- attention in validation: the same two for `TextEncoder.encode` of `--val` abstracts (eval mode, no gradients);
- the optimizer step (`engine.deepspeed_config`): torch's AdamW with `fused=True` against its default
  per-tensor loop, on all-MiniLM-L6-v2's parameter groups.

One process with `--threads` threads (a 2-core machine's training worker has one). Each pair of choices is timed
interleaved over `--repeats` rounds, so that the host's drift hits both alike; prints medians and the ratio
chosen / alternative, and saves raw figures to benchmarks/results/cpu-kernels-<bf16|fp32>-<commit>.json. Not a test.

    .venv/bin/python benchmarks/cpu_kernels.py
    .venv/bin/python benchmarks/cpu_kernels.py --threads 2 --fp32
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch
from _common import minilm_dir, ohsumed_split, pairs_of, save_results

from semcse.core.config import TrainingConfig
from semcse.models.token_batches import TokenBatches
from semcse.stages.training.engine import build_encoder, parameter_groups
from semcse.stages.training.objective import TEXTS, PairObjective
from semcse.stages.training.precision import training_forward


def interleaved(choices: dict[str, Callable[[], None]], steps: int, repeats: int) -> dict[str, list[float]]:
    """Each choice's median seconds per call in every round, the choices alternating within each round."""
    rounds: dict[str, list[float]] = {name: [] for name in choices}
    for _ in range(repeats):
        for name, call in choices.items():
            call()  # warm-up: the first call after a switch allocates
            times = []
            for _ in range(steps):
                started = time.perf_counter()
                call()
                times.append(time.perf_counter() - started)
            rounds[name].append(statistics.median(times))
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", nargs="+", default=["title", "crops"], choices=["title", "crops"])
    parser.add_argument("--batch", type=int, default=16, help="pairs per step on this worker (2 workers × 16 = 32)")
    parser.add_argument("--val", type=int, default=256, help="abstracts a validation encodes")
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=6, help="timed calls per choice per round")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fp32", dest="bf16", action="store_false", help="no bf16 autocast")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    tc = TrainingConfig(pairs="crops", base_model=str(minilm_dir()), max_steps=10**6, cpu_bf16=args.bf16)
    encoder = build_encoder(tc)
    backbone = encoder.backbone
    objective = PairObjective(tc)
    forward = training_forward(encoder, tc)

    def attention(implementation: str, call: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            backbone.set_attn_implementation(implementation)
            call()

        return run

    results: dict[str, dict[str, list[float]]] = {}
    for kind in args.pairs:
        pairs = pairs_of(kind, 400, tc)[: args.batch]
        anchors, positives = zip(*pairs, strict=True)
        texts = TokenBatches.build(encoder.tokenizer, [*anchors, *positives], args.seq, tc.forward_batch_size)

        def step(texts: TokenBatches = texts) -> None:
            encoder.train()
            objective.loss(forward, {TEXTS: texts}).backward()
            encoder.zero_grad(set_to_none=True)

        choices = {"eager": attention("eager", step), "sdpa": attention("sdpa", step)}
        results[f"step-{kind}"] = interleaved(choices, args.steps, args.repeats)

    abstracts = ohsumed_split("train", args.val)["abstract"].astype(str).tolist()

    def encode() -> None:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            encoder.encode(abstracts, max_length=args.seq)

    choices = {"sdpa": attention("sdpa", encode), "eager": attention("eager", encode)}
    results["validation"] = interleaved(choices, max(1, args.steps // 3), args.repeats)

    parameters = list(encoder.parameters())
    generator = torch.Generator().manual_seed(0)
    for parameter in parameters:
        parameter.grad = torch.randn(parameter.shape, generator=generator) * 1e-3
    optimizers = {
        name: torch.optim.AdamW(parameter_groups(encoder, tc.weight_decay), lr=1e-9, **extra)
        for name, extra in (("fused", {"fused": True}), ("per-tensor", {}))
    }
    results["adamw"] = interleaved({name: opt.step for name, opt in optimizers.items()}, args.steps, args.repeats)

    precision = "bf16 autocast" if args.bf16 else "fp32"
    print(f"all-MiniLM-L6-v2, {args.threads} thread(s), {precision}, seq {args.seq}, {args.repeats} rounds, medians")
    for what, rounds in results.items():
        chosen, alternative = list(rounds)
        ours, theirs = (statistics.median(rounds[name]) for name in (chosen, alternative))
        print(f"{what:12} {chosen} {ours:.3f} s, {alternative} {theirs:.3f} s: {ours / theirs:.2f}× the time")
    save_results(f"cpu-kernels-{'bf16' if args.bf16 else 'fp32'}", {"args": vars(args), "seconds": results})


if __name__ == "__main__":
    main()
