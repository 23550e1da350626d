"""The decoder suite: does a decoder read its embedding, and do map positions decode to what lies there?

Columns follow SemCSE-Multi Table 3 (§5.2, A.11). Each held-out abstract's conditioning embedding
is *predicted from the abstract* by `decoder.predictor` (the unified model for aspect decoders; by
default `decoder.encoder`, which for SemCSE embeds abstracts and summaries into one space), never
built from the summaries being scored. Perplexity of its true summaries is averaged per abstract,
then over abstracts, given
- **matching**: the abstract's predicted embedding;
- **reconstructed** (`decoder.reconstructed=true`): the embedding recovered from the abstract's 2-D
  map position: the other held-out abstracts are laid out anew without it (A.11), the abstract is
  placed into that map and its position explained;
- **shuffled**: another abstract's embedding (a derangement, so never its own);
- **unconditioned**: the learned task tokens only.
BERTScore F1 (`bert-score` with a local model at `decoder.bertscore_model`; SciBERT in the paper)
compares each generated text with the abstract's true summaries (best match), so generated text is
judged by a model the decoder never learned to invert. It runs on the GPU when there is one.

Settings that could only fail late are checked before anything is loaded or decoded: an aspect
decoder must name its `decoder.predictor` (the paper predicts aspect embeddings with the unified
model; an aspect encoder would be the model the decoder was trained on, scoring it on its own
inputs), and BERTScore with a local model needs its layer (`decoder.bertscore_layers`), which
`bert-score` knows only for hub names.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from semcse.core import storage
from semcse.core.config import RunConfig, with_overrides
from semcse.models.decoder import DecoderExamples, EmbeddingDecoder
from semcse.stages.maps import layout

COLUMNS = ("matching", "reconstructed", "shuffled", "unconditioned")
# (generated texts, each one's true summaries) -> one F1 per generated text
BertScore = Callable[[list[str], list[list[str]]], np.ndarray]


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


def bertscore_f1(model: str, layers: int | None, batch_size: int = 32) -> BertScore:
    """BERTScore F1 with a local model (the `bert-score` package); each text is scored against its best reference.

    `layers` picks the hidden layer (`check_bertscore` says when it must be set). On the GPU when
    there is one: BERTScore embeds every generated text and every reference.
    """
    check_bertscore(model, layers)

    def score(candidates: list[str], references: list[list[str]]) -> np.ndarray:
        import torch
        from bert_score import score as bert_score

        device = "cuda" if torch.cuda.is_available() else "cpu"
        _, _, f1 = bert_score(
            candidates, references, model_type=model, num_layers=layers, batch_size=batch_size, device=device
        )
        return f1.cpu().numpy()

    return score


def check_bertscore(model: str, layers: int | None) -> None:
    """Fail before any decoding when `bert-score` could not score with `model` at `layers`.

    `bert-score` knows the best layer of hub models by name (`allenai/scibert_scivocab_uncased`: 8),
    not of a local path: without `layers` it would raise after every text was decoded.
    """
    from bert_score.utils import model2layers

    local = Path(model).expanduser()
    if layers is None and model not in model2layers:
        hint = f" (the SciBERT the paper used: {model2layers['allenai/scibert_scivocab_uncased']})"
        raise ValueError(
            f"decoder.bertscore_model={model} is not a model bert-score knows the layer of: set "
            f"decoder.bertscore_layers to the hidden layer to score with{hint}"
        )
    if local.is_dir() and layers is not None:
        config = json.loads((local / "config.json").read_text()) if (local / "config.json").is_file() else {}
        depth = config.get("num_hidden_layers")
        if depth is not None and layers > depth:
            raise ValueError(f"decoder.bertscore_layers={layers}, but {model} has {depth} hidden layers")


def reconstruct(
    examples: DecoderExamples, perplexity: float, iterations: int, place_steps: int, explain_steps: int, seed: int
) -> np.ndarray:
    """Leave-one-out round trip (A.11): per abstract, lay out the others anew, place it, explain its position.

    The layout is re-run without the held-out point rather than reused with the point removed: a
    layout that contained the point was shaped by it. One t-SNE run per abstract.
    """
    out = []
    for index, vector in enumerate(examples.embeddings):
        rest = examples.subset([i for i in range(len(examples)) if i != index])
        semantic_map = layout(rest.ids, rest.embeddings, perplexity=perplexity, iterations=iterations, seed=seed)
        point = semantic_map.place({"": vector}, steps=place_steps)[0]
        out.append(semantic_map.explain(point, steps=explain_steps, margin=np.inf)[""])
    return np.stack(out)


def run_decoder_suite(
    decoder: EmbeddingDecoder,
    examples: DecoderExamples,
    bertscore: BertScore | None = None,
    reconstructed: np.ndarray | None = None,
    seed: int = 0,
    max_new_tokens: int = 48,
    temperature: float = 0.0,
) -> dict[str, Any]:
    """The decoder table: {"perplexity": {column: value}, "bertscore": {...}, "abstracts": n}.

    `examples.embeddings` condition the decoder (predicted from the abstracts); `bertscore` adds the
    BERTScore row and `reconstructed` (one embedding per example) its column. Unavailable cells are None.
    """
    if len(examples) < 2:
        raise ValueError(f"the decoder suite needs at least two abstracts with summaries, got {len(examples)}")
    shuffled = examples.embeddings[derangement(len(examples), np.random.default_rng(seed))]
    conditions: dict[str, np.ndarray] = {"matching": examples.embeddings, "shuffled": shuffled}
    if reconstructed is not None:
        conditions["reconstructed"] = reconstructed
    perplexity = {name: _mean_perplexity(decoder, vectors, examples) for name, vectors in conditions.items()}
    perplexity["unconditioned"] = _mean_perplexity(decoder, None, examples)
    scores: dict[str, float] = {}
    if bertscore is not None:
        scores = {
            name: float(
                np.mean(
                    bertscore(
                        decoder.decode(vectors, max_new_tokens=max_new_tokens, temperature=temperature, seed=seed),
                        examples.summaries,
                    )
                )
            )
            for name, vectors in conditions.items()
        }
    return {
        "abstracts": len(examples),
        "aspect": decoder.spec.aspect,
        "perplexity": {c: perplexity.get(c) for c in COLUMNS},
        "bertscore": {c: scores.get(c) for c in COLUMNS},
    }


def format_table(result: dict[str, Any]) -> str:
    """The result as a Markdown table (rows: metric; columns as in the paper)."""

    def cell(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    lines = [f"| {result['aspect'] or 'decoder'} | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for metric in ("perplexity", "bertscore"):
        lines.append(f"| {metric} | " + " | ".join(cell(result[metric][c]) for c in COLUMNS) + " |")
    return "\n".join(lines)


def held_out_examples(cfg: RunConfig, kind: str) -> DecoderExamples:
    """Test-split abstracts with their `kind` summaries, each embedded from its abstract by `decoder.predictor`.

    The split is the corpus-wide hash split decoder training used, so these are abstracts it never saw.
    """
    from semcse.core.data.generated import read_texts, summaries_by_id
    from semcse.core.data.io import read_corpus
    from semcse.core.data.schema import paper_text
    from semcse.core.data.split import splits_of
    from semcse.models.aspects import encode_aspects
    from semcse.models.unified import load_encoder

    settings, corpus = cfg.decoder, cfg.corpus
    if not corpus.path:
        raise ValueError("the decoder suite predicts each embedding from its abstract: set corpus.path (--set)")
    predictor_ref = settings.predictor or settings.encoder
    if settings.texts is None or predictor_ref is None:
        raise ValueError("the decoder suite needs decoder.texts and decoder.predictor or decoder.encoder (--set)")
    groups = summaries_by_id(read_texts(settings.texts, cfg.generation.combine_settings), kind)
    test = {key: texts for (key, texts), name in zip(groups.items(), splits_of(groups, corpus)) if name == "test"}
    frame = read_corpus(corpus.path, corpus).drop_duplicates("id").set_index("id")
    missing = sorted(set(test) - set(frame.index))
    if missing:
        raise ValueError(f"{len(missing)} held-out abstracts are not in {corpus.path} (e.g. {missing[:3]})")
    ids = sorted(test)
    predictor = load_encoder(predictor_ref, tracking=cfg.tracking)
    predicted = encode_aspects(predictor, list(paper_text(frame.loc[ids].reset_index())))
    aspect = kind.removeprefix("aspect:")
    if set(predicted) != {""} and aspect not in predicted:
        raise ValueError(f"decoder.predictor has no aspect {aspect!r} (its aspects: {sorted(predicted)})")
    vectors = predicted[""] if set(predicted) == {""} else predicted[aspect]
    return DecoderExamples(ids, np.asarray(vectors, dtype=np.float32), [test[key] for key in ids])


def check_decoder_suite(cfg: RunConfig) -> None:
    """What the decoder suite needs, checked before a model is loaded or a text decoded."""
    settings = cfg.decoder
    missing = [k for k in ("encoder", "texts") if getattr(settings, k) is None]
    if missing:
        raise ValueError(f"the decoder suite needs decoder.{', decoder.'.join(missing)} (set them with --set)")
    if settings.aspect.startswith("aspect:") and settings.predictor is None:
        raise ValueError(
            f"decoder.aspect={settings.aspect}: an aspect decoder's embeddings are predicted from the abstract by "
            "the unified model (SemCSE-Multi); set decoder.predictor to it (e.g. multi.out or its registry "
            "reference), since decoder.encoder is the aspect encoder the decoder was trained on"
        )
    if settings.bertscore_model:
        check_bertscore(settings.bertscore_model, settings.bertscore_layers)


def evaluate_decoder(cfg: RunConfig, decoder_ref: str, out: str | Path) -> dict[str, Any]:
    """`semcse evaluate --suite decoder`: the table on held-out abstracts, written to `out` and MLflow."""
    from semcse.core.tracking import Tracker

    settings = cfg.decoder
    check_decoder_suite(cfg)
    decoder = EmbeddingDecoder.load(decoder_ref, tracking=cfg.tracking)
    kind = decoder.spec.aspect or settings.aspect
    if kind != settings.aspect:
        check_decoder_suite(with_overrides(cfg, {"decoder.aspect": kind}))
    examples = held_out_examples(cfg, kind)
    if examples.embeddings.shape[1] != decoder.spec.embedding_dim:
        raise ValueError(
            f"decoder.predictor gives {examples.embeddings.shape[1]}-dimensional embeddings but the decoder reads "
            f"{decoder.spec.embedding_dim}: predict with the model whose embeddings the decoder was trained on"
        )
    maps = cfg.map
    reconstructed = (
        reconstruct(examples, maps.perplexity, maps.iterations, maps.place_steps, maps.explain_steps, settings.seed)
        if settings.reconstructed
        else None
    )
    bertscore = bertscore_f1(settings.bertscore_model, settings.bertscore_layers) if settings.bertscore_model else None
    result = run_decoder_suite(
        decoder,
        examples,
        bertscore=bertscore,
        reconstructed=reconstructed,
        seed=settings.seed,
        max_new_tokens=settings.max_new_tokens,
        temperature=settings.temperature,
    )
    notes = [f"{result['abstracts']} held-out (test split) abstracts, embeddings predicted from the abstracts"]
    if bertscore is None:
        notes.append("no BERTScore: set decoder.bertscore_model=PATH (a local BERT; SciBERT in the paper)")
    if reconstructed is None:
        notes.append("no reconstructed column: set decoder.reconstructed=true (one t-SNE layout per abstract)")
    directory = storage.join(out, "decoder")
    table = format_table(result)
    with storage.staged(directory) as written:
        (written / "decoder.md").write_text(table + "\n\n" + "\n".join(f"- {note}" for note in notes) + "\n")
        (written / "decoder.json").write_text(json.dumps(result | {"notes": notes}, indent=2))
    with Tracker.start(cfg.tracking, run_name="evaluate-decoder", tags={"stage": "evaluate"}) as tracker:
        predictor = settings.predictor or settings.encoder
        tracker.log_params({"decoder": decoder_ref, "predictor": predictor, "texts": settings.texts})
        tracker.log_metrics(
            {
                f"decoder/{metric}/{column}": value
                for metric in ("perplexity", "bertscore")
                for column, value in result[metric].items()
                if value is not None
            }
            | {"decoder/abstracts": result["abstracts"]}
        )
        tracker.log_artifact(directory, "decoder")
    return result | {"table": table, "notes": notes, "out": directory}
