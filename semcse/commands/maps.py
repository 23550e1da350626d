"""`semcse map layout|place|explain|render`: a corpus's map, new texts placed on it, positions explained."""

from __future__ import annotations

from typing import Annotated

import typer

from semcse.commands.common import ConfigOpt, SetOpt, build_config, console, named_refs, user_errors, value_errors

app = typer.Typer(help="Interactive t-SNE maps: lay out a corpus, place new texts, explain any position.")

MapDir = Annotated[str, typer.Argument(help="A saved map directory (a path or a storage URI).")]


@app.command("layout")
@user_errors
@value_errors
def map_layout(
    corpus: Annotated[str, typer.Option("--corpus", help="Corpus file/directory: ids, labels, abstracts.")],
    out: Annotated[str, typer.Option("--out", "-o", help="Where the map directory goes.")],
    embeddings: Annotated[
        str | None,
        typer.Option("--embeddings", help="Embeddings (id, aspect, vector): a Parquet file or a directory of shards."),
    ] = None,
    encoder: Annotated[
        list[str] | None, typer.Option("--encoder", help="[aspect=]encoder embedding the abstracts (repeatable).")
    ] = None,
    weight: Annotated[list[str] | None, typer.Option("--weight", help="aspect=α (repeatable).")] = None,
    label_col: Annotated[str | None, typer.Option("--label-col", help="Corpus column used as label.")] = None,
    png: Annotated[str | None, typer.Option("--png", help="Also render the map to this PNG.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """t-SNE over the aspect-weighted cosine distance; save a map a web service can load.

    Papers (title and abstract) are embedded with every aspect of each encoder, as the pipeline's
    map step and the search index embed them, so the same corpus and settings give the same map.

    Example: semcse map layout --corpus examples/sample_corpus.jsonl --encoder models/minilm --label-col topic -o m
    """
    from semcse.core.data.embeddings import read_embeddings
    from semcse.core.data.io import read_corpus
    from semcse.core.runtime import connect
    from semcse.models.aspects import parse_weights
    from semcse.stages.maps import layout_papers, map_corpus, render

    flags = {"corpus.label_col": label_col, "map.weights": parse_weights(weight) or None}
    cfg = build_config(config, overrides, **flags)
    frame = read_corpus(corpus, cfg.corpus)
    if embeddings is not None:
        vectors = read_embeddings(embeddings, frame["id"].astype(str).tolist())
        semantic_map = layout_papers(frame, vectors, cfg.map, cfg.corpus.label_col)
    else:
        semantic_map = map_corpus(frame, named_refs(encoder, "--encoder or --embeddings"), connect(cfg))
    semantic_map.save(out)
    console.print(f"map of {len(semantic_map):,} points (perplexity {semantic_map.perplexity:.1f}) → {out}")
    if png is not None:
        console.print(f"rendered → {render(semantic_map, png)}")


@app.command("place")
@user_errors
@value_errors
def map_place(
    map_dir: MapDir,
    text: Annotated[list[str], typer.Option("--text", "-t", help="A text to place (repeatable).")],
    encoder: Annotated[list[str], typer.Option("--encoder", help="[aspect=]encoder per weighted aspect.")],
    png: Annotated[str | None, typer.Option("--png", help="Render the map with the placed texts.")] = None,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Embed texts and place them into a saved map (existing points stay fixed).

    Example: semcse map place m --text "Rats on islands" --encoder models/minilm
    """
    from semcse.stages.maps import SemanticMap, on_map, render, text_vectors

    cfg = build_config(config, overrides)
    semantic_map = SemanticMap.load(map_dir)
    vectors = text_vectors(named_refs(encoder, "--encoder"), list(text), cfg.tracking)
    coords = semantic_map.place(on_map(vectors, semantic_map), steps=cfg.map.place_steps)
    for sentence, (x, y) in zip(text, coords):
        console.print(f"({x:.3f}, {y:.3f})  {sentence}", highlight=False)
    if png is not None:
        console.print(f"rendered → {render(semantic_map, png, highlights=list(zip(coords, text)))}")


@app.command("explain")
@user_errors
@value_errors
def map_explain(
    map_dir: MapDir,
    x: Annotated[float, typer.Option("--x", help="Map x coordinate.")],
    y: Annotated[float, typer.Option("--y", help="Map y coordinate.")],
    decoder: Annotated[list[str], typer.Option("--decoder", help="[aspect=]decoder per weighted aspect.")],
    samples: Annotated[int, typer.Option("--samples", help="Texts to sample per aspect.")] = 1,
    config: ConfigOpt = None,
    overrides: SetOpt = None,
) -> None:
    """Reconstruct the embedding of any map position and decode it to text.

    Example: semcse map explain m --x 3.5 --y -12 --decoder models:/semcse-decoder@champion
    """
    from semcse.stages.maps import SemanticMap, explain_in_words

    cfg = build_config(config, overrides)
    semantic_map = SemanticMap.load(map_dir)
    for aspect, text in explain_in_words(semantic_map, (x, y), named_refs(decoder, "--decoder"), samples, cfg):
        console.print(f"[bold]{aspect or 'embedding'}[/]: {text}", highlight=False)


@app.command("render")
@user_errors
def map_render(
    map_dir: MapDir,
    out: Annotated[str, typer.Option("--out", "-o", help="PNG path.")],
    title: Annotated[str | None, typer.Option("--title", help="Figure title.")] = None,
) -> None:
    """Render a saved map to PNG with labels and a legend.

    Example: semcse map render m --out map.png
    """
    from semcse.stages.maps import SemanticMap, render

    console.print(f"rendered → {render(SemanticMap.load(map_dir), out, title=title)}")
