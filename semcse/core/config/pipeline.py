"""The `pipeline` section: the register step's metric and guards, and the optional index, map and serve steps."""

from __future__ import annotations

from pydantic import Field, field_validator

from semcse.core.config.base import Section


def _suite_column(value: str) -> str:
    if ":" not in value or not all(value.split(":", 1)):
        raise ValueError(
            f"metric must look like SUITE:COLUMN (e.g. semantic:improvement, knn:knn_accuracy), got {value!r}"
        )
    if value.split(":", 1)[1] == "overall":
        raise ValueError(
            f"{value} normalises each task across the models in the table, so its value for a model changes with "
            "the other models evaluated beside it: promote on a task (semantic:title_abstract) or on "
            "semantic:improvement (the mean log-ratio over tasks against the base model)"
        )
    return value


class PipelineConfig(Section):
    """End-to-end pipeline: the promotion metric, its guards and the optional index/map/serve steps.

    The default metric is SemCSE's title→abstract average rank, an absolute figure;
    `semantic:improvement` (the mean log-ratio over the semantic tasks against the base model) weighs
    every task and means the same whatever else is evaluated beside it. `semantic:overall` (SemCSE's
    normalised score) is refused: it is relative to the models in the table (with two or three
    models each task scores 0 or 1, and the base model's scores move the trained−champion
    difference), a leaderboard figure, not evidence. A trained model is promoted only
    when it is significantly better on `metric` and significantly worse on none of `guards` (those
    the evaluation computed; the label metrics exist only for a labelled corpus): a model that ranks
    titles better while it blurs the corpus's topics is not a better model. `build_map` lays the
    corpus out (the `map` section's settings) so that `semcse pipeline --add` can place new papers into it.
    """

    metric: str = "semantic:title_abstract"
    guards: list[str] = Field(
        default_factory=lambda: ["knn:knn_accuracy", "knn:label_agreement", "knn:v_measure", "semantic:clustering"]
    )
    build_index: bool = False
    build_map: bool = False
    deploy: bool = False
    serve_config: str | None = None

    @field_validator("metric")
    @classmethod
    def _suite_and_column(cls, value: str) -> str:
        return _suite_column(value)

    @field_validator("guards")
    @classmethod
    def _guards_are_suite_columns(cls, values: list[str]) -> list[str]:
        return [_suite_column(value) for value in values]
