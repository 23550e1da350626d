"""Where a run executes and is tracked: the `ray` and `tracking` sections."""

from __future__ import annotations

from pydantic import Field

from semcse.core.config.base import Section


class RayConfig(Section):
    """How to reach Ray: an address (or RAY_ADDRESS), else a local cluster of this size."""

    address: str | None = None
    num_cpus: int | None = Field(None, gt=0)
    num_gpus: int | None = Field(None, ge=0)


class TrackingConfig(Section):
    """MLflow location; `tracking_uri=None` means MLFLOW_TRACKING_URI or the embedded sqlite store."""

    enabled: bool = True
    tracking_uri: str | None = None
    artifact_location: str = "mlruns"
    experiment: str = "semcse"
