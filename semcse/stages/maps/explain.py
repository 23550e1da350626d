"""A map position in words: the embedding `SemanticMap.explain` reconstructs there, decoded by each aspect's decoder.

What `semcse map explain` prints; the map app does the same through its decoder deployment.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from semcse.core.config import RunConfig
from semcse.stages.maps.corpus import on_map
from semcse.stages.maps.semantic_map import SemanticMap


def explain_in_words(
    semantic_map: SemanticMap, position: tuple[float, float], decoders: Mapping[str, str], samples: int, cfg: RunConfig
) -> list[tuple[str, str]]:
    """(aspect, text) for `samples` texts per decoder, `{aspect: decoder ref}` named as `on_map` reads them.

    Decoding follows the run's `decoder` settings (token budget, temperature, top-p, engine, seed).
    """
    from semcse.models.decoder import EmbeddingDecoder

    vectors = semantic_map.explain(position, steps=cfg.map.explain_steps, margin=cfg.map.margin)
    settings = cfg.decoder
    texts = []
    for aspect, ref in on_map(decoders, semantic_map).items():
        if aspect not in vectors:
            raise ValueError(f"aspect {aspect!r} has no weight on this map (weighted: {sorted(vectors)})")
        decoded = EmbeddingDecoder.load(ref, tracking=cfg.tracking).decode(
            np.repeat(vectors[aspect][None], samples, 0),
            max_new_tokens=settings.max_new_tokens,
            temperature=settings.temperature,
            top_p=settings.top_p,
            engine=settings.engine,
            seed=settings.seed,
        )
        texts += [(aspect, text) for text in decoded]
    return texts
