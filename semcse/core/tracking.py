"""The one place that talks to MLflow.

`Tracker` is a small picklable handle (config + run id) rather than MLflow's process-global
active run, so the same run can be logged to from the driver and from a Ray worker (rank 0 of a
training loop, a Tune trial) alike. With tracking disabled every method is a no-op, so stage
code never branches on it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from pydantic import BaseModel

from semcse.core.config import TrackingConfig, flatten

log = logging.getLogger(__name__)

MAX_PARAM_CHARS = 6000
PARAMS_PER_BATCH = 100
PARENT_ENV = "SEMCSE_PARENT_RUN_ID"
CREATE_RETRY_DELAYS_S = (0.2, 0.4, 0.8, 1.6)
T = TypeVar("T")


def tracking_uri(cfg: TrackingConfig) -> str:
    """Config, else MLFLOW_TRACKING_URI, else the embedded sqlite store in the working directory."""
    return cfg.tracking_uri or os.environ.get("MLFLOW_TRACKING_URI") or f"sqlite:///{Path('mlflow.db').resolve()}"


def is_local_store(uri: str) -> bool:
    return uri.startswith(("sqlite:", "file:")) or "://" not in uri


def ui_hint(cfg: TrackingConfig) -> str:
    """The command that opens the MLflow UI on this run's store."""
    uri = tracking_uri(cfg)
    if not is_local_store(uri):
        return f"MLflow server: {uri}"
    artifacts = Path(cfg.artifact_location).resolve()
    return (
        f"mlflow ui --backend-store-uri {uri} --default-artifact-root {artifacts}  (then open http://127.0.0.1:5000)"
    )


@dataclass
class Tracker:
    """A handle on one MLflow run (or on nothing, when tracking is disabled)."""

    cfg: TrackingConfig
    run_id: str | None = None

    @property
    def client(self) -> Any:
        import mlflow
        from mlflow.tracking import MlflowClient

        uri = tracking_uri(self.cfg)
        mlflow.set_tracking_uri(uri)
        return MlflowClient(tracking_uri=uri)

    def _experiment_id(self) -> str:
        client = self.client
        location = None
        if is_local_store(tracking_uri(self.cfg)):
            location = Path(self.cfg.artifact_location).resolve().as_uri()

        def existing() -> str | None:
            experiment = client.get_experiment_by_name(self.cfg.experiment)
            return str(experiment.experiment_id) if experiment is not None else None

        return get_or_create(existing, lambda: client.create_experiment(self.cfg.experiment, location))

    @classmethod
    def start(
        cls,
        cfg: TrackingConfig,
        run_name: str,
        parent: Tracker | None = None,
        tags: dict[str, str] | None = None,
    ) -> Tracker:
        """Create a run and return its handle.

        The run is a child of `parent` when given, else of the run in SEMCSE_PARENT_RUN_ID (set by
        `Tracker.as_parent`), so a stage run from a pipeline nests under it without plumbing.
        """
        if not cfg.enabled:
            return cls(cfg)
        tracker = cls(cfg)
        all_tags = dict(tags or {})
        parent_id = parent.run_id if parent is not None else os.environ.get(PARENT_ENV)
        if parent_id:
            all_tags["mlflow.parentRunId"] = parent_id
        run = tracker.client.create_run(tracker._experiment_id(), run_name=run_name, tags=all_tags)
        tracker.run_id = run.info.run_id
        return tracker

    @classmethod
    def resume(cls, cfg: TrackingConfig, run_id: str) -> Tracker:
        """Reopen an existing run (a resumed job keeps logging into the run it started)."""
        tracker = cls(cfg, run_id=run_id if cfg.enabled else None)
        if tracker.run_id:
            tracker.client.update_run(run_id, status="RUNNING")
        return tracker

    @contextmanager
    def as_parent(self) -> Iterator[Tracker]:
        """Within this block, every run started by `Tracker.start` in this process is a child of this one."""
        before = os.environ.get(PARENT_ENV)
        if self.run_id:
            os.environ[PARENT_ENV] = self.run_id
        try:
            yield self
        finally:
            if before is None:
                os.environ.pop(PARENT_ENV, None)
            else:
                os.environ[PARENT_ENV] = before

    @property
    def active(self) -> bool:
        return self.run_id is not None

    def __enter__(self) -> Tracker:
        return self

    def __exit__(self, exc_type: type | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc_type is None:
            self.finish("FINISHED")
        elif issubclass(exc_type, KeyboardInterrupt):
            self.finish("KILLED")
        else:
            self.finish("FAILED")

    def finish(self, status: str = "FINISHED") -> None:
        if self.active:
            self.client.set_terminated(self.run_id, status=status)

    def log_params(self, params: dict[str, Any] | BaseModel, prefix: str = "") -> None:
        """Log (flattened) params; long values are truncated to MLflow's limit."""
        if not self.active:
            return
        from mlflow.entities import Param

        flat = flatten(params, prefix)
        items = [Param(k, json.dumps(v) if isinstance(v, list | dict) else str(v)) for k, v in flat.items()]
        items = [Param(p.key, p.value[:MAX_PARAM_CHARS]) for p in items]
        for start in range(0, len(items), PARAMS_PER_BATCH):
            self.client.log_batch(self.run_id, params=items[start : start + PARAMS_PER_BATCH])

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        if not self.active:
            return
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        batch = [Metric(k, float(v), now, step or 0) for k, v in metrics.items() if v is not None]
        if batch:
            self.client.log_batch(self.run_id, metrics=batch)

    def set_tags(self, tags: dict[str, str]) -> None:
        if self.active:
            for key, value in tags.items():
                self.client.set_tag(self.run_id, key, value)

    def log_artifact(self, path: str | Path, artifact_path: str | None = None) -> None:
        """Log a file or a whole directory (a local path or a storage URI)."""
        if not self.active:
            return
        from semcse.core import storage

        path = storage.local_copy(path)
        if path.is_dir():
            self.client.log_artifacts(self.run_id, str(path), artifact_path)
        else:
            self.client.log_artifact(self.run_id, str(path), artifact_path)

    def log_dict(self, data: Any, filename: str) -> None:
        if not self.active:
            return
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / filename
            target.write_text(json.dumps(data, indent=2, default=str))
            self.client.log_artifact(self.run_id, str(target))

    def artifact_uri(self, artifact_path: str) -> str:
        return f"runs:/{self.run_id}/{artifact_path}"

    def register_model(self, artifact_path: str, name: str, alias: str | None = None) -> str | None:
        """Register the directory logged at `artifact_path` as a new version of `name`; set `alias`.

        Versions point at the run's artifacts (no copy), so registering is cheap and the registry
        always says which run produced a model.
        """
        if not self.active:
            return None
        client = self.client
        get_or_create(lambda: registered_model(client, name), lambda: client.create_registered_model(name))
        source = f"{client.get_run(self.run_id).info.artifact_uri.rstrip('/')}/{artifact_path}"
        version = client.create_model_version(name, source=source, run_id=self.run_id)
        if alias:
            client.set_registered_model_alias(name, alias, version.version)
        log.info("registered %s version %s%s", name, version.version, f" as @{alias}" if alias else "")
        return str(version.version)


def get_or_create(existing: Callable[[], T | None], create: Callable[[], T]) -> T:
    """What `existing` finds, else what `create` makes, also when other processes race to create it.

    Tune trials that finish together register the first versions of one model name at the same
    moment. The loser's create fails (already exists, or "not found" while the winner's transaction
    is still open), so a failed create is followed by another look before giving up.
    """
    from mlflow.exceptions import MlflowException

    for delay in CREATE_RETRY_DELAYS_S:
        found = existing()
        if found is not None:
            return found
        try:
            return create()
        except MlflowException:
            time.sleep(delay)
    found = existing()
    return found if found is not None else create()


def registered_model(client: Any, name: str) -> Any:
    """The registered model `name`, or None."""
    from mlflow.exceptions import MlflowException

    try:
        return client.get_registered_model(name)
    except MlflowException:
        return None


def set_alias(cfg: TrackingConfig, name: str, alias: str, version: str) -> None:
    """Point `name@alias` at a version (e.g. promote a candidate to champion)."""
    Tracker(cfg).client.set_registered_model_alias(name, alias, version)


def alias_version(cfg: TrackingConfig, name: str, alias: str) -> str | None:
    """The version `name@alias` points at, or None when the model or the alias does not exist."""
    from mlflow.exceptions import MlflowException

    try:
        return str(Tracker(cfg).client.get_model_version_by_alias(name, alias).version)
    except MlflowException:
        return None


def registry_version(ref: str, cfg: TrackingConfig | None = None) -> Any:
    """The registry's model version behind `models:/name@alias` or `models:/name/3`."""
    client = Tracker(cfg or TrackingConfig()).client
    spec = ref[len("models:/") :]
    if "@" in spec:
        name, alias = spec.split("@", 1)
        return client.get_model_version_by_alias(name, alias)
    if "/" in spec:
        name, number = spec.split("/", 1)
        return client.get_model_version(name, number)
    raise ValueError(f"model reference {ref!r} needs an alias (models:/name@alias) or a version (models:/name/3)")


def pinned(ref: str, cfg: TrackingConfig | None = None) -> str:
    """`models:/name@alias` as the version it points at now (`models:/name/7`); other references unchanged.

    A run hands workers the pinned reference, so every worker loads the same weights even when the
    alias moves while the run is going on.
    """
    if not ref.startswith("models:/") or "@" not in ref:
        return ref
    version = registry_version(ref, cfg)
    return f"models:/{version.name}/{version.version}"


def resolve_model(ref: str, cfg: TrackingConfig | None = None) -> str:
    """Turn a model reference into a directory on this node (or a hub id, as given).

    Resolved where the model is loaded (a Train worker, a Ray Data actor, a Serve replica), never on
    the driver for others: a `models:/` reference is downloaded from the registry and a storage URI
    copied, once per node, into the node's cache (`storage.local_copy`); a local path must exist.
    """
    from semcse.core import storage

    if ref.startswith("models:/"):
        import mlflow.artifacts

        version = registry_version(ref, cfg)
        target = storage.cache_dir() / "registry" / _safe(tracking_uri(cfg or TrackingConfig())) / version.name
        target = target / str(version.version)
        if not target.is_dir():
            work = target.parent / f".download-{os.getpid()}-{time.monotonic_ns()}"
            work.mkdir(parents=True)
            try:
                fetched = Path(mlflow.artifacts.download_artifacts(artifact_uri=version.source, dst_path=str(work)))
                try:
                    os.replace(fetched, target)
                except OSError:
                    if not target.is_dir():  # not a concurrent download that got there first
                        raise
            finally:
                shutil.rmtree(work, ignore_errors=True)
        return str(target)
    if storage.is_uri(ref):
        return str(storage.local_copy(ref))
    path = Path(ref).expanduser()
    if path.exists():
        return str(path.resolve())
    if ref.startswith((".", "/", "~")):
        raise FileNotFoundError(f"model path not found: {ref}")
    return ref


def _safe(text: str) -> str:
    """A short directory name for a tracking URI (two registries may hold a model of the same name)."""
    import hashlib

    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()
