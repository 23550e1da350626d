"""Connect to Ray: a given address, RAY_ADDRESS, or a local cluster started on the spot."""

from __future__ import annotations

import logging
import os
import socket
from typing import Any

from semcse.config import RayConfig

log = logging.getLogger(__name__)


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
            f"could not reach the Ray cluster at {address!r} ({exc.strerror or exc}). Start one with "
            "`ray start --head`, or unset RAY_ADDRESS / drop --address to run on a local cluster."
        ) from exc


def target_address(cfg: RayConfig | None = None, address: str | None = None) -> str | None:
    """The cluster to join: an explicit address, else the config's, else RAY_ADDRESS; None = start a local one."""
    return address or (cfg or RayConfig()).address or os.environ.get("RAY_ADDRESS") or None


def cluster_cpus() -> float:
    """CPUs of the connected cluster (as Ray counts them)."""
    import ray

    return float(ray.cluster_resources().get("CPU", 1))


def worker_setup() -> None:
    """Ray's `worker_process_setup_hook` for every worker of our jobs: output settings, and the cluster pinned.

    Ray's own address lookups inside a worker (Ray Train's placement-group cleaner asks the State API
    whether its controller lives) fall back to "the local Ray instance", and fail with "Found multiple
    active Ray instances" when a second local cluster runs on the machine (a test session beside a
    demo); with RAY_ADDRESS set to this worker's own cluster they find the right one.
    """
    import ray

    from semcse import logs

    logs.configure()
    os.environ.setdefault("RAY_ADDRESS", ray.get_runtime_context().gcs_address)


def init_ray(cfg: RayConfig | None = None, address: str | None = None) -> str:
    """Start or join Ray once per process; returns the address in use.

    An explicit `address` wins over the config, which wins over RAY_ADDRESS. With none of them
    a local cluster starts (the embedded default), sized by `num_cpus` when set.
    """
    import ray

    from semcse import logs

    cfg = cfg or RayConfig()
    target = target_address(cfg, address)
    logs.configure()  # also when Ray was started elsewhere: the stages' lines must show in this driver
    if ray.is_initialized():
        return str(ray.get_runtime_context().gcs_address)
    kwargs: dict[str, Any] = {
        "logging_level": logs.ray_level(),
        "log_to_driver": True,
        "runtime_env": {"env_vars": logs.worker_env(), "worker_process_setup_hook": "semcse.runtime.worker_setup"},
    }
    if target:
        check_reachable(target)
        try:
            ray.init(address=target, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RayUnavailable(
                f"could not reach the Ray cluster at {target!r}: {exc}. Start one with `ray start --head`, "
                "or unset RAY_ADDRESS / drop --address to run on a local cluster."
            ) from exc
    else:
        # The dashboard serves the State API, through which Ray Train's placement-group cleaner
        # watches its controller (without it, the cleaner warns every few seconds and never cleans).
        ray.init(num_cpus=cfg.num_cpus, num_gpus=cfg.num_gpus, include_dashboard=True, **kwargs)
    logs.quiet_ray_data()
    address_in_use = str(ray.get_runtime_context().gcs_address)
    log.info("connected to Ray at %s", address_in_use)
    return address_in_use
