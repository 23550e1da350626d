"""The `serve` section: the arguments of every Ray Serve app."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from semcse.core.config.base import NOT_SHAPING, Section


class ServeConfig(Section):
    """Arguments of every Ray Serve app, one schema for all so `semcse serve` overrides them alike. What each
    setting does: docs/CONFIGURATION.md, "The `serve` section"."""

    host: str = "127.0.0.1"
    port: int = Field(8000, gt=0, lt=65536)
    no_auth: bool = False
    encoder: Annotated[str | None, NOT_SHAPING] = None
    model_name: str | None = None
    index: Annotated[str | None, NOT_SHAPING] = None
    decoders: dict[str, str] = Field(default_factory=dict)
    map: Annotated[str | None, NOT_SHAPING] = None
    texts: Annotated[str | None, NOT_SHAPING] = None
    search_route: str = Field("/search", pattern=r"^/[^\s\"'<>]*$")
    max_batch_size: int = Field(64, gt=0)
    batch_wait_timeout_s: float = Field(0.01, ge=0)
    torch_threads: int | None = Field(None, gt=0)
    encode_lanes: int | None = Field(None, gt=0)
    inference_batch_size: int = Field(16, gt=0)
    device: Literal["auto", "cpu", "cuda"] = "auto"
    dtype: Literal["float32", "float16", "bfloat16"] = "float32"
    max_items: int = Field(2048, gt=0)
    max_chars: int = Field(20_000, gt=0)
    max_request_bytes: int = Field(8_000_000, gt=0)
    max_k: int = Field(100, gt=0)
    max_new_tokens: int = Field(48, gt=0)
    temperature: float = Field(0.0, ge=0)
    layout_iterations: int = Field(750, gt=0)
    api_key_env: str = "SEMCSE_API_KEY"

    @field_validator("decoders", mode="before")
    @classmethod
    def _single_decoder(cls, value: object) -> object:
        return {"": value} if isinstance(value, str) else value
