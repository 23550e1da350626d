"""Interactive t-SNE maps of a corpus: lay out, place new papers, explain any position, render.

- `semantic_map`: the map itself (`layout`, `SemanticMap.place/explain/append/remove/grow`).
- `affinities`: its maths (bandwidths, t-SNE affinities, the place/explain objectives) on arrays.
- `store`: a map's files (save/load) and its versioned publishing (`publish_grown`).
- `corpus`: a corpus's map from its papers' texts, the one path the CLI and the pipeline share.
- `explain`: a map position in words, through decoders.
- `render`: a PNG of a map.
"""

from semcse.stages.maps.corpus import layout_papers, map_corpus, on_map, paper_vectors, text_vectors
from semcse.stages.maps.explain import explain_in_words
from semcse.stages.maps.render import render
from semcse.stages.maps.semantic_map import MIN_POINTS, Pca, SemanticMap, layout

__all__ = [
    "MIN_POINTS",
    "Pca",
    "SemanticMap",
    "explain_in_words",
    "layout",
    "layout_papers",
    "map_corpus",
    "on_map",
    "paper_vectors",
    "render",
    "text_vectors",
]
