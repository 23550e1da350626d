"""Where the suite finds the repository, the shipped sample corpus, the real corpora (SEMCSE_DATA) and MLflow."""

from __future__ import annotations

from pathlib import Path

from semcse.core.resources import data_dir

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO / data_dir()).resolve()  # the data setting (SEMCSE_DATA), from the repository root
SAMPLE_CORPUS = REPO / "examples" / "sample_corpus.jsonl"


def mlflow_uri(store: Path) -> str:
    """The tracking URI of an MLflow store folder (the session's `mlflow_store`): a sqlite database in it."""
    return f"sqlite:///{store / 'mlflow.db'}"


def mlflow_tracking(store: Path, experiment: str | None = None) -> dict[str, str]:
    """A run's `tracking` section on that store, its artifacts in the folder too, under `experiment` (or the run
    config's own)."""
    section = {"tracking_uri": mlflow_uri(store), "artifact_location": str(store / "mlruns")}
    return section if experiment is None else section | {"experiment": experiment}
