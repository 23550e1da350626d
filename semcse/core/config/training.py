"""The `training` section and the `Recipe` it resolves: every objective, schedule and freezing setting decided."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeGuard

from pydantic import Field, ValidationError, ValidatorFunctionWrapHandler, field_validator, model_validator

from semcse.core.config.base import NOT_SHAPING, Section
from semcse.core.data.modes import ASPECT_PREFIX, AUTO, UPPER_HALF, mix_weights, needs_texts, trains_upper_half

# `training.base_model: scratch:<architecture>`: an encoder initialised at random from the corpus's vocabulary
# (`models.scratch`), whose lower layers hold nothing a recipe should keep frozen.
SCRATCH_PREFIX = "scratch:"


def is_scratch(ref: str | None) -> TypeGuard[str]:
    return ref is not None and ref.startswith(SCRATCH_PREFIX)


class PositiveMix(Section):
    """SemCSE positive sampling proportions (anchor is always a summary)."""

    summary: float = Field(0.5, ge=0)
    title: float = Field(0.15, ge=0)
    sentence: float = Field(0.35, ge=0)

    @model_validator(mode="after")
    def _positive_total(self) -> PositiveMix:
        if self.summary + self.title + self.sentence <= 0:
            raise ValueError("at least one positive proportion must be positive")
        return self


# The cosine gap at which validation's smooth ranks tell a rival from the true match (`rank_softness`): a rival
# 0.1 behind counts 0.12, one 0.3 behind 0.002. The cropping paper's τ, held fixed so that trials that vary the
# training temperature are scored on one scale.
COSINE_RANK_SOFTNESS = 0.05


class TrainingConfig(Section):
    """Encoder training: pairs, model, loss, optimisation, validation and distribution.

    Unset objective settings follow the pairs mode's recipe (`recipe`, what the stages read), and `pairs: auto` is
    the LLM-free recipe `data.modes.AUTO`. What each setting does, and why the defaults are what they are:
    docs/CONFIGURATION.md, "The `training` section", and docs/train.md.
    """

    pairs: str = "semcse"
    loss: Literal["triplet", "infonce"] | None = None
    texts: Annotated[str | None, NOT_SHAPING] = None
    base_model: str | None = None
    out: Annotated[str | None, NOT_SHAPING] = None
    pooling: Literal["cls", "mean", "last"] | None = None
    projection: bool = False
    projection_dim: int | None = Field(None, gt=0)
    freeze_embeddings: bool | None = None
    freeze_layers: Annotated[int, Field(ge=0)] | Literal["half"] | None = None
    gradient_checkpointing: bool = False
    max_length: int = Field(256, gt=0)
    export_max_length: int | None = Field(None, gt=0)
    batch_size: int = Field(32, gt=1)
    forward_batch_size: int = Field(16, ge=0)
    learning_rate: float | None = Field(None, gt=0)
    weight_decay: float = Field(0.01, ge=0)
    warmup_steps: int | None = Field(None, ge=0)
    max_steps: int = Field(1000, gt=0)
    temperature: float | None = Field(None, gt=0)
    average_with_base: float = Field(0.0, ge=0, lt=1)
    base_similarity_weight: float = Field(0.0, ge=0)
    margin: float = Field(1.0, gt=0)
    anchor_l2_weight: float = Field(1 / 250, ge=0)
    positive_mix: PositiveMix = Field(default_factory=PositiveMix)
    crop_sentences: int = Field(2, gt=0)
    min_title_words: int = Field(3, ge=1)
    min_sentence_chars: int = Field(100, ge=0)
    max_sentence_chars: int = Field(250, gt=0)
    train_fraction: float = Field(1.0, gt=0, le=1)
    launcher: Annotated[Literal["ray", "local"], NOT_SHAPING] = "ray"
    num_workers: Annotated[int, NOT_SHAPING] = Field(2, gt=0)
    use_gpu: Annotated[bool, NOT_SHAPING] = False
    cpus_per_worker: Annotated[float, NOT_SHAPING] = Field(1.0, gt=0)
    resources_per_worker: Annotated[dict[str, float], NOT_SHAPING] = Field(default_factory=dict)
    zero_stage: int | None = Field(None, ge=0, le=3)
    cpu_bf16: bool | None = None
    eval_every: int = Field(50, gt=0)
    eval_every_minutes: float | None = Field(None, gt=0)
    val_size: int = Field(256, gt=1)
    val_distractors: int = Field(2, ge=0)
    log_every: Annotated[int, NOT_SHAPING] = Field(10, gt=0)
    patience: int = Field(3, gt=0)
    improvement: Literal["significant", "strict"] = "significant"
    label_guard: bool = True
    label_margin: float = Field(0.02, ge=0, le=1)
    label_reference: int = Field(1000, ge=0)
    max_failures: Annotated[int, NOT_SHAPING] = Field(0, ge=0)
    seed: int = 0
    register_name: str = "semcse-encoder"
    register_alias: str = "candidate"

    @field_validator("freeze_layers", mode="wrap")
    @classmethod
    def _layer_count_or_half(cls, value: Any, check: ValidatorFunctionWrapHandler) -> Any:
        """The field's type decides; only its message is ours: pydantic reports each branch of the union it tried, a
        line for the integer and another for `half`, and neither says what the setting takes."""
        try:
            return check(value)
        except ValidationError:
            raise ValueError("takes a number of layers (0 or more) or 'half' (the lower half of the layers)") from None

    @field_validator("pairs")
    @classmethod
    def _known_pairs(cls, value: str) -> str:
        mix_weights(AUTO["pairs"] if value == "auto" else value)
        return value

    @field_validator("resources_per_worker")
    @classmethod
    def _custom_resources_only(cls, value: dict[str, float]) -> dict[str, float]:
        builtin = sorted({"CPU", "GPU", "memory"} & set(value))
        if builtin:
            raise ValueError(f"{builtin} are set by cpus_per_worker and use_gpu; name only custom resources here")
        if any(amount <= 0 for amount in value.values()):
            raise ValueError("resource amounts must be positive")
        return value

    @model_validator(mode="after")
    def _projection_has_dim(self) -> TrainingConfig:
        if self.projection and self.projection_dim is None:
            raise ValueError("projection is enabled but projection_dim is not set")
        if self.min_sentence_chars >= self.max_sentence_chars:
            raise ValueError("min_sentence_chars must be smaller than max_sentence_chars")
        if self.use_gpu and self.zero_stage == 0:
            raise ValueError(
                "zero_stage 0 with use_gpu: DeepSpeed's stage-0 bf16 optimizer keeps its fp32 master weights where "
                "the export cannot read them; use zero_stage 1, 2 (the GPU default) or 3"
            )
        if self.average_with_base and self.recipe.zero_stage == 3:
            raise ValueError(
                "average_with_base with ZeRO-3: each worker holds only a shard of the weights the candidate "
                "averages; use zero_stage 2 (the GPU default) or set average_with_base 0"
            )
        if self.launcher == "local" and self.num_workers != 1:
            raise ValueError(
                f"launcher local trains in this process, one worker; set num_workers 1 (got {self.num_workers}) or "
                "launcher ray"
            )
        if self.batch_size % self.num_workers:
            raise ValueError(
                f"batch_size {self.batch_size} (pairs per step over all workers) must be a multiple of "
                f"num_workers {self.num_workers}"
            )
        return self

    @property
    def worker_batch_size(self) -> int:
        """Pairs each worker contributes to a step; the loss sees all workers' pairs."""
        return self.batch_size // self.num_workers

    @property
    def recipe(self) -> Recipe:
        """Every objective, schedule and freezing setting decided, what the stages read: the run's own where set, else
        `pairs: auto`'s (`data.modes.AUTO`), else the mode's. Crop modes follow the cropping paper (InfoNCE, τ 0.05,
        linear warm-up over the first 10% of steps), aspect encoders train with InfoNCE and SemCSE with its triplet
        loss at τ 0.07 from full rate; ZeRO-2 on GPU, 0 on CPU; title pairs on a pretrained encoder train its upper
        half (`data.modes.UPPER_HALF`) unless the run sets either freezing setting (docs/CONFIGURATION.md)."""
        chosen = AUTO if self.pairs == "auto" else {}

        def given(name: str, default: Any) -> Any:
            value = getattr(self, name)
            return value if value is not None else chosen.get(name, default)

        pairs: str = chosen.get("pairs", self.pairs)
        crop = not needs_texts(pairs)
        frozen_given = self.freeze_embeddings is not None or self.freeze_layers is not None
        upper_half = not frozen_given and trains_upper_half(pairs) and not is_scratch(self.base_model)
        frozen = UPPER_HALF if upper_half else {}
        return Recipe(
            pairs=pairs,
            loss=given("loss", "infonce" if crop or pairs.startswith(ASPECT_PREFIX) else "triplet"),
            temperature=given("temperature", 0.05 if crop else 0.07),
            learning_rate=given("learning_rate", 2e-5),
            warmup_steps=given("warmup_steps", max(1, self.max_steps // 10) if crop else 0),
            zero_stage=given("zero_stage", 2 if self.use_gpu else 0),
            freeze_embeddings=given("freeze_embeddings", frozen.get("freeze_embeddings", False)),
            freeze_layers=given("freeze_layers", frozen.get("freeze_layers", 0)),
        )


@dataclass(frozen=True)
class Recipe:
    """What a run trains with, every setting decided (`TrainingConfig.recipe`): the stages read this, not the
    optional fields behind it."""

    pairs: str  # the mode trained: `auto` is the one it stands for
    loss: Literal["triplet", "infonce"]
    temperature: float
    learning_rate: float
    warmup_steps: int
    zero_stage: int
    freeze_embeddings: bool
    freeze_layers: int | Literal["half"]

    @property
    def crop_based(self) -> bool:
        """The LLM-free modes (crops, dropout, titles, their mixes) train on the corpus alone."""
        return not needs_texts(self.pairs)

    @property
    def similarity(self) -> Literal["euclidean", "cosine"]:
        """The geometry the loss trains, used for validation ranks and saved with the model."""
        return "euclidean" if self.loss == "triplet" else "cosine"

    @property
    def rank_softness(self) -> float:
        """How smooth validation's decision ranks are (`training.validation`): `COSINE_RANK_SOFTNESS` for cosine
        (InfoNCE) models, 0 (hard ranks, as SemCSE validates) for the triplet loss's Euclidean space; a fixed scale,
        not the run's τ, so that `val_score` compares the trials of a study that varies τ."""
        return COSINE_RANK_SOFTNESS if self.loss == "infonce" else 0.0
