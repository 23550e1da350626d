"""The training loop in this process: its checkpoints, and a process that has no Ray at all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from semcse.stages.training.checkpoints import CANDIDATE_SCORE, NOT_A_CANDIDATE
from semcse.stages.training.local import METRICS_FILE, LocalSession
from tests.paths import REPO


def _report(session: LocalSession, tmp_path: Path, step: int, score: float) -> None:
    part = tmp_path / f"part-{step}"
    part.mkdir()
    (part / "weights").write_text(str(step))
    session.report({"step": step, CANDIDATE_SCORE: score}, part)


def test_a_local_run_keeps_its_best_and_its_latest_checkpoint_and_resumes_from_the_latest(tmp_path: Path) -> None:
    session = LocalSession(tmp_path / "run")
    with session.resumed() as directory:
        assert directory is None
    for step, score in [(0, 5.0), (10, 4.0), (20, NOT_A_CANDIDATE), (30, NOT_A_CANDIDATE)]:
        _report(session, tmp_path, step, score)
    kept = [json.loads((path / METRICS_FILE).read_text())["step"] for path, _ in session.kept()]
    assert kept == [10, 30]  # the best (step 10) and the latest; the base model's step 0 was displaced
    with session.resumed() as directory:
        assert directory is not None and (directory / "weights").read_text() == "30"
    again = LocalSession(tmp_path / "run").outcome()  # a later process reads the same directory
    assert again.best["step"] == 10 and again.last["step"] == 30
    with again.best_checkpoint() as best:
        assert (best / "weights").read_text() == "10"


RAYLESS = """
import sys
sys.modules["ray"] = None  # any `import ray` now fails: the image of a GPU box with torch and transformers only
import json
from pathlib import Path
from semcse.core.config import TrainingConfig
from semcse.core.data.io import read_corpus
from semcse.stages.training.engine import build_encoder
from semcse.stages.training.local import run_local
from semcse.stages.training.loop import LoopSpec
from semcse.stages.training.objective import PairObjective
from semcse.stages.training.positives import build_pair_rows
from semcse.stages.training.validation import build_validation_set

model_dir, corpus_path, out = sys.argv[1:4]
tc = TrainingConfig(pairs="crops", base_model=model_dir, launcher="local", num_workers=1, batch_size=8,
                    max_steps=4, eval_every=2, max_length=48, learning_rate=1e-3, cpu_bf16=False)
corpus = read_corpus(corpus_path)
rows = build_pair_rows(tc.pairs, corpus.iloc[:30], None, tc)
validation = build_validation_set(tc.pairs, build_pair_rows(tc.pairs, corpus.iloc[30:], None, tc), 10, "cosine")
spec = LoopSpec(cfg=tc, objective=PairObjective(tc), model_factory=lambda: build_encoder(tc), validation=validation)
outcome = run_local(spec, rows, Path(out))
print(json.dumps({"last": outcome.last["step"], "best": outcome.best["step"]}))
"""


def test_the_loop_runs_where_ray_is_not_installed(tiny_encoder_dir: Path, sample_corpus_path: Path, tmp_path: Path):
    """What a GPU machine whose image has no Ray can run: the loop, its validation and checkpoints, in one process."""
    done = subprocess.run(
        [sys.executable, "-c", RAYLESS, str(tiny_encoder_dir), str(sample_corpus_path), str(tmp_path / "run")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    ended = json.loads(done.stdout.strip().splitlines()[-1])
    assert ended["last"] == 4 and ended["best"] in (0, 2, 4)
