"""The `evaluation` section: which suites on which models and data, and how embedding and search are sized."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from semcse.core.config.base import NOT_SHAPING, Section

Suite = Literal["semantic", "knn", "aspects", "decoder"]


class EvaluationConfig(Section):
    """Which suites to run on which models and data, and how embedding and search are sized.

    `pooling` applies to plain Hugging Face encoders only (a saved sentence-transformers model keeps
    its own); a model given as `REF#cls` chooses its pooling explicitly. `split=test` scores only the
    corpus's test split (papers no model trained on), `val` its validation split (for tuning, so
    model selection never sees the test split); `all` is for separate evaluation data.
    `bootstrap` resamples give every figure its 95% interval (SemCSE's pools: 900 and 6,000 papers).
    """

    suites: list[Suite] = Field(default_factory=lambda: list[Suite](["semantic"]))
    models: Annotated[list[str], NOT_SHAPING] = Field(default_factory=list)
    data: str | None = None
    out: Annotated[str | None, NOT_SHAPING] = None
    label_col: str | None = None
    query_col: str | None = None
    texts: str | None = None
    judgements: str | None = None
    judged_aspects: dict[str, str] = Field(default_factory=dict)
    batch_size: Annotated[int, NOT_SHAPING] = Field(64, gt=0)
    max_length: int = Field(256, gt=0)
    pooling: Literal["cls", "mean", "last"] = "mean"
    actors: Annotated[int | None, NOT_SHAPING] = Field(None, gt=0)
    cpus_per_actor: Annotated[float, NOT_SHAPING] = Field(1.0, gt=0)
    gpus_per_actor: Annotated[float, NOT_SHAPING] = Field(0.0, ge=0)
    shard_rows: Annotated[int, NOT_SHAPING] = Field(1024, gt=0)
    split: Literal["test", "val", "all"] = "test"
    max_pool: int | None = Field(6000, gt=1)
    agreement_k: int = Field(5, gt=0)
    accuracy_k: int = Field(10, gt=0)
    knn_similarity: Literal["cosine", "euclidean"] | None = None
    overlap_k: int = Field(10, gt=0)
    ivf_threshold: int = Field(200_000, gt=0)
    plots: bool = True
    tsne_points: int = Field(2000, gt=10)
    bootstrap: int = Field(1000, ge=2)
    seed: int = 0
