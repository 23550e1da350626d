"""One global batch gives the same loss and the same gradients on 1 worker as on 2 (real DeepSpeed, gloo).

Each worker holds half of the global batch; its loss sees every worker's positives as negatives
through the differentiable all-gather, and DeepSpeed averages the gradients. Detached gathering
(the earlier code) loses the gradient other workers' anchors send to a worker's positives: with
2 workers that is off by about half for the positive embeddings, which this test catches at once.
Dropout is off (eval mode) so the only difference between the runs is how the batch is split (across
workers, and into length-sorted forward chunks within each worker). `infonce+base` adds the term that keeps a
base model's in-batch similarities (a perturbed copy, so that it pulls): it gathers positives the same way.
The distillation loss, whose masked entries can fall unevenly between workers, is checked the same way on
plain gloo (DeepSpeed's gradient averaging done by hand).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch.multiprocessing as mp

from tests.fixtures.loopback import free_port, join_cpu_group

PAIRS = 8
SENTENCES_PER_TEXT = 2


LOSSES = ["infonce", "triplet", "infonce+base"]


def one_step(rank: int, world: int, port: int, model_dir: str, texts: list[str], out: str) -> None:
    """Worker `rank` of `world`: for each of `LOSSES`, a fresh engine encodes its slice of the global batch and
    takes one step; rank 0 records each loss's loss, gradients and updated parameters. One process group serves
    every loss, so the test starts 3 processes, not 9 (each imports DeepSpeed: seconds on 2 cores)."""
    join_cpu_group(rank, world, port)
    import torch.distributed as dist

    records = {loss: _step(rank, world, model_dir, texts, loss) for loss in LOSSES}
    if rank == 0:
        Path(out).write_text(json.dumps(records))
    dist.barrier()
    dist.destroy_process_group()


def _step(rank: int, world: int, model_dir: str, texts: list[str], loss: str) -> dict:
    import deepspeed
    import torch
    import torch.distributed as dist
    from deepspeed.utils import safe_get_full_grad

    from semcse.core.config import TrainingConfig
    from semcse.models.token_batches import TokenBatches
    from semcse.stages.training.engine import build_encoder, deepspeed_config, parameter_groups
    from semcse.stages.training.objective import BASE, TEXTS, PairObjective
    from semcse.stages.training.reference import BaseReference

    loss, keep_base, _ = loss.partition("+base")
    cfg = TrainingConfig(
        pairs="crops",
        loss=loss,
        base_model=model_dir,
        batch_size=PAIRS,
        num_workers=world,
        learning_rate=1e-3,
        base_similarity_weight=100.0 if keep_base else 0.0,  # the term's gradients as large as InfoNCE's
        cpu_bf16=False,
    )
    model = build_encoder(cfg)
    model.eval()
    reference = BaseReference.for_run(model, cfg)
    if reference is not None:  # a reference the model has moved away from, as after some training
        torch.manual_seed(7)
        with torch.no_grad():
            for p in reference.module.parameters():
                p.add_(0.1 * torch.randn_like(p))
        reference.ready(torch.device("cpu"), cfg, bf16=False)
    engine, *_ = deepspeed.initialize(
        model=model, model_parameters=parameter_groups(model, cfg.weight_decay), config=deepspeed_config(cfg)
    )
    share = PAIRS // world
    anchors, positives = texts[:PAIRS], texts[PAIRS:]
    mine = slice(rank * share, (rank + 1) * share)
    # length-sorted chunks of 2 texts: the split into chunks differs between 1 and 2 workers, the result must not
    batch = {TEXTS: TokenBatches.build(model.tokenizer, anchors[mine] + positives[mine], 48, chunk_size=2)}
    if reference is not None:
        batch[BASE] = reference.embed(batch[TEXTS])
    value = PairObjective(cfg).loss(engine, batch)
    engine.backward(value)
    names = [name for name, _ in engine.module.named_parameters()]
    grads = [safe_get_full_grad(p) for p in engine.module.parameters()]
    mean_loss = value.detach().clone()
    dist.all_reduce(mean_loss)
    engine.step()
    if rank != 0:
        return {}
    return {
        "loss": mean_loss.item() / world,
        "grads": {n: g.flatten().tolist() for n, g in zip(names, grads, strict=True) if g is not None},
        "params": {n: p.detach().flatten().tolist() for n, p in engine.module.named_parameters()},
    }


def run(world: int, model_dir: Path, texts: list[str], out: Path) -> dict:
    context = mp.get_context("spawn")
    args = (world, free_port(), str(model_dir), texts, str(out))
    processes = [context.Process(target=one_step, args=(rank, *args)) for rank in range(world)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=180)
    assert all(p.exitcode == 0 for p in processes), [p.exitcode for p in processes]
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def one_and_two_workers(
    tiny_encoder_dir: Path, sample_records: list[dict], tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict, dict]:
    """Every loss's step on 1 worker and on 2, keyed by loss."""
    from semcse.core.data.sentences import split_sentences

    sentences = [split_sentences(r["abstract"]) for r in sample_records[:PAIRS]]
    anchors = [" ".join(s[:SENTENCES_PER_TEXT]) for s in sentences]
    positives = [" ".join(s[1 : 1 + SENTENCES_PER_TEXT]) for s in sentences]
    out = tmp_path_factory.mktemp("worker-invariance")
    return (
        run(1, tiny_encoder_dir, anchors + positives, out / "one.json"),
        run(2, tiny_encoder_dir, anchors + positives, out / "two.json"),
    )


@pytest.mark.parametrize("loss", LOSSES)
def test_two_workers_match_one_worker(one_and_two_workers: tuple[dict, dict], loss: str) -> None:
    single, double = (records[loss] for records in one_and_two_workers)
    assert double["loss"] == pytest.approx(single["loss"], rel=1e-5)
    assert single["grads"].keys() == double["grads"].keys() and single["grads"]
    largest = max(np.abs(g).max() for g in map(np.array, single["grads"].values()))
    for name, reference in single["grads"].items():
        # tolerance relative to the largest gradient: some are zero in exact arithmetic (attention key biases)
        np.testing.assert_allclose(double["grads"][name], reference, rtol=1e-4, atol=1e-6 * largest, err_msg=name)
    for name, reference in single["params"].items():
        np.testing.assert_allclose(double["params"][name], reference, rtol=1e-5, atol=1e-6, err_msg=name)


def _distillation_step(rank: int, world: int, port: int, out: str) -> None:
    """Worker `rank` of `world` (plain gloo): the distillation loss on its rows of one global batch, whose masked
    entries fall unevenly (1 on the first half of the rows, 5 on the second); gradients averaged as DeepSpeed does."""
    import torch
    import torch.distributed as dist

    from semcse.models.losses import MaskedL2Loss

    dist.init_process_group("gloo", rank=rank, world_size=world, init_method=f"tcp://127.0.0.1:{port}")
    predictions = torch.linspace(-1.0, 1.0, 4 * 3 * 2).reshape(4, 3, 2).requires_grad_()
    targets = torch.linspace(0.5, -0.5, 4 * 3 * 2).reshape(4, 3, 2)
    mask = torch.tensor([[1, 0, 0], [0, 0, 0], [1, 1, 1], [0, 1, 1]], dtype=torch.float32)
    mine = slice(rank * 4 // world, (rank + 1) * 4 // world)
    loss = MaskedL2Loss()(predictions[mine], targets[mine], mask[mine])
    loss.backward()
    grad, value = predictions.grad.clone(), loss.detach().clone()
    for tensor in (grad, value):
        dist.all_reduce(tensor)
        tensor /= world
    if rank == 0:
        Path(out).write_text(json.dumps({"loss": value.item(), "grad": grad.flatten().tolist()}))
    dist.destroy_process_group()


def test_distillation_loss_is_the_global_batch_mean_on_any_number_of_workers(tmp_path: Path) -> None:
    context = mp.get_context("spawn")
    results = []
    for world in (1, 2):
        out, port = tmp_path / f"{world}.json", free_port()
        processes = [context.Process(target=_distillation_step, args=(r, world, port, str(out))) for r in range(world)]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=120)
        assert all(p.exitcode == 0 for p in processes), [p.exitcode for p in processes]
        results.append(json.loads(out.read_text()))
    single, double = results
    assert double["loss"] == pytest.approx(single["loss"], rel=1e-6)
    np.testing.assert_allclose(double["grad"], single["grad"], rtol=1e-6, atol=1e-9)


def _global_steps(rows, world: int, cfg, steps: int, start: int = 0) -> list[list[str]]:
    """The texts each global step trains on, over all `world` workers (rank order), through the real batch
    stream and collate of the training loop."""
    from semcse.stages.training.loop import global_batches
    from semcse.stages.training.objective import PairObjective

    streams = [global_batches(rows, cfg.batch_size, rank, world, cfg.seed, start) for rank in range(world)]
    objective = PairObjective(cfg)
    seen = []
    for _ in range(steps):
        texts = []
        for stream in streams:
            anchors, positives = objective.sampler.sample(next(stream), cfg.seed)
            texts += anchors + positives
        seen.append(texts)
    return seen


@pytest.mark.parametrize("pairs", ["crops", "crops:0.5+title:0.5"])
def test_every_steps_pairs_are_the_same_on_one_or_two_workers_and_after_a_resume(
    sample_records: list[dict], pairs: str
) -> None:
    """What each global step trains on is drawn per row from (seed, epoch, global position): 1 and 2 workers
    train on the same pairs at every step (each worker a slice of them), and a run resumed at step 1 draws
    exactly what the uninterrupted run drew at steps 1 and 2. Three steps cross into a second epoch."""
    import pandas as pd

    from semcse.core.config import TrainingConfig
    from semcse.stages.training.positives import build_pair_rows

    cfg = TrainingConfig(pairs=pairs, batch_size=12, num_workers=2, min_sentence_chars=40, seed=5)
    rows = build_pair_rows(pairs, pd.DataFrame(sample_records).head(30), None, cfg)
    assert len(rows) // cfg.batch_size == 2, "two global batches per epoch: step 3 is the next epoch's"
    one = _global_steps(rows, 1, cfg, 3)
    two = _global_steps(rows, 2, cfg, 3)
    share = cfg.worker_batch_size
    for step, (a, b) in enumerate(zip(one, two)):
        # one worker: its anchors then its positives; two: each worker's anchors then positives, in rank order
        single = list(zip(a[: 2 * share], a[2 * share :]))
        double = list(zip(b[:share], b[share : 2 * share])) + list(zip(b[2 * share : 3 * share], b[3 * share :]))
        assert single == double, f"step {step}"
    assert _global_steps(rows, 2, cfg, 2, start=1) == two[1:]
    assert one[2] != one[0], "a new epoch draws new pairs"


def test_dropout_masks_differ_by_worker_and_step_and_repeat_on_resume() -> None:
    from semcse.stages.training.loop import dropout_seed

    seeds = {(step, rank): dropout_seed(7, step, rank) for step in range(3) for rank in range(2)}
    assert len(set(seeds.values())) == 6
    assert dropout_seed(7, 2, 1) == seeds[(2, 1)] and dropout_seed(8, 2, 1) != seeds[(2, 1)]
