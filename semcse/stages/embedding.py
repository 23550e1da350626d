"""Embed named text sets with one or more models through Ray Data, streaming vectors into Parquet shards.

The one path from texts to stored vectors, shared by evaluation's suites, the index, the map and
corpus updates. Every model of a call shares one pool (an actor per free CPU of the cluster, `pool_size`): rows
carry their model, and an actor loads each model on its own node when its first batch arrives (the reference is
resolved there, never on the driver), then embeds length-sorted batches; a job one actor would do alone runs as
one Ray task instead, without a pool's start. The driver only groups finished rows by
shard and writes each shard (the embeddings contract, `data.embeddings`) as soon as it is complete,
so vectors never pile up in memory. Shards are content-keyed and kept per model's files, whatever its display
name, so a rerun, a second suite, or the pipeline's index and map after its suites reuse them. Shards go to a
local directory or a storage URI alike.
Reading back goes through the contract's reader, which aligns vectors to the caller's ids and
refuses missing ids, duplicate ids and NaN vectors.

A model is anything with `aspects` and `encode(texts)` (single vector, `aspects == [""]`) or
`encode(texts, aspects=[...]) -> {aspect: [n, d] array}` (multi-aspect); references load through
`TextEncoder.load` (saved directory, `models:/name@alias`, or a plain HF encoder with a pooling).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from semcse.core import storage
from semcse.core.config import EvaluationConfig
from semcse.core.data.embeddings import EmbeddingError, embeddings_table, read_embeddings, write_embeddings
from semcse.core.data.schema import paper_text
from semcse.core.data.shards import content_key, finished_keys
from semcse.models.aspects import aspects_of, encode_aspects
from semcse.stages.evaluation.metrics import Similarity, as_similarity

EMBEDDINGS_DIR = "embeddings"  # under the run directory: the vectors its suites, index, map and updates share


@dataclass(frozen=True)
class ModelRef:
    """One model to compare: a display name, a reference (or an in-memory model) and an optional pooling."""

    name: str
    ref: Any
    pooling: str | None = None

    @classmethod
    def parse(cls, text: str) -> ModelRef:
        """`[name=]ref[#pooling]`, e.g. `minilm=/models/all-MiniLM-L6-v2` or `bert=/models/bert-base#cls`."""
        name, _, ref = text.partition("=") if "=" in text.split("#")[0] else ("", "", text)
        ref, _, pooling = ref.partition("#")
        if not ref:
            raise EmbeddingError(f"model {text!r} has an empty reference")
        if pooling and pooling not in ("cls", "mean", "last"):
            raise EmbeddingError(f"model {text!r}: unknown pooling {pooling!r}; expected cls, mean or last")
        default = _ref_label(ref)
        return cls(name=name or (f"{default}#{pooling}" if pooling else default), ref=ref, pooling=pooling or None)


def _ref_label(ref: str) -> str:
    """A reference's readable part: a path's last folder, or a registry reference's name and version."""
    return ref.rstrip("/").rsplit("/", 1)[-1] if not ref.startswith("models:/") else ref[len("models:/") :]


def model_folder(spec: ModelRef, fingerprint: str | None = None) -> str:
    """The folder of `spec`'s shards under an embeddings root: named for the model's files and the pooling it asks
    for, not its display name, so every stage that embeds with the same model (a suite's `trained`, the index's
    model path) shares them, and `REF#cls` beside `REF#mean` keeps a folder of one vector per text each."""
    fingerprint = fingerprint or _fingerprint(spec)
    label = _ref_label(str(spec.ref)) if isinstance(spec.ref, str | Path) else type(spec.ref).__name__
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_")[:60]
    digest = hashlib.blake2b(f"{fingerprint}#{spec.pooling or ''}".encode(), digest_size=6).hexdigest()
    return f"{clean}-{digest}"


def load_model(spec: ModelRef, max_length: int | None = None, default_pooling: str = "mean") -> Any:
    """The model behind a reference (single-vector or unified multi-aspect).

    `default_pooling` applies only to plain HF encoder directories.
    """
    if not isinstance(spec.ref, str | Path):
        return spec.ref
    from semcse.core.tracking import resolve_model
    from semcse.models.unified import is_unified, load_encoder

    location = resolve_model(str(spec.ref))  # on this node: a registry reference or URI is fetched here
    path = Path(location)
    pooling = spec.pooling
    if pooling is None and path.is_dir() and not (path / "modules.json").is_file() and not is_unified(location):
        pooling = default_pooling
    return load_encoder(location, pooling=pooling, max_length=max_length)


class _EmbedActor:
    """A Ray Data actor: turns batches of (model, shard, id, text) into vectors, loading a model when it is first
    needed. Blocks come model by model, so an actor holding one model at a time switches about once per model."""

    def __init__(self, specs: list[ModelRef], max_length: int, default_pooling: str, threads: int, gpu: bool) -> None:
        import torch

        self.specs, self.max_length, self.default_pooling, self.gpu = specs, max_length, default_pooling, gpu
        self.loaded: tuple[int, Any] | None = None
        if not gpu:
            torch.set_num_threads(threads)  # the CPUs Ray reserved for this actor, no more (no oversubscription)

    def _model(self, index: int) -> Any:
        import torch

        if self.loaded is None or self.loaded[0] != index:
            self.loaded = None  # the previous model's memory goes before the next loads
            model = load_model(self.specs[index], self.max_length, self.default_pooling)
            # the device Ray reserved, not whichever is visible: a CPU actor on a GPU node sees every GPU of it
            if self.gpu and isinstance(model, torch.nn.Module):
                model.to("cuda")
            self.loaded = (index, model)
        return self.loaded[1]

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        parts = []
        for index in np.unique(batch["model"]):  # a batch may straddle the blocks of two models
            rows = batch["model"] == index
            per_aspect = encode_aspects(self._model(int(index)), [str(t) for t in batch["text"][rows]])
            repeat = len(per_aspect)
            vectors = np.concatenate(list(per_aspect.values())).astype(np.float32, copy=False)
            parts.append(
                {
                    "shard": np.concatenate([batch["shard"][rows]] * repeat),
                    "id": np.concatenate([batch["id"][rows]] * repeat),
                    "aspect": np.repeat(np.array(list(per_aspect), dtype=object), int(rows.sum())),
                    # a vector's bytes: models of one batch may differ in width, and a column holds one shape
                    "vector": np.array([vector.tobytes() for vector in vectors], dtype=object),
                }
            )
        return {column: np.concatenate([part[column] for part in parts]) for column in parts[0]}


def _embed_task(actor_args: dict[str, Any], blocks: list[pd.DataFrame]) -> list[dict[str, np.ndarray]]:
    """A small job's blocks embedded in one Ray task, the way one actor of the pool embeds them."""
    actor = _EmbedActor(**actor_args)
    return [actor({column: block[column].to_numpy() for column in block.columns}) for block in blocks]


@dataclass
class ModelEmbeddings:
    """Where one model's text sets are stored (a directory or a storage URI), plus the model facts evaluation needs."""

    spec: ModelRef
    similarity: Similarity
    aspects: list[str]
    directory: str
    sets: dict[str, list[str]] = field(default_factory=dict)

    def vectors(self, set_name: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """{aspect: [n, d]} of a text set, rows in the order of `ids`."""
        return read_embeddings(storage.join(self.directory, set_name), ids, self.aspects, self.sets[set_name])


def embed_sets(
    specs: Sequence[ModelRef],
    sets: Mapping[str, pd.DataFrame],
    out_dir: str | Path,
    cfg: EvaluationConfig,
    show_progress: bool = True,
) -> list[ModelEmbeddings]:
    """Embed every text set (frames with `id`, `text`) with every model, in one pool; returns a handle on each
    model's stored vectors, in the order of `specs`."""
    import ray

    from semcse.core.runtime import init_ray

    for set_name, frame in sets.items():
        _check_text_set(set_name, frame)
    results, pending = [], []
    targets: dict[str, tuple[list[str], int]] = {}  # one key may serve several sets holding the same texts
    for index, spec in enumerate(specs):
        result, missing = _plan(spec, sets, out_dir, cfg)
        for key, target, chunk in missing:
            if key in targets:  # another set, or another name for the same model
                if target not in targets[key][0]:
                    targets[key][0].append(target)
                continue
            targets[key] = ([target], len(chunk) * len(result.aspects))
            pending.append(_longest_first(index, key, chunk))
        results.append(result)
    if pending:
        init_ray()
        texts = sum(len(block) for block in pending)
        actor_args = {
            "specs": list(specs),
            "max_length": cfg.max_length,
            "default_pooling": cfg.pooling,
            "threads": max(1, int(cfg.cpus_per_actor)),
            "gpu": cfg.gpus_per_actor > 0,
        }
        batches: Iterable[Any]
        if texts < 2 * MIN_TEXTS_PER_ACTOR:
            # one actor's work: one task, without a pool's start (seconds); an explicit strategy, or a Tune trial's
            # placement group (no CPU in it) captures the task; one call per GPU worker frees the GPU's memory
            task = ray.remote(
                num_cpus=cfg.cpus_per_actor,
                num_gpus=cfg.gpus_per_actor,
                max_calls=1 if cfg.gpus_per_actor else 0,
                scheduling_strategy="DEFAULT",
            )(_embed_task)
            embedded: list[dict[str, np.ndarray]] = ray.get(task.remote(actor_args, pending))
            batches = embedded
        else:
            size = pool_size(cfg, texts)
            pending = _blocks(pending, BLOCKS_PER_ACTOR * size, cfg.batch_size)
            batches = (
                ray.data.from_pandas(pending)
                .map_batches(
                    _EmbedActor,
                    fn_constructor_kwargs=actor_args,
                    batch_size=cfg.batch_size,
                    compute=ray.data.ActorPoolStrategy(min_size=1, max_size=size, initial_size=size),
                    num_cpus=cfg.cpus_per_actor,
                    num_gpus=cfg.gpus_per_actor or None,
                )
                .iter_batches(batch_format="numpy", batch_size=None)
            )
        _stream_to_shards(batches, targets, show_progress, desc=f"embed {', '.join(spec.name for spec in specs)}")
    return results


def _plan(
    spec: ModelRef, sets: Mapping[str, pd.DataFrame], out_dir: str | Path, cfg: EvaluationConfig
) -> tuple[ModelEmbeddings, list[tuple[str, str, pd.DataFrame]]]:
    """Where one model's sets go, with the facts evaluation needs (its geometry and aspects, read from the model),
    and the shards not stored yet: (content key, set directory, rows) each."""
    probe = load_model(spec, cfg.max_length, cfg.pooling)
    similarity = as_similarity(str(getattr(probe, "similarity", "cosine")))
    fingerprint = _fingerprint(spec)
    directory = storage.join(out_dir, model_folder(spec, fingerprint))
    result = ModelEmbeddings(spec, similarity, aspects_of(probe), directory)
    settings = {
        "model": fingerprint,
        # the pooling the model embeds with: a saved sentence-transformers model keeps its own whatever cfg says
        "pooling": getattr(probe, "pooling", None) or spec.pooling or cfg.pooling,
        "max_length": cfg.max_length,
        "aspects": result.aspects,
    }
    missing = []
    for set_name, frame in sets.items():
        target = storage.join(result.directory, set_name)
        done = finished_keys(target)
        chunks = [frame.iloc[start : start + cfg.shard_rows] for start in range(0, len(frame), cfg.shard_rows)]
        result.sets[set_name] = [content_key(zip(chunk["id"], chunk["text"]), settings) for chunk in chunks]
        missing += [(key, target, chunk) for key, chunk in zip(result.sets[set_name], chunks) if key not in done]
    return result, missing


def _longest_first(model: int, key: str, chunk: pd.DataFrame) -> pd.DataFrame:
    """One shard's rows for the `model`-th model, longest texts first: each batch pads to texts of about its own
    length (as sentence-transformers' `encode` sorts)."""
    rows = chunk.iloc[np.argsort(-chunk["text"].str.len().to_numpy(), kind="stable")]
    return pd.DataFrame({"model": model, "shard": key, "id": rows["id"].to_numpy(), "text": rows["text"].to_numpy()})


BLOCKS_PER_ACTOR = 4  # enough blocks that every actor of the pool has work while the slowest finishes


def _blocks(shards: list[pd.DataFrame], wanted: int, batch_size: int) -> list[pd.DataFrame]:
    """Shards as Ray Data blocks: whole shards when there are `wanted` of them (one object each, however large the
    corpus), else each cut into contiguous pieces of whole batches, so that a few shards still feed every actor."""
    if len(shards) >= wanted:
        return shards
    pieces = -(-wanted // len(shards))
    blocks = []
    for shard in shards:
        per_piece = -(-len(shard) // pieces)
        rows = -(-per_piece // batch_size) * batch_size  # whole batches, so no batch spans two blocks
        blocks += [shard.iloc[start : start + rows] for start in range(0, len(shard), rows)]
    return blocks


# an actor costs a process start and a model load, about what embedding this many texts costs on one core
MIN_TEXTS_PER_ACTOR = 256


def pool_size(cfg: EvaluationConfig, texts: int) -> int:
    """How many embedding actors: `evaluation.actors` when set, else as many as the cluster's free CPUs (or GPUs,
    with `gpus_per_actor`) hold now (a running Serve app keeps its own); never more than `texts` pays for."""
    import ray

    wanted = cfg.actors
    if wanted is None:
        free = ray.available_resources()
        wanted = int(free.get("CPU", 0) // max(1.0, cfg.cpus_per_actor))  # at least a whole core each
        if cfg.gpus_per_actor:
            wanted = min(wanted, int(free.get("GPU", 0) // cfg.gpus_per_actor))
    return max(1, min(wanted, texts // MIN_TEXTS_PER_ACTOR))


def _check_text_set(name: str, frame: pd.DataFrame) -> None:
    if not {"id", "text"} <= set(frame.columns):
        raise EmbeddingError(f"text set {name!r} needs columns id and text, has {list(frame.columns)}")
    duplicated = frame["id"][frame["id"].duplicated()]
    if len(duplicated):
        raise EmbeddingError(f"text set {name!r} has duplicate ids, e.g. {duplicated.iloc[0]!r}")


def _stream_to_shards(
    batches: Iterable[dict[str, np.ndarray]], targets: dict[str, tuple[list[str], int]], show_progress: bool, desc: str
) -> None:
    """Group streamed rows by shard; write each shard the moment its last row arrives."""
    from tqdm.auto import tqdm

    buffers: dict[str, list[pa.Table]] = {}
    counts: dict[str, int] = {}
    total = sum(n for _, n in targets.values())
    with tqdm(total=total, desc=desc, unit="vec", disable=not show_progress) as bar:
        for batch in batches:
            for key in np.unique(batch["shard"]):
                rows = batch["shard"] == key
                vectors = np.frombuffer(b"".join(batch["vector"][rows]), dtype=np.float32).reshape(int(rows.sum()), -1)
                buffers.setdefault(key, []).append(embeddings_table(batch["id"][rows], batch["aspect"][rows], vectors))
                counts[key] = counts.get(key, 0) + int(rows.sum())
                directories, expected = targets[key]
                if counts[key] == expected:
                    table = pa.concat_tables(buffers.pop(key))
                    for directory in directories:
                        write_embeddings(directory, key, table)
            bar.update(len(batch["id"]))
    written = {d: finished_keys(d) for d in {d for dirs, _ in targets.values() for d in dirs}}
    unfinished = [k for k, (dirs, _) in targets.items() if not all(k in written[d] for d in dirs)]
    if unfinished:
        raise EmbeddingError(f"{len(unfinished)} shard(s) came back incomplete, e.g. {unfinished[0]}")


def _fingerprint(spec: ModelRef) -> str:
    """What identifies the model's weights for shard keys: the reference plus its files' sizes and times.

    A registry alias is pinned to the version it points at, so moving the alias re-embeds.
    """
    if not isinstance(spec.ref, str | Path):
        return f"object:{type(spec.ref).__qualname__}:{id(spec.ref)}"
    ref = str(spec.ref)
    if ref.startswith("models:/"):
        from semcse.core.tracking import pinned

        return pinned(ref)
    if not storage.is_uri(ref) and not Path(ref).expanduser().exists():
        return ref  # a hub id
    if not storage.is_dir(ref):
        return ref
    stats = [(e.path, e.size, e.mtime_ns) for e in storage.files(ref)]
    return f"{storage.normalize(ref)}:{content_key(stats)}"


@dataclass
class PaperVectors:
    """Every paper's vectors, {aspect: [n, d]} in the papers' order, and the geometry the model was trained in."""

    vectors: dict[str, np.ndarray]
    similarity: Similarity


def embed_papers(
    specs: Sequence[ModelRef], papers: pd.DataFrame, out_dir: str, cfg: EvaluationConfig, show_progress: bool = True
) -> list[PaperVectors]:
    """Every paper's text (title and abstract, `paper_text`) embedded with every aspect of each model, in one pool.

    The index, the map and corpus updates embed papers this way, on Ray Data actors (never in the
    driver, which on a cluster sits on a head node without CPUs for work); shards under `out_dir`
    are reused by whichever of them runs next with the same model and texts.
    """
    texts = pd.DataFrame({"id": papers["id"].astype(str).to_numpy(), "text": paper_text(papers).to_numpy()})
    ids = texts["id"].tolist()
    embedded = embed_sets(specs, {"papers": texts}, out_dir, cfg, show_progress=show_progress)
    return [PaperVectors(model.vectors("papers", ids), model.similarity) for model in embedded]


def combined_vectors(per_aspect: Mapping[str, np.ndarray]) -> np.ndarray:
    """One vector per text: the only aspect, or the concatenated L2-normalised aspects of a multi-aspect model.

    Cosine similarity of the concatenation is the mean of the aspects' cosines, an equally weighted combination.
    """
    if len(per_aspect) == 1:
        return next(iter(per_aspect.values()))
    parts = [v / np.clip(np.linalg.norm(v, axis=1, keepdims=True), 1e-12, None) for v in per_aspect.values()]
    return np.concatenate(parts, axis=1) / np.sqrt(len(parts))


def combined_similarity(model: ModelEmbeddings) -> Similarity:
    """The metric of `combined_vectors`: the model's own for one aspect, cosine for a concatenation."""
    return model.similarity if len(model.aspects) == 1 else "cosine"
