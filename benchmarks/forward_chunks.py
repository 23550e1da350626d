"""One training step's cost against `training.forward_batch_size`, the chunk a step's texts are encoded in.

A step's texts are sorted by token count and encoded chunk by chunk, each padded to its own longest text
(`models.token_batches`): small chunks compute less padding, large ones make larger matrix products. Where the
balance lies depends on the texts (title pairs put a 20-token title beside a 128-token abstract; crop pairs are
alike in length), on the precision and on the threads per worker, so this runs what a training run's workers run,
all at once as they do: `--workers` processes in one gloo group, each with its share of the batch and of the cores,
each stepping the trainer's DeepSpeed engine (tokenise, forward under the run's precision, InfoNCE, backward with
the gradient all-reduce, AdamW). It times each chunk size interleaved over `--repeats` rounds, so that a machine's
drift hits every size alike, and prints each size's median against the first one's. Raw figures go to
benchmarks/results/forward-chunks-<workers>w-<precision>-<commit>.json. Not a test.

    .venv/bin/python benchmarks/forward_chunks.py --pairs title crops --chunks 8 16 32
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import torch.distributed as dist
import torch.multiprocessing as mp
from _common import free_port, minilm_dir, pairs_of, save_results

from semcse.core.config import TrainingConfig
from semcse.models.token_batches import TokenBatches
from semcse.stages.training.engine import build_encoder, deepspeed_config, parameter_groups
from semcse.stages.training.objective import TEXTS, PairObjective
from semcse.stages.training.precision import training_forward
from tests.fixtures.loopback import join_cpu_group


def worker(rank: int, args: argparse.Namespace, port: int, results: Any) -> None:
    """One worker of the imitated run: its share of every global batch, timed per chunk size; rank 0's medians go
    to `results` (the slowest worker sets the pace, and the all-reduce makes every worker wait for it)."""
    threads = max(1, (os.cpu_count() or 2) // args.workers)
    join_cpu_group(rank, args.workers, port, threads)
    import deepspeed

    tc = TrainingConfig(
        pairs="crops",
        base_model=str(minilm_dir()),
        loss="infonce",
        batch_size=args.batch,
        num_workers=args.workers,
        max_steps=10**6,
        cpu_bf16=args.bf16,
    )
    per = tc.worker_batch_size
    encoder = build_encoder(tc)
    engine, *_ = deepspeed.initialize(
        model=encoder,
        model_parameters=parameter_groups(encoder, tc.weight_decay),
        config=deepspeed_config(tc),
        dist_init_required=False,
    )
    engine.train()
    objective = PairObjective(tc)  # the trainer's loss on a step's texts (anchors, then positives)
    forward = training_forward(engine, tc)
    step = 0

    def one_step(pairs: list[tuple[str, str]], chunk: int) -> float:
        nonlocal step
        start = (step * args.batch + rank * per) % (len(pairs) - args.batch)
        anchors, positives = zip(*pairs[start : start + per], strict=True)
        step += 1
        dist.barrier()  # every worker starts the step together, as the previous step's all-reduce leaves them
        started = time.perf_counter()
        texts = TokenBatches.build(encoder.tokenizer, [*anchors, *positives], args.seq, chunk)
        engine.backward(objective.loss(forward, {TEXTS: texts}))
        engine.step()
        return time.perf_counter() - started

    measured: dict[str, dict[int, list[float]]] = {}
    for kind in args.pairs:
        pairs = pairs_of(kind, args.abstracts, tc)
        rounds: dict[int, list[float]] = {chunk: [] for chunk in args.chunks}
        for _ in range(args.repeats):
            for chunk in args.chunks:
                times = [one_step(pairs, chunk) for _ in range(args.steps + 1)][1:]  # the first warms up
                rounds[chunk].append(statistics.median(times))
        measured[kind] = rounds
    if rank == 0:
        results.put((threads, measured))
    dist.destroy_process_group()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", nargs="+", default=["title", "crops"], choices=["title", "crops"])
    parser.add_argument("--chunks", nargs="+", type=int, default=[8, 16, 32], help="the first is the reference")
    parser.add_argument("--workers", type=int, default=2, help="training workers, run at once; they split the cores")
    parser.add_argument("--batch", type=int, default=32, help="pairs per step over all workers")
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--steps", type=int, default=8, help="timed steps per chunk size per round")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--abstracts", type=int, default=2000)
    parser.add_argument(
        "--fp32",
        dest="bf16",
        action="store_false",
        help="no bf16 autocast (default: bf16, as on a CPU with native bf16)",
    )
    args = parser.parse_args()
    context = mp.get_context("spawn")
    results = context.SimpleQueue()
    mp.start_processes(worker, args=(args, free_port(), results), nprocs=args.workers, start_method="spawn")
    threads, measured = results.get()
    precision = "bf16 autocast" if args.bf16 else "fp32"
    share = f"{args.batch // args.workers} pairs and {threads} thread(s) each"
    print(f"{args.workers} worker(s) at once, {share}, {precision}, seq {args.seq}")
    for kind, rounds in measured.items():
        reference = statistics.median(rounds[args.chunks[0]])
        for chunk, seconds in rounds.items():
            median = statistics.median(seconds)
            print(
                f"{kind:6} chunk {chunk:>3}: {median:.3f} s/step (rounds {' '.join(f'{s:.3f}' for s in seconds)}), "
                f"{median / reference:.2f}× chunk {args.chunks[0]}'s time"
            )
    save_results(
        f"forward-chunks-{args.workers}w-{'bf16' if args.bf16 else 'fp32'}",
        {"args": vars(args), "threads": threads, "seconds_per_step": measured},
    )


if __name__ == "__main__":
    main()
