"""One training step's cost against `training.forward_batch_size`, the chunk a step's texts are encoded in.

A step's texts are sorted by token count and encoded chunk by chunk, each padded to its own longest text
(`models.token_batches`): small chunks compute less padding, large ones make larger matrix products. Where the
balance lies depends on the texts (title pairs put a 20-token title beside a 128-token abstract; crop pairs are
alike in length), on the precision and on the threads per worker, so this times the step a training worker runs
(tokenise, forward under the run's precision, InfoNCE, backward, AdamW) in one process for each chunk size,
interleaved over `--repeats` rounds so that a machine's drift hits every size alike, and prints each size's median
against the first one's. Defaults: what one of the default 2 workers does on this machine (its share of a 32-pair
batch, its share of the cores). Raw figures go to
benchmarks/results/forward-chunks-<workers>w-<precision>-<commit>.json. Not a test.

    .venv/bin/python benchmarks/forward_chunks.py --pairs title crops --chunks 8 16 32
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
from _common import minilm_dir, ohsumed_split, save_results

from semcse.config import TrainingConfig
from semcse.models.token_batches import TokenBatches
from semcse.training.engine import build_encoder, parameter_groups
from semcse.training.objective import TEXTS, PairObjective
from semcse.training.positives import crops
from semcse.training.precision import training_forward


def pairs_of(kind: str, abstracts: int, tc: TrainingConfig) -> list[tuple[str, str]]:
    """(anchor, positive) texts as training draws them: title → abstract, or an abstract's first → last crop."""
    rows = ohsumed_split("train", abstracts)
    if kind == "title":
        return list(zip(rows["title"].astype(str), rows["abstract"].astype(str), strict=True))
    windows = [crops(a, tc.crop_sentences, tc.min_sentence_chars, tc.max_sentence_chars) for a in rows["abstract"]]
    return [(w[0], w[-1]) for w in windows if len(w) >= 2]


def step_seconds(
    tc: TrainingConfig, pairs: list[tuple[str, str]], per: int, chunks: list[int], args: argparse.Namespace
) -> dict[int, list[float]]:
    """Each chunk size's median seconds per step, one figure per round."""
    encoder = build_encoder(tc)
    encoder.train()
    optimizer = torch.optim.AdamW(parameter_groups(encoder, tc.weight_decay), lr=tc.learning_rate)
    objective = PairObjective(tc)  # the trainer's loss on a step's texts (anchors, then positives)
    forward = training_forward(encoder, tc.model_copy(update={"cpu_bf16": args.bf16}))

    def one_step(step: int, chunk: int) -> float:
        start = (step * per) % (len(pairs) - per)
        anchors, positives = zip(*pairs[start : start + per], strict=True)
        started = time.perf_counter()
        texts = TokenBatches.build(encoder.tokenizer, [*anchors, *positives], args.seq, chunk)
        objective.loss(forward, {TEXTS: texts}).backward()
        optimizer.step()
        optimizer.zero_grad()
        return time.perf_counter() - started

    rounds: dict[int, list[float]] = {chunk: [] for chunk in chunks}
    step = 0
    for _ in range(args.repeats):
        for chunk in chunks:
            times = [one_step(step + i, chunk) for i in range(args.steps + 1)][1:]  # the first warms up
            step += args.steps + 1
            rounds[chunk].append(statistics.median(times))
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", nargs="+", default=["title", "crops"], choices=["title", "crops"])
    parser.add_argument("--chunks", nargs="+", type=int, default=[8, 16, 32], help="the first is the reference")
    parser.add_argument("--workers", type=int, default=2, help="the run being imitated: its batch and cores split")
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
    threads = max(1, (os.cpu_count() or 2) // args.workers)
    torch.set_num_threads(threads)
    per = args.batch // args.workers
    tc = TrainingConfig(pairs="crops", base_model=str(minilm_dir()), loss="infonce")
    precision = "bf16 autocast" if args.bf16 else "fp32"
    print(f"one worker of {args.workers}: {per} pairs per step, {threads} thread(s), {precision}, seq {args.seq}")
    results: dict[str, dict[int, list[float]]] = {}
    for kind in args.pairs:
        rounds = step_seconds(tc, pairs_of(kind, args.abstracts, tc), per, args.chunks, args)
        results[kind] = rounds
        reference = statistics.median(rounds[args.chunks[0]])
        for chunk, seconds in rounds.items():
            median = statistics.median(seconds)
            print(
                f"{kind:6} chunk {chunk:>3}: {median:.3f} s/step (rounds {' '.join(f'{s:.3f}' for s in seconds)}), "
                f"{median / reference:.2f}× chunk {args.chunks[0]}'s time"
            )
    save_results(
        f"forward-chunks-{args.workers}w-{'bf16' if args.bf16 else 'fp32'}",
        {"args": vars(args), "threads": threads, "seconds_per_step": results},
    )


if __name__ == "__main__":
    main()
