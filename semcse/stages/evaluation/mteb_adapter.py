"""Run platform models under MTEB, offline.

`PlatformEncoder` implements MTEB's encoder protocol on top of any platform model (a
`TextEncoder`, or one aspect of a multi-aspect model), so MTEB's evaluators score exactly the
vectors the platform serves. `local_clustering_task` builds an MTEB clustering task from a local
labelled corpus, so users can run MTEB with no dataset hub: the pattern extends to MTEB's other
task types by overriding `load_data` the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from mteb.abstasks.clustering import AbsTaskClustering
from mteb.abstasks.task_metadata import TaskMetadata
from mteb.models.abs_encoder import AbsEncoder
from mteb.models.model_meta import ModelMeta

from semcse.models.aspects import aspects_of, encode_aspects


class PlatformEncoder(AbsEncoder):
    """MTEB's encoder protocol over a platform model; `aspect` picks one head of a multi-aspect model."""

    def __init__(
        self, model: Any, name: str = "semcse/local", aspect: str | None = None, batch_size: int = 64
    ) -> None:
        available = aspects_of(model)
        self.aspect = aspect if aspect is not None else available[0]
        if self.aspect not in available:
            raise ValueError(f"aspect {self.aspect!r} not in the model's aspects {available}")
        self.model = model
        self.batch_size = batch_size
        similarity = "euclidean" if getattr(model, "similarity", "cosine") == "euclidean" else "cosine"
        self.mteb_model_meta = ModelMeta.create_empty(
            {
                "name": name,
                "revision": "local",
                "embed_dim": _dimension(model),
                "similarity_fn_name": similarity,
                "framework": ["PyTorch"],
                "max_tokens": getattr(model, "max_length", None),
            }
        )

    def encode(
        self, inputs: Any, *, task_metadata: Any, hf_split: str, hf_subset: str, prompt_type: Any = None, **kwargs: Any
    ) -> np.ndarray:
        texts = [text for batch in inputs for text in batch["text"]]
        return encode_aspects(self.model, texts)[self.aspect]


def _dimension(model: Any) -> int | None:
    return getattr(model, "dim", None)


def local_clustering_task(path: str | Path, label_col: str, name: str = "LocalClustering") -> AbsTaskClustering:
    """An MTEB clustering task (V-measure) over a local labelled corpus, each paper's `paper_text` as text.

    MTEB reads a task's metadata from its class, so each corpus gets a class of its own.
    """
    path = Path(path)
    metadata = TaskMetadata(
        name=name,
        type="Clustering",
        main_score="v_measure",
        description=f"Clustering of {path.name} by its {label_col!r} column.",
        reference=None,
        dataset={"path": str(path), "revision": "local"},
        category="t2t",
        eval_splits=["test"],
        eval_langs=["eng-Latn"],
        date=None,
        dialect=[],
        domains=["Academic"],
        task_subtypes=[],
        license="not specified",
        annotations_creators="derived",
        modalities=["text"],
        sample_creation="found",
        bibtex_citation="",
    )

    def load_data(self: AbsTaskClustering, num_proc: int | None = None, **kwargs: Any) -> None:
        from datasets import Dataset, DatasetDict

        from semcse.core.data.io import read_corpus
        from semcse.core.data.schema import paper_text

        frame = read_corpus(path)
        if label_col not in frame.columns:
            raise ValueError(f"{path}: no label column {label_col!r} (columns: {list(frame.columns)})")
        texts = paper_text(frame).tolist()
        labels = frame[label_col].astype(str).tolist()
        self.dataset = {"default": DatasetDict({"test": Dataset.from_dict({"sentences": texts, "labels": labels})})}
        self.data_loaded = True

    task_class = type(
        name,
        (AbsTaskClustering,),
        {"metadata": metadata, "load_data": load_data, "max_fraction_of_documents_to_embed": None},
    )
    return task_class()
