"""The decoder suite: does a decoder read its embedding, and do map positions decode to what lies there?

Columns follow SemCSE-Multi Table 3. Perplexity of each abstract's true summaries is averaged per
abstract, then over abstracts, given
- **matching**: the abstract's own embedding;
- **reconstructed**: the embedding recovered from the abstract's 2-D map position after removing it
  from the map (leave-one-out round trip: place it back, explain its position);
- **shuffled**: another abstract's embedding (a derangement, so never its own);
- **unconditioned**: the learned task tokens only.
Similarity is the cosine between a local encoder's embeddings of the generated text and of the true
summaries (the BERTScore column's role, without needing SciBERT).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from semcse.config import RunConfig
from semcse.maps import SemanticMap
from semcse.models.decoder import EmbeddingDecoder
from semcse.training.decoder import DecoderExamples

COLUMNS = ("matching", "reconstructed", "shuffled", "unconditioned")


def derangement(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random permutation with no fixed point (for n ≥ 2), so 'shuffled' never pairs an abstract with itself."""
    if n < 2:
        raise ValueError("the shuffled control needs at least two abstracts")
    order = rng.permutation(n)
    out = np.empty(n, dtype=int)
    out[order] = np.roll(order, 1)
    return out


def _mean_perplexity(decoder: EmbeddingDecoder, vectors: np.ndarray | None, examples: DecoderExamples) -> float:
    """Per-abstract mean perplexity of its summaries, averaged over abstracts (A.11)."""
    owners = np.array([i for i, texts in enumerate(examples.summaries) for _ in texts])
    texts = [t for texts in examples.summaries for t in texts]
    scores = decoder.perplexity(None if vectors is None else vectors[owners], texts)
    return float(np.mean([scores[owners == i].mean() for i in range(len(examples))]))


def _similarity(
    decoder: EmbeddingDecoder, vectors: np.ndarray, examples: DecoderExamples, encode: Callable, sampling: dict
) -> float:
    generated = _unit(encode(decoder.decode(vectors, **sampling)))
    truths = [_unit(encode(texts)) for texts in examples.summaries]
    return float(np.mean([(truth @ g).mean() for g, truth in zip(generated, truths)]))


def _unit(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x / np.clip(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12, None)


def reconstruct(
    semantic_map: SemanticMap, examples: DecoderExamples, place_steps: int, explain_steps: int
) -> np.ndarray:
    """Leave-one-out round trip: each abstract removed from the map, placed back, its position explained.

    The other points keep their layout (the paper re-runs t-SNE per left-out point; keeping it is n×
    cheaper and isolates the place/explain error).
    """
    if len(semantic_map.active) != 1:
        raise ValueError(f"the reconstructed column needs a single-aspect map, got weights {semantic_map.active}")
    aspect = next(iter(semantic_map.active))
    position = {key: i for i, key in enumerate(semantic_map.ids)}
    missing = [key for key in examples.ids if key not in position]
    if missing:
        raise ValueError(f"{len(missing)} evaluated abstracts are not on the map (e.g. {missing[:3]})")
    out = []
    for key, vector in zip(examples.ids, examples.embeddings):
        rest = semantic_map.without(position[key])
        point = rest.place({aspect: vector}, steps=place_steps)[0]
        out.append(rest.explain(point, steps=explain_steps, margin=np.inf)[aspect])
    return np.stack(out)


def run_decoder_suite(
    decoder: EmbeddingDecoder,
    examples: DecoderExamples,
    encode: Callable[[list[str]], np.ndarray] | None = None,
    semantic_map: SemanticMap | None = None,
    seed: int = 0,
    max_new_tokens: int = 48,
    temperature: float = 0.0,
    place_steps: int = 100,
    explain_steps: int = 100,
) -> dict[str, Any]:
    """The decoder table: {"perplexity": {column: value}, "similarity": {...}, "abstracts": n}.

    `encode` (a local encoder) adds the similarity row; `semantic_map` (a single-aspect map holding
    these abstracts) adds the reconstructed column. Unavailable cells are None.
    """
    if len(examples) < 2:
        raise ValueError(f"the decoder suite needs at least two abstracts with summaries, got {len(examples)}")
    shuffled = examples.embeddings[derangement(len(examples), np.random.default_rng(seed))]
    conditions: dict[str, np.ndarray | None] = {"matching": examples.embeddings, "shuffled": shuffled}
    if semantic_map is not None:
        conditions["reconstructed"] = reconstruct(semantic_map, examples, place_steps, explain_steps)
    perplexity = {name: _mean_perplexity(decoder, vectors, examples) for name, vectors in conditions.items()}
    perplexity["unconditioned"] = _mean_perplexity(decoder, None, examples)
    similarity: dict[str, float | None] = {}
    if encode is not None:
        sampling = {"max_new_tokens": max_new_tokens, "temperature": temperature, "seed": seed}
        similarity = {name: _similarity(decoder, v, examples, encode, sampling) for name, v in conditions.items()}
    return {
        "abstracts": len(examples),
        "aspect": decoder.spec.aspect,
        "perplexity": {c: perplexity.get(c) for c in COLUMNS},
        "similarity": {c: similarity.get(c) for c in COLUMNS},
    }


def format_table(result: dict[str, Any]) -> str:
    """The result as a Markdown table (rows: metric; columns as in the paper)."""
    cell = lambda v: "–" if v is None else f"{v:.2f}"  # noqa: E731
    lines = [f"| {result['aspect'] or 'decoder'} | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for metric in ("perplexity", "similarity"):
        lines.append(f"| {metric} | " + " | ".join(cell(result[metric][c]) for c in COLUMNS) + " |")
    return "\n".join(lines)


def evaluate_decoder(cfg: RunConfig, decoder_ref: str, out: str | Path) -> dict[str, Any]:
    """`semcse evaluate --suite decoder`: the table on held-out abstracts, written to `out` and MLflow.

    Examples come from the same texts, encoder and aspect the decoder was trained on
    (`decoder.texts`, `decoder.encoder`, `decoder.aspect`) and from the corpus-wide test split, so
    the decoder is scored on abstracts it never saw.
    """
    import json

    from semcse.tracking import Tracker
    from semcse.training.decoder import embedded_examples

    settings = cfg.decoder
    missing = [k for k in ("encoder", "texts") if getattr(settings, k) is None]
    if missing:
        raise ValueError(f"the decoder suite needs decoder.{', decoder.'.join(missing)} (set them with --set)")
    decoder = EmbeddingDecoder.load(decoder_ref, tracking=cfg.tracking)
    splits, encoder = embedded_examples(cfg, decoder.spec.aspect or settings.aspect)
    examples = splits["test"]
    result = run_decoder_suite(
        decoder,
        examples,
        encode=encoder.encode,
        seed=settings.seed,
        max_new_tokens=settings.max_new_tokens,
        temperature=settings.temperature,
    )
    directory = Path(out) / "decoder"
    directory.mkdir(parents=True, exist_ok=True)
    table = format_table(result)
    (directory / "decoder.md").write_text(table + "\n")
    (directory / "decoder.json").write_text(json.dumps(result, indent=2))
    with Tracker.start(cfg.tracking, run_name="evaluate-decoder", tags={"stage": "evaluate"}) as tracker:
        tracker.log_params({"decoder": decoder_ref, "encoder": settings.encoder, "texts": settings.texts})
        tracker.log_metrics(
            {
                f"decoder/{metric}/{column}": value
                for metric in ("perplexity", "similarity")
                for column, value in result[metric].items()
                if value is not None
            }
            | {"decoder/abstracts": result["abstracts"]}
        )
        tracker.log_artifact(directory, "decoder")
    return result | {"table": table, "out": str(directory)}
