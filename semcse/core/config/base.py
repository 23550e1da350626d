"""What every settings section shares: unknown keys refused, values frozen once validated, and the marker of a
setting that does not shape what its step makes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class NotShaping:
    """Marks a setting that does not decide what its step makes: where or how fast the step runs, where its output
    goes, or an input the pipeline wires from another step (`Annotated[int, NOT_SHAPING]`). A pipeline step
    recorded under other values of such settings is still the step the run asks for (`pipeline.step_settings`)."""


NOT_SHAPING = NotShaping()


def shapes(section: type[BaseModel], name: str) -> bool:
    """Whether `section.name` decides what its step makes (it is not marked `NOT_SHAPING`)."""
    return not any(isinstance(marker, NotShaping) for marker in section.model_fields[name].metadata)


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names every offending key path."""


class Section(BaseModel):
    """Base for config sections: unknown keys are errors, and a validated section is never changed (derive another
    with `run.with_overrides` or `model_copy`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
