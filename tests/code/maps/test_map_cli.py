"""`semcse map layout|place|explain|render` end to end on the sample corpus with tiny models; the CLI's map is
the pipeline's map."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from semcse.cli import app

pytestmark = pytest.mark.usefixtures("single_threaded_torch")

runner = CliRunner()


MAP_SETTINGS = ["--set", "map.iterations=250", "--set", "map.seed=3", "--set", "tracking.enabled=false"]


@pytest.fixture(scope="module")
def cli_map(ray_cluster, tmp_path_factory, sample_corpus_path, tiny_encoder_dir):
    out = tmp_path_factory.mktemp("cli") / "map"
    result = runner.invoke(
        app,
        [
            "map",
            "layout",
            "--corpus",
            str(sample_corpus_path),
            "--encoder",
            str(tiny_encoder_dir),
            "--label-col",
            "topic",
            "--out",
            str(out),
            *MAP_SETTINGS,
            "--set",
            f"run_dir={out.parent / 'run'}",
        ],
    )
    assert result.exit_code == 0, result.output
    return out


def test_the_cli_lays_out_the_map_the_pipeline_builds(cli_map, sample_corpus_path, tiny_encoder_dir, tmp_path):
    """One path from text to map: `semcse map layout` and the pipeline's map step, given the same corpus, model
    and settings, place every paper at the same coordinates (they once embedded different texts)."""
    import json

    import numpy as np

    from semcse.stages.maps import SemanticMap

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    finished = {"validate": {"corpus": str(sample_corpus_path)}, "train": {"model": str(tiny_encoder_dir)}}
    records = {
        step: {"outputs": outputs, "seconds": 0, "settings": {}, "inputs": {}} for step, outputs in finished.items()
    }
    state = {"format": 1, "steps": records}
    (run_dir / "pipeline.json").write_text(json.dumps(state))
    args = ["pipeline", "--from", "map", "--until", "map", *MAP_SETTINGS, "--set", "pipeline.build_map=true"]
    args += ["--set", f"run_dir={run_dir}"]
    result = runner.invoke(app, [*args, "--set", "corpus.label_col=topic"])
    assert result.exit_code == 0, result.output
    ours, pipelines = SemanticMap.load(cli_map), SemanticMap.load(run_dir / "map")
    assert ours.ids == pipelines.ids and ours.labels == pipelines.labels
    assert np.allclose(ours.coords, pipelines.coords), np.abs(ours.coords - pipelines.coords).max()


def test_place_and_render(cli_map, tiny_encoder_dir, sample_records, tmp_path):
    """A paper's own text (what `layout` embedded) is placed on its own point; the coordinates are printed."""
    import re

    import numpy as np
    import pandas as pd

    from semcse.core.data.schema import paper_text
    from semcse.stages.maps import SemanticMap

    own = paper_text(pd.DataFrame([sample_records[5]])).iloc[0]
    result = runner.invoke(
        app,
        [
            "map",
            "place",
            str(cli_map),
            "--text",
            own,
            "--text",
            "Rats on islands and seabirds",
            "--encoder",
            str(tiny_encoder_dir),
            "--png",
            str(tmp_path / "placed.png"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Rats on islands" in result.output and (tmp_path / "placed.png").is_file()
    printed = [tuple(map(float, m)) for m in re.findall(r"^\((-?[\d.]+), (-?[\d.]+)\)", result.output, re.MULTILINE)]
    assert len(printed) == 2
    saved = SemanticMap.load(cli_map)
    distances = np.linalg.norm(saved.coords - printed[0], axis=1)
    assert saved.ids[int(np.argmin(distances))] == sample_records[5]["id"], "placed on its own point"
    spacing = np.median(np.sort(np.linalg.norm(saved.coords[:, None] - saved.coords[None], axis=2), axis=1)[:, 1])
    assert distances.min() < spacing
    assert np.isfinite(saved.coords).all() and len(saved) == len(sample_records)
    result = runner.invoke(app, ["map", "render", str(cli_map), "--out", str(tmp_path / "map.png")])
    assert result.exit_code == 0 and (tmp_path / "map.png").stat().st_size > 1000


def test_explain_decodes_a_position_and_refuses_far_points(cli_map, tiny_causal_lm_dir, tmp_path):
    import numpy as np

    from semcse.models.decoder import EmbeddingDecoder
    from semcse.stages.maps import SemanticMap

    EmbeddingDecoder.create(tiny_causal_lm_dir, 32, hidden_dim=16).save(tmp_path / "decoder")
    x, y = SemanticMap.load(cli_map).coords[0]
    args = [
        "map",
        "explain",
        str(cli_map),
        "--decoder",
        str(tmp_path / "decoder"),
        "--set",
        "decoder.max_new_tokens=4",
    ]
    result = runner.invoke(app, [*args, "--x", str(x), "--y", str(y)])
    assert result.exit_code == 0, result.output
    assert "embedding:" in result.output
    # the embedding explain decodes is one that the map places back where it was asked for
    semantic_map = SemanticMap.load(cli_map)
    explained = semantic_map.explain((x, y), steps=100, margin=0.1)
    back = semantic_map.place(explained, steps=100)[0]
    spacing = np.median(
        np.sort(np.linalg.norm(semantic_map.coords[:, None] - semantic_map.coords[None], axis=2))[:, 1]
    )
    assert np.linalg.norm(back - [x, y]) < spacing, (back, (x, y))
    result = runner.invoke(app, [*args, "--x", "1e6", "--y", "0"])
    assert result.exit_code == 2 and "far outside the map" in result.output


def test_train_decoder_without_inputs_is_a_clear_error():
    result = runner.invoke(app, ["train-decoder", "--set", "tracking.enabled=false"])
    assert result.exit_code == 2
    assert "decoder.base_model" in result.output
