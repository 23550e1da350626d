"""A run's locations and tracking store, resolved once and checked against where the run executes.

A worker on another node, a Tune trial in its own directory and a Serve replica must all read and
write the same places as the driver. So before any Ray work a run's config is *resolved*: relative
local paths become absolute, the MLflow tracking URI is fixed (it is otherwise a default that
depends on the working directory), and every location is checked:

- a URI must be reachable with credentials (`storage.check_access`);
- a relative `run_dir`, and the default MLflow store in the working directory, are refused in a
  job submitted with `ray job submit`, whose working directory is a temporary copy that later jobs
  never see;
- on a cluster whose work runs on other nodes (`ClusterShape.spans_nodes`), a run directory on
  this machine's disk and a sqlite/`file:` MLflow store are refused: the workers would write into
  their own disks. `file:///path` says explicitly that a path is a shared filesystem every node mounts.

Each refusal is one message that says what to set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semcse.core import storage
from semcse.core.config import ConfigError, RunConfig
from semcse.core.tracking import is_local_store, tracking_uri

JOB_ENV = "RAY_JOB_CONFIG_JSON_ENV_VAR"  # set by Ray's job manager for a submitted job's entrypoint
HEALTH_TIMEOUT_S = 5.0

# Where a run writes: a relative path here is resolved against the working directory, always.
OUTPUT_KEYS = (
    ("generation", "out"),
    ("training", "out"),
    ("decoder", "out"),
    ("map", "out"),
    ("multi", "out"),
    ("multi", "aspect_encoders"),
)
# What a run reads (a path, a URI, a registry reference or a hub id): made absolute when it exists here.
INPUT_KEYS = (
    ("corpus", "path"),
    ("generation", "model"),
    ("generation", "tokenizer"),
    ("generation", "judgement_pairs"),
    ("generation", "judgement_texts"),
    ("training", "texts"),
    ("training", "base_model"),
    ("evaluation", "data"),
    ("evaluation", "texts"),
    ("evaluation", "judgements"),
    ("serve", "encoder"),
    ("serve", "index"),
    ("serve", "map"),
    ("decoder", "base_model"),
    ("decoder", "encoder"),
    ("decoder", "texts"),
    ("decoder", "predictor"),
    ("decoder", "bertscore_model"),
    ("multi", "texts"),
    ("pipeline", "serve_config"),
)


@dataclass(frozen=True)
class ClusterShape:
    """Where this driver's work runs: the cluster it joined (None: one it started itself) and its nodes."""

    address: str | None
    nodes: int
    driver_node_cpus: float

    @property
    def client(self) -> bool:
        """A Ray Client driver (`ray://`) runs on no node of the cluster at all."""
        return bool(self.address and self.address.startswith("ray://"))

    @property
    def spans_nodes(self) -> bool:
        """Work may run on a node that does not share this driver's disk.

        True with several nodes, with a head that offers no CPUs (an autoscaling cluster scaled to
        zero: every task lands on a node that does not exist yet), and for Ray Client drivers.
        """
        return self.client or self.nodes > 1 or (self.address is not None and self.driver_node_cpus <= 0)


def submitted_job() -> bool:
    """This process is the entrypoint of `ray job submit`, running in a temporary copy of its working dir."""
    return JOB_ENV in os.environ


def _input(value: str | None) -> str | None:
    if not value or storage.is_uri(value) or value.startswith("models:/"):
        return value
    path = Path(value).expanduser()
    return str(path.resolve()) if path.exists() else value


def _output(value: str | None) -> str | None:
    return storage.normalize(value) if value else value


def resolved(cfg: RunConfig) -> RunConfig:
    """The same run with absolute local paths, the tracking URI fixed, and URIs left as they are.

    Only the locations change: what the user set stays what they set (`model_fields_set`), which the stages read
    to tell a chosen value from a default (separate evaluation data is scored whole unless a split was chosen;
    a Serve app keeps its config file's arguments unless the run set them).
    """
    changes: dict[str, dict[str, Any]] = {}

    def change(section: str, key: str, value: Any) -> None:
        if value != getattr(getattr(cfg, section), key):
            changes.setdefault(section, {})[key] = value

    for section, key in OUTPUT_KEYS:
        change(section, key, _output(getattr(getattr(cfg, section), key)))
    for section, key in INPUT_KEYS:
        change(section, key, _input(getattr(getattr(cfg, section), key)))
    change("serve", "decoders", {aspect: _input(ref) for aspect, ref in cfg.serve.decoders.items()})
    change("tracking", "tracking_uri", tracking_uri(cfg.tracking))
    if not storage.is_uri(cfg.tracking.artifact_location):
        change("tracking", "artifact_location", str(Path(cfg.tracking.artifact_location).expanduser().resolve()))
    sections = {name: getattr(cfg, name).model_copy(update=values) for name, values in changes.items()}
    run_dir = storage.normalize(cfg.run_dir)
    update = sections | ({"run_dir": run_dir} if run_dir != cfg.run_dir else {})
    return cfg.model_copy(update=update)  # sections are frozen, so the unchanged ones can be shared


def uris(cfg: RunConfig) -> list[str]:
    """Every remote location the run names (to check access to each bucket once, before any work)."""
    values = [cfg.run_dir, cfg.tracking.artifact_location, *cfg.serve.decoders.values()]
    values += [getattr(getattr(cfg, section), key) for section, key in (*OUTPUT_KEYS, *INPUT_KEYS)]
    return [str(v) for v in values if v and storage.is_remote(str(v))]


def check_before_ray(cfg: RunConfig) -> None:
    """What can be refused without a cluster: unknown schemes, unreachable storage, a job's vanishing directory."""
    for value in (cfg.run_dir, *[getattr(getattr(cfg, s), k) for s, k in OUTPUT_KEYS]):
        if value:
            storage.check_scheme(value)
    checked: set[str] = set()
    for uri in uris(cfg):
        bucket = f"{storage.scheme(uri)}://{uri.split('://', 1)[1].split('/', 1)[0]}"
        if bucket not in checked:
            checked.add(bucket)
            try:
                storage.check_access(uri)
            except storage.StorageError as exc:
                raise ConfigError(str(exc)) from None
    _check_tracking_server(cfg)
    if not submitted_job():
        return
    if not storage.is_uri(cfg.run_dir) and not Path(cfg.run_dir).expanduser().is_absolute():
        raise ConfigError(
            f"run_dir {cfg.run_dir!r} is relative, and this is a submitted Ray job: it would land in the job's "
            f"temporary working directory ({Path.cwd()}), which other nodes and later jobs never see. Set run_dir to "
            f"a storage URI every node can reach, e.g. --set run_dir=s3://BUCKET/{Path(cfg.run_dir).name or 'run'}"
        )
    if not cfg.tracking.tracking_uri and not os.environ.get("MLFLOW_TRACKING_URI") and cfg.tracking.enabled:
        raise ConfigError(
            "MLflow would default to a sqlite file in this submitted job's temporary working directory, which is "
            f"deleted with it. {_tracking_fix()}"
        )


def _check_tracking_server(cfg: RunConfig) -> None:
    """An MLflow server that does not answer fails now, not after an hour of generation."""
    import urllib.error
    import urllib.request

    uri = tracking_uri(cfg.tracking)
    if not cfg.tracking.enabled or not uri.startswith(("http://", "https://")):
        return
    try:
        with urllib.request.urlopen(f"{uri.rstrip('/')}/health", timeout=HEALTH_TIMEOUT_S):
            return
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(
            f"the MLflow server {uri} does not answer ({reason}): check that it runs and that this machine reaches it"
        ) from None


def _tracking_fix() -> str:
    return (
        "Run an MLflow server that every node reaches (cluster.yaml starts one on the head: "
        "`mlflow server --backend-store-uri sqlite:////home/ray/mlflow/mlflow.db --artifacts-destination "
        "s3://BUCKET/mlflow --host 0.0.0.0 --port 5000`) and set MLFLOW_TRACKING_URI=http://HEAD:5000 "
        "(or --set tracking.tracking_uri=...)"
    )


def check_on_cluster(cfg: RunConfig, shape: ClusterShape) -> None:
    """What a cluster whose work runs on other nodes cannot use: the driver's disk and a local MLflow store."""
    if not shape.spans_nodes:
        return
    where = "a Ray Client driver" if shape.client else f"a cluster of {shape.nodes} node(s) at {shape.address}"
    if not storage.is_uri(cfg.run_dir):
        raise ConfigError(
            f"run_dir {cfg.run_dir} is on this machine's disk, and the run's work goes to other nodes of {where}: "
            f"they would write into their own disks. Set run_dir to a storage URI every node reaches (e.g. "
            f"--set run_dir=s3://BUCKET/runs/{Path(cfg.run_dir).name}), or to file://{cfg.run_dir} if it is a "
            "shared filesystem mounted on every node"
        )
    uri = tracking_uri(cfg.tracking)
    if cfg.tracking.enabled and is_local_store(uri):
        raise ConfigError(
            f"the MLflow store {uri} is a file on this machine, and the run's work goes to other nodes of {where}, "
            f"which would each open an empty store of their own. {_tracking_fix()}"
        )
