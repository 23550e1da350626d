"""The title check's distractors: training abstracts chosen by their words, never copies of a validation abstract."""

from __future__ import annotations

import numpy as np
import pandas as pd

from semcse.stages.training.distractors import lexical_neighbours
from semcse.stages.training.validation import build_validation_set, validate
from tests.fixtures.training import validation_pair_rows

QUERIES = ["coral reef bleaching in warm seas", "invasive ant colonies on oceanic islands"]
POOL = [
    "protein folding kinetics measured by calorimetry",
    "reef bleaching of coral after warm water events",
    "coral reef bleaching in warm seas",  # a copy of the first query under another id
    "ant colonies spread across oceanic islands",
    "calorimetry of protein folding",
]


def test_each_query_takes_the_pool_texts_that_share_its_words_and_no_copy_of_itself() -> None:
    assert lexical_neighbours(QUERIES, POOL, 1).tolist() == [1, 3]
    assert set(lexical_neighbours(QUERIES, POOL, 2)) >= {1, 3} and 2 not in lexical_neighbours(QUERIES, POOL, 3)
    assert lexical_neighbours(QUERIES, POOL, 0).size == 0 and lexical_neighbours(QUERIES, [], 2).size == 0


class Words:
    """A bag-of-words encoder: a title and the abstracts that share its words are near, whoever wrote them."""

    vocabulary = sorted({word for text in QUERIES + POOL for word in text.split()} | {"alpha", "beta", "title"})

    def encode(self, texts: list[str], batch_size: int = 64, max_length: int | None = None) -> np.ndarray:
        out = np.array([[text.split().count(w) for w in self.vocabulary] for text in texts], dtype=float)
        return out + 1e-3


def test_the_title_check_ranks_each_abstract_among_training_abstracts_that_read_like_it() -> None:
    rows = validation_pair_rows()
    rows["title"] = ["coral bleaching after warm water events", "invasive ant colonies"] + [
        f"alpha title {i}" for i in range(10)
    ]
    rows["abstract"] = QUERIES + [f"alpha abstract {i}" for i in range(10)]
    pool = pd.DataFrame({"id": [f"t{i}" for i in range(len(POOL))], "abstract": POOL})
    alone = build_validation_set("crops", rows, 12, "cosine", pool=pool, distractors=0)
    among = build_validation_set("crops", rows, 12, "cosine", pool=pool, distractors=1)
    assert alone.distractors == () and among.distractors == (POOL[1], POOL[3])
    # the first title shares more words with its abstract's neighbour than with its abstract: a mistake that only
    # the distractor can show
    ranked_alone, ranked_among = (validate(Words(), val).checks["title"] for val in (alone, among))
    assert ranked_alone[0] == 1 and ranked_among[0] == 2
