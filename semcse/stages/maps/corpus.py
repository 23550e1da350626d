"""A corpus laid out as a map, one way for every caller: papers' texts → vectors → t-SNE layout.

`semcse map layout` and the pipeline's map step both lay a corpus out here, and both embed papers
as the search index does (`embedding.embed_papers`: title and abstract, `data.schema.paper_text`,
every aspect of the model), so the same corpus, model and `map` settings give the same map, and a
paper's map point and its search vectors come from the same text. Models are named as the command
line names them: `{aspect: ref}`, where the aspect "" is a model's own aspects (one vector for a
single-vector encoder, every head of a unified model) and a named aspect is a single-vector encoder
trained for that aspect (`semcse train-aspects`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

import numpy as np
import pandas as pd

from semcse.core import storage
from semcse.core.config import EvaluationConfig, MapConfig, RunConfig, TrackingConfig
from semcse.models.aspects import encode_aspects
from semcse.stages.embedding import EMBEDDINGS_DIR, ModelRef, embed_papers
from semcse.stages.maps.semantic_map import SemanticMap, layout

T = TypeVar("T")


def layout_papers(
    corpus: pd.DataFrame, vectors: Mapping[str, np.ndarray], cfg: MapConfig, label_col: str | None = None
) -> SemanticMap:
    """The map of a validated corpus from its papers' vectors (rows in the corpus's order), laid out by `cfg`."""
    labels = corpus[label_col].astype(str).tolist() if label_col and label_col in corpus else None
    return layout(
        corpus["id"].astype(str).tolist(),
        vectors,
        cfg.weights,
        labels=labels,
        perplexity=cfg.perplexity,
        iterations=cfg.iterations,
        seed=cfg.seed,
        neighbours=cfg.neighbours,
    )


def paper_vectors(
    corpus: pd.DataFrame, models: Mapping[str, str], out_dir: str, cfg: EvaluationConfig
) -> dict[str, np.ndarray]:
    """{aspect: [n, d]} of every paper, embedded on Ray Data actors into the content-keyed shards under `out_dir`."""
    refs = list(dict.fromkeys(models.values()))  # one pool for every model; a model serving two aspects embeds once
    embedded = dict(zip(refs, embed_papers([ModelRef(ref, ref) for ref in refs], corpus, out_dir, cfg)))
    vectors: dict[str, np.ndarray] = {}
    for aspect, ref in models.items():
        _add(vectors, aspect, embedded[ref].vectors, ref)
    return vectors


def text_vectors(models: Mapping[str, str], texts: list[str], tracking: TrackingConfig) -> dict[str, np.ndarray]:
    """{aspect: [n, d]} of a few texts (new abstracts to place), encoded in this process."""
    from semcse.models.unified import load_encoder

    vectors: dict[str, np.ndarray] = {}
    for aspect, ref in models.items():
        _add(vectors, aspect, encode_aspects(load_encoder(ref, tracking), texts), ref)
    return vectors


def _add(into: dict[str, np.ndarray], aspect: str, vectors: dict[str, np.ndarray], ref: str) -> None:
    if aspect:
        if list(vectors) != [""]:
            raise ValueError(f"{ref} has the aspects {list(vectors)}: give it without {aspect}=")
        vectors = {aspect: vectors[""]}
    twice = sorted(set(into) & set(vectors))
    if twice:
        raise ValueError(f"aspect(s) {twice} come from more than one model")
    into.update(vectors)


def map_corpus(corpus: pd.DataFrame, models: Mapping[str, str], cfg: RunConfig) -> SemanticMap:
    """The corpus's map under `cfg.map`: papers embedded into the run's shared embeddings (reused by
    the index and later maps), laid out in a Ray task so a cluster's CPU-less head node lays out nothing."""
    from semcse.core.runtime import run_remote

    vectors = paper_vectors(corpus, models, storage.join(cfg.run_dir, EMBEDDINGS_DIR), cfg.evaluation)
    return run_remote(layout_papers, corpus, vectors, cfg.map, cfg.corpus.label_col)


def on_map(named: Mapping[str, T], semantic_map: SemanticMap) -> dict[str, T]:
    """Per-aspect inputs as the map names its aspects: an unnamed single one stands for the map's only weighted aspect.

    So `--encoder REF` places on a map laid out by one aspect encoder, and `--decoder REF` explains it.
    """
    active = list(semantic_map.active)
    if set(named) == {""} and len(active) == 1:
        return {active[0]: named[""]}
    return dict(named)
