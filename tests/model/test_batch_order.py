"""The training data order: a global shuffle every epoch, reproducible from the seed, the same for any worker count.

The corpus here is sorted by label (as ohsumed is): batches read in corpus order would hold one
label each, so their in-batch negatives would all be same-topic papers.
"""

from __future__ import annotations

from itertools import islice

import numpy as np
import pandas as pd

from semcse.stages.training.loop import global_batches

ROWS, LABELS, BATCH = 84, 4, 8
STEPS_PER_EPOCH = ROWS // BATCH  # 10: the last 4 rows of each epoch's order wait for the next epoch
SORTED = pd.DataFrame({"id": np.arange(ROWS), "label": np.repeat(np.arange(LABELS), ROWS // LABELS)})


def steps(seed: int, world: int = 1, start: int = 0, count: int = 3 * STEPS_PER_EPOCH) -> list[list[int]]:
    """The global batches (all workers' slices joined in rank order) of `count` steps from `start`."""
    streams = [global_batches(SORTED, BATCH, rank, world, seed, start) for rank in range(world)]
    return [sum((part["id"].tolist() for part in parts), []) for parts in islice(zip(*streams, strict=True), count)]


def test_every_epoch_is_a_new_global_shuffle_reproducible_from_the_seed() -> None:
    first = steps(seed=7)

    assert steps(seed=7) == first and steps(seed=8) != first
    epochs = [sum(first[k * STEPS_PER_EPOCH : (k + 1) * STEPS_PER_EPOCH], []) for k in range(3)]
    for epoch in epochs:
        assert len(epoch) == len(set(epoch)) == STEPS_PER_EPOCH * BATCH  # no row twice within an epoch
    assert epochs[0] != epochs[1] != epochs[2], "each epoch must be shuffled anew"


def test_batches_mix_labels_like_the_corpus() -> None:
    labels = [SORTED["label"].to_numpy()[batch] for batch in steps(seed=0)]
    distinct = [len(set(batch)) for batch in labels]
    assert min(distinct) >= 2 and np.mean(distinct) >= 3.3, distinct  # corpus order would give 1 per batch
    share = np.mean([np.bincount(batch, minlength=LABELS) / BATCH for batch in labels], axis=0)
    np.testing.assert_allclose(share, 1 / LABELS, atol=0.05)


def test_global_batches_do_not_depend_on_the_worker_count_and_resume_exactly() -> None:
    one = steps(seed=3, world=1)

    assert steps(seed=3, world=2) == one
    assert steps(seed=3, world=4) == one
    assert steps(seed=3, world=2, start=13, count=len(one) - 13) == one[13:]
