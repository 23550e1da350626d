"""Connect to Ray: a given address, RAY_ADDRESS, or a local cluster started on the spot.

`connect(cfg)` is how a stage starts: it checks the run's locations (`semcse.core.locations`), joins or
starts Ray, checks what the cluster's shape rules out (a run directory on the driver's disk when
work runs on other nodes), and returns the run config with every location resolved. Every worker,
actor and replica of the job gets the same output settings, storage endpoint and MLflow tracking
URI through the job's runtime environment.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from semcse.core.config import RayConfig

if TYPE_CHECKING:
    from semcse.core.config import RunConfig
    from semcse.core.locations import ClusterShape

log = logging.getLogger(__name__)
T = TypeVar("T")

# Ray Train's controller sees its workers start, report and finish only when it polls them, so a short run idles
# between polls (docs/BENCHMARKS.md, train_overhead.py). Set where `fit` is called (`init_ray`), which hands it
# to the controller and workers; a value the user set wins.
TRAIN_ENV = {"RAY_TRAIN_HEALTH_CHECK_INTERVAL_S": "0.5"}


# what a user whose cluster cannot be reached can do: the address comes from RAY_ADDRESS or `--set ray.address=…`
START_OR_GO_LOCAL = (
    "Start one with `ray start --head`, or unset RAY_ADDRESS and ray.address to run on a local cluster."
)


class RayUnavailable(RuntimeError):
    """The configured Ray cluster could not be reached."""


def _host_port(address: str) -> tuple[str, int] | None:
    """`host:port` or `ray://host:port` → (host, port); None for `auto` and other forms."""
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host or "127.0.0.1", int(port)


def check_reachable(address: str, timeout_s: float = 3.0) -> None:
    """Fail in seconds, not minutes: Ray itself retries an unreachable GCS for a long time."""
    endpoint = _host_port(address)
    if endpoint is None:
        return
    try:
        with socket.create_connection(endpoint, timeout=timeout_s):
            return
    except OSError as exc:
        raise RayUnavailable(
            f"could not reach the Ray cluster at {address!r} ({exc.strerror or exc}). {START_OR_GO_LOCAL}"
        ) from exc


def target_address(cfg: RayConfig | None = None, address: str | None = None) -> str | None:
    """The cluster to join: an explicit address, else the config's, else RAY_ADDRESS; None = start a local one."""
    return address or (cfg or RayConfig()).address or os.environ.get("RAY_ADDRESS") or None


def cluster_cpus() -> float:
    """CPUs of the connected cluster (as Ray counts them)."""
    import ray

    return float(ray.cluster_resources().get("CPU", 1))


@contextmanager
def requested(bundles: list[dict[str, float]], cfg: RayConfig | None = None) -> Iterator[None]:
    """Ask the autoscaler for `bundles` while the block runs (work that queues for resources not up yet).

    Ray schedules what fits and queues the rest; the request makes the autoscaler add every node the
    block will want at once, instead of one scale-up at a time. Nothing happens on the embedded local
    cluster (no autoscaler), and the request is withdrawn after the block.
    """
    if target_address(cfg) is None or not bundles:
        yield
        return
    from ray.autoscaler.sdk import request_resources

    log.debug("asking the autoscaler for %d bundle(s): %s", len(bundles), bundles[0])
    request_resources(bundles=bundles)
    try:
        yield
    finally:
        request_resources(bundles=[])


def run_remote(func: Callable[..., T], *args: Any, num_cpus: float = 1.0) -> T:
    """`func(*args)` as a Ray task on whichever node has room, for CPU-heavy work that must not run in the
    driver (on a cluster the driver sits on a head node without CPUs for work)."""
    import ray

    return ray.get(ray.remote(num_cpus=num_cpus)(func).remote(*args))


def cluster_shape(address: str | None) -> ClusterShape:
    """The connected cluster's nodes, and the CPUs of the node this driver runs on."""
    import ray

    from semcse.core.locations import ClusterShape

    alive = [node for node in ray.nodes() if node.get("Alive")]
    here = ray.get_runtime_context().get_node_id()
    cpus = next((n.get("Resources", {}).get("CPU", 0.0) for n in alive if n.get("NodeID") == here), 0.0)
    return ClusterShape(address=address, nodes=len(alive), driver_node_cpus=float(cpus))


def connect(cfg: RunConfig) -> RunConfig:
    """Check the run's locations, start or join Ray, check them against the cluster; the resolved config.

    Raises `ConfigError` with the fix before any work is scheduled.
    """
    from semcse.core import locations

    locations.check_before_ray(cfg)
    resolved = locations.resolved(cfg)
    init_ray(cfg.ray, tracking_uri=resolved.tracking.tracking_uri if resolved.tracking.enabled else None)
    locations.check_on_cluster(resolved, cluster_shape(target_address(cfg.ray)))
    return resolved


def worker_setup() -> None:
    """Ray's `worker_process_setup_hook` for every worker of our jobs: output settings, and the cluster pinned.

    Ray's own address lookups inside a worker (Ray Train's placement-group cleaner asks the State API
    whether its controller lives) fall back to "the local Ray instance", and fail with "Found multiple
    active Ray instances" when a second local cluster runs on the machine (a test session beside a
    demo); with RAY_ADDRESS set to this worker's own cluster they find the right one.
    """
    import ray

    from semcse.core import logs

    logs.configure()
    os.environ.setdefault("RAY_ADDRESS", ray.get_runtime_context().gcs_address)


def job_env_vars() -> dict[str, str]:
    """The env vars a submitted job's runtime env already sets (Ray refuses a driver that sets them again)."""
    raw = os.environ.get("RAY_JOB_CONFIG_JSON_ENV_VAR")
    if not raw:
        return {}
    try:
        env = (json.loads(raw).get("runtime_env") or {}).get("env_vars") or {}
    except (ValueError, AttributeError):
        return {}
    return {str(k): str(v) for k, v in env.items()}


def worker_env(tracking_uri: str | None = None) -> dict[str, str]:
    """What every worker, actor and replica of the job must see like the driver: output settings, the
    storage endpoint and region, the MLflow tracking URI. Never credentials: each node has its own
    (an instance profile, its environment)."""
    from semcse.core import logs, storage

    env = logs.worker_env() | storage.worker_env()
    if tracking_uri:
        env["MLFLOW_TRACKING_URI"] = tracking_uri
    given = job_env_vars()
    return {key: value for key, value in env.items() if key not in given}


def init_ray(cfg: RayConfig | None = None, address: str | None = None, tracking_uri: str | None = None) -> str:
    """Start or join Ray once per process; returns the address in use.

    An explicit `address` wins over the config, which wins over RAY_ADDRESS. With none of them
    a local cluster starts (the embedded default), sized by `num_cpus` when set.
    """
    from semcse.core import logs, storage

    # before Ray's first import in this driver (a script or benchmark that is not the CLI): Ray reads its log
    # filter then; also when Ray was started elsewhere: the stages' lines must show in this driver
    logs.configure()
    import ray

    cfg = cfg or RayConfig()
    target = target_address(cfg, address)
    # this process's own MLflow artifact client, too, and the poll interval of the Ray Train runs it starts
    for key, value in (storage.worker_env() | TRAIN_ENV).items():
        os.environ.setdefault(key, value)
    if ray.is_initialized():
        return str(ray.get_runtime_context().gcs_address)
    kwargs: dict[str, Any] = {
        "logging_level": logs.ray_level(),
        "log_to_driver": True,
        "runtime_env": {
            "env_vars": worker_env(tracking_uri),
            "worker_process_setup_hook": "semcse.core.runtime.worker_setup",
        },
    }
    if target:
        check_reachable(target)
        try:
            ray.init(address=target, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RayUnavailable(f"could not reach the Ray cluster at {target!r}: {exc}. {START_OR_GO_LOCAL}") from exc
    else:
        # `address="local"`: a cluster of its own, never whichever cluster was started last on this
        # machine (Ray's default), which the locations checks would then judge by the wrong shape.
        # The dashboard serves the State API, through which Ray Train's placement-group cleaner
        # watches its controller (without it, the cleaner warns every few seconds and never cleans).
        ray.init(address="local", num_cpus=cfg.num_cpus, num_gpus=cfg.num_gpus, include_dashboard=True, **kwargs)
    logs.quiet_ray_data()
    address_in_use = str(ray.get_runtime_context().gcs_address)
    log.info("connected to Ray at %s", address_in_use)
    return address_in_use
