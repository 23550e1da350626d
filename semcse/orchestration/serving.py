"""The serve stage (`run_serve`): deploy semcse/apps/config.yaml on Ray, the run config's `serve` section merged in.

`semcse serve` and the pipeline's serve step both deploy through `run_serve`. The YAML is the same
file `serve deploy` takes, so a local run and a cluster deployment cannot drift apart; we only merge
the explicitly set ServeConfig fields into every app's args, make local model paths absolute
(replicas do not share the caller's working directory), and deploy it the way `serve run CONFIG` does.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from semcse.core import logs, storage
from semcse.core.config import ConfigError, RunConfig, ServeConfig, TrackingConfig, format_validation_error

if TYPE_CHECKING:
    from semcse.core.locations import ClusterShape

log = logging.getLogger(__name__)
PATH_ARGS = ("encoder", "index", "map", "texts")
TERMINAL = {"RUNNING", "DEPLOY_FAILED", "UNHEALTHY"}

# What each app cannot start without, and what it can do without (then that feature is off).
REQUIRED_PARTS = {"embed": ("encoder",), "search": ("index",), "decode": ("decoders",), "map": ("map", "encoder")}
OPTIONAL_PARTS = {"map": ("decoders",), "search": ("texts",)}
CREATED_BY = {
    "encoder": "`semcse train` (or `make demo`), or pass --encoder",
    "index": "`semcse index build`, or pass --index",
    "map": "`semcse map layout`, or pass --map",
    "decoders": "`semcse train-decoder`, or pass --decoder",
    "texts": "`semcse generate` (or a pipeline run with generation.model), or pass --texts",
}


LOOPBACK = ("127.", "localhost", "::1")


KEY_DIGEST_ENV = "SEMCSE_API_KEY_SHA256"  # what `semcse serve` sends every replica: the key's digest, not the key


def key_digest(key: str) -> str:
    """SHA-256 of an API key, hex: replicas compare digests, so the key itself never travels in a config."""
    return hashlib.sha256(key.encode()).hexdigest()


def _absolute(ref: str) -> str:
    """A local path made absolute (replicas do not share the caller's working directory); URIs and refs as given."""
    if ref.startswith("models:/") or storage.is_uri(ref):
        return ref
    path = Path(ref).expanduser()
    return str(path.resolve()) if path.exists() else ref


def deploy_config(path: str | Path | None, settings: ServeConfig, apps: list[str] | None = None) -> dict[str, Any]:
    """The Serve config to deploy: `path` (default: the shipped one) with the fields set on `settings` merged
    into each app's args."""
    from ray.serve.schema import ServeDeploySchema

    from semcse.core.resources import serve_config

    path = Path(path) if path is not None else serve_config()
    if not path.is_file():
        raise ConfigError(f"Serve config not found: {path}")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    names = [app.get("name") for app in data.get("applications", [])]
    unknown = sorted(set(apps or []) - set(names))
    if unknown:
        raise ConfigError(f"{path}: no application named {unknown}; it defines {names}")
    overrides = settings.model_dump(include=settings.model_fields_set - {"host", "port", "no_auth"})
    data["applications"] = [app for app in data.get("applications", []) if not apps or app["name"] in apps]
    for app in data["applications"]:
        args = {**app.get("args", {}), **overrides}
        try:
            checked = ServeConfig.model_validate(args)
        except ValidationError as exc:
            raise ConfigError(f"{path}: application {app['name']!r}:\n{format_validation_error(exc)}") from exc
        for field in PATH_ARGS:
            if getattr(checked, field):
                args[field] = _absolute(getattr(checked, field))
        args["decoders"] = {aspect: _absolute(ref) for aspect, ref in checked.decoders.items()}
        app["args"] = args
        app.setdefault("logging_config", {"log_level": logs.ray_level()})
    data.setdefault("logging_config", {"log_level": logs.ray_level()})
    http = data.setdefault("http_options", {})
    http.update({key: getattr(settings, key) for key in ("host", "port") if key in settings.model_fields_set})
    try:
        return ServeDeploySchema.model_validate(data).model_dump(exclude_unset=True)
    except ValidationError as exc:
        raise ConfigError(f"{path}: not a valid Serve config:\n{format_validation_error(exc)}") from exc


def add_env(config: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    """`env` in every application's runtime environment: the MLflow tracking URI and the storage endpoint
    that replicas on any node need to load their models, indexes and maps (the app's own values win)."""
    for app in config["applications"]:
        runtime_env = app.setdefault("runtime_env", {})
        runtime_env["env_vars"] = {**env, **runtime_env.get("env_vars", {})}
    return config


def key_env(settings: ServeConfig) -> dict[str, str]:
    """The API key's digest for every replica's environment when the key is set here (`api_key_env`), else {}."""
    key = os.environ.get(settings.api_key_env)
    return {KEY_DIGEST_ENV: key_digest(key)} if key else {}


def check_auth(config: dict[str, Any], settings: ServeConfig, keyed: bool) -> None:
    """Refuse to listen beyond this machine without an API key (`keyed`), unless asked to (`--no-auth`)."""
    host = str(config.get("http_options", {}).get("host", "127.0.0.1"))
    if host.startswith(LOOPBACK) or keyed or settings.no_auth:
        return
    raise ConfigError(
        f"serving on {host} without an API key: anyone who reaches this machine could use the service. "
        f"Set {settings.api_key_env} (clients then send 'Authorization: Bearer <key>'), or pass --no-auth "
        "(serve.no_auth=true) to serve openly on purpose"
    )


def missing_ref(ref: str, tracking: TrackingConfig | None) -> str | None:
    """Why a model/index/map reference cannot be loaded (None when it can): a missing path or registry entry."""
    from semcse.core.tracking import alias_version

    if ref.startswith("models:/"):
        name, _, alias = ref[len("models:/") :].partition("@")
        if alias and alias_version(tracking or TrackingConfig(), name, alias) is None:
            return f"{ref} is not in the model registry"
        return None
    if storage.is_uri(ref):
        return None if storage.exists(ref) else f"{ref} does not exist"
    return None if Path(ref).expanduser().exists() else f"{ref} does not exist"


def check_parts(config: dict[str, Any], tracking: TrackingConfig | None = None) -> tuple[dict[str, Any], list[str]]:
    """Before anything is deployed: fail on a missing required part, switch off a missing optional one.

    A required part (the embed app's encoder, the map app's map) that is missing raises one
    ConfigError naming the command that creates it, instead of replicas that crash-loop. A missing
    optional part (the map app's decoder, the search app's generated texts) is dropped from the app's
    args, so the app starts with that feature disabled; the returned notes say which and why.
    """
    problems, notes = [], []
    for app in config["applications"]:
        name, args = app["name"], app.get("args", {})
        for part in REQUIRED_PARTS.get(name, ()):
            reasons = _missing(args.get(part), tracking) if args.get(part) else [f"no {part} is set"]
            problems += [f"{name}: {why}; create it with {CREATED_BY[part]}" for why in reasons]
        for part in OPTIONAL_PARTS.get(name, ()):
            reasons = _missing(args.get(part), tracking)
            if reasons:
                args[part] = {} if isinstance(args.get(part), dict) else None
                notes.append(f"{name}: {part} disabled ({'; '.join(reasons)}); create one with {CREATED_BY[part]}")
    if problems:
        raise ConfigError("cannot serve yet:\n  " + "\n  ".join(problems))
    return config, notes


def check_reachable_by_replicas(config: dict[str, Any], shape: ClusterShape) -> None:
    """On a cluster whose replicas may run on other nodes, a part on this machine's disk is refused."""
    if not shape.spans_nodes:
        return
    local = [
        f"{app['name']}.{part}={ref}"
        for app in config["applications"]
        for part, value in app.get("args", {}).items()
        if part in (*PATH_ARGS, "decoders")
        for ref in (value.values() if isinstance(value, dict) else [value])
        if ref and not storage.is_uri(str(ref)) and not str(ref).startswith("models:/") and Path(str(ref)).exists()
    ]
    if local:
        raise ConfigError(
            f"{', '.join(local)}: on this machine's disk, and replicas may run on other nodes of the cluster "
            f"({shape.nodes} nodes): give a storage URI (s3://…) or a registry reference (models:/name@alias)"
        )


def fit_to_cluster(config: dict[str, Any], cpus: float) -> tuple[dict[str, Any], list[str]]:
    """Shrink every replica's CPU reservation when the apps' minimum replicas need more CPUs than `cpus`.

    For the embedded local cluster (a laptop): `semcse/apps/config.yaml` reserves CPUs for a cluster,
    and on a 2-core machine its embed replica alone takes both cores, so the other apps would wait
    forever to be scheduled. Reservations are scaled by one factor, so their proportions stay; the
    returned notes say what changed. A real cluster keeps the file's numbers (its autoscaler adds nodes).
    """
    needs = []
    for app in config["applications"]:
        for deployment in app.get("deployments", []):
            options = deployment.setdefault("ray_actor_options", {})
            replicas = (deployment.get("autoscaling_config") or {}).get(
                "min_replicas", deployment.get("num_replicas", 1)
            )
            needs.append((app["name"], options, float(options.get("num_cpus", 1)), int(replicas or 1)))
    total = sum(cpu * replicas for _, _, cpu, replicas in needs)
    if total <= cpus or total == 0:
        return config, []
    factor = cpus / total
    notes = []
    for name, options, cpu, _ in needs:
        options["num_cpus"] = round(cpu * factor, 3)
        notes.append(f"{name} {cpu:g}→{options['num_cpus']:g}")
    return config, [
        f"this cluster has {cpus:g} CPUs; the apps' replicas reserve {total:g}, so each gets a share: "
        + ", ".join(notes)
    ]


def prepare_deployment(
    apps_file: str | Path | None, cfg: RunConfig, apps: list[str] | None
) -> tuple[dict[str, Any], list[str], RunConfig]:
    """What `semcse serve` and the pipeline's serve step deploy, the notes to print first, and the resolved run.

    The key and the parts are checked before Ray starts (a missing model fails in seconds); then Ray
    is joined or started, parts on this machine's disk are refused when replicas may run elsewhere,
    and on the embedded local cluster the reservations are fitted to the machine.
    """
    from semcse.core.runtime import cluster_cpus, cluster_shape, connect, target_address, worker_env

    key = key_env(cfg.serve)
    plan = deploy_config(apps_file, cfg.serve, apps)
    check_auth(plan, cfg.serve, keyed=bool(key))
    plan, notes = check_parts(plan, cfg.tracking)
    cfg = connect(cfg)
    check_reachable_by_replicas(plan, cluster_shape(target_address(cfg.ray)))
    add_env(plan, worker_env(cfg.tracking.tracking_uri if cfg.tracking.enabled else None) | key)
    if target_address(cfg.ray) is None:
        plan, fitted = fit_to_cluster(plan, cluster_cpus())
        notes += fitted
    return plan, notes, cfg


@dataclass
class ServeReport:
    """What the serve stage deployed: each application's URL, the ones that failed (with Serve's message), notes."""

    urls: dict[str, str]
    failed: dict[str, str]
    notes: list[str] = dataclass_field(default_factory=list)

    @property
    def serving(self) -> bool:
        """At least one application is running."""
        return len(self.failed) < len(self.urls)

    def status_lines(self) -> list[str]:
        """`name: URL ready`, or `name: URL failed: why`, per application."""
        return [
            f"{name}: {url} " + (f"failed: {self.failed[name]}" if name in self.failed else "ready")
            for name, url in self.urls.items()
        ]


def run_serve(
    cfg: RunConfig, apps_file: str | Path | None, apps: list[str] | None = None, stop: StopSignals | None = None
) -> ServeReport:
    """The serve stage: deploy `apps` (all when None) of the Serve config `apps_file`, with `cfg.serve` merged in.

    Parts are checked first, Ray is joined or started (then `stop`, when given, takes over SIGTERM and
    SIGINT), and the call returns once every application is running or has failed; serving goes on in
    the background until `drain` or `serve.shutdown()`.
    """
    plan, notes, cfg = prepare_deployment(apps_file, cfg, apps)
    if stop is not None:
        stop.install()
    for note in notes:
        log.info(note, extra=logs.stage("serve"))
    failed = deploy(plan)
    http = plan.get("http_options", {})
    base = f"http://{http.get('host', '127.0.0.1')}:{http.get('port', 8000)}"
    urls = {app["name"]: f"{base}{app.get('route_prefix', '/')}" for app in plan["applications"]}
    return ServeReport(urls, failed, notes)


class StopSignals:
    """SIGTERM and SIGINT noted instead of obeyed, so a process supervisor's stop becomes a drain (`drain`).

    `install` must come after Ray is started or joined: `ray.init` puts its native handler in place,
    which on SIGTERM prints a stack dump and kills the process mid-request. A signal that arrives
    while the apps deploy is kept, and `wait` returns at once.
    """

    def __init__(self) -> None:
        import threading

        self.received: list[str] = []
        self.event = threading.Event()
        self.previous: dict[int, Any] = {}

    def install(self) -> None:
        import signal

        def handler(signum: int, _frame: Any) -> None:
            self.received.append(signal.Signals(signum).name)
            self.event.set()

        self.previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}

    def wait(self) -> str:
        """Block until a stop signal arrived (polling, so the main thread keeps taking signals); its name."""
        while not self.event.wait(timeout=1.0):
            pass
        return self.received[0]

    def restore(self) -> None:
        import signal

        for sig, old in self.previous.items():
            signal.signal(sig, old)


def drain(apps: list[str]) -> None:
    """Stop serving `apps` without cutting off a request, then leave Ray (a local cluster this process started
    goes down with it; a cluster it joined keeps running, with its other applications).

    Each application is deleted first, so each replica answers what it holds (Serve's graceful replica
    shutdown) while the proxies are still up to deliver the answers; shutting Serve down at once would
    take the proxies with the requests in flight. A request that reaches a route after its application
    was deleted gets Serve's 404.
    """
    import ray
    from ray import serve

    running = serve.status().applications
    for name in apps:
        if name in running:
            serve.delete(name, _blocking=True)
    ray.shutdown()


def _missing(value: Any, tracking: TrackingConfig | None) -> list[str]:
    """Why each reference in an app argument (one ref, or {aspect: ref}) cannot be loaded."""
    if not value:
        return []
    refs = list(value.values()) if isinstance(value, dict) else [str(value)]
    return [why for why in (missing_ref(ref, tracking) for ref in refs) if why]


def deploy(config: dict[str, Any], timeout_s: float = 600.0) -> dict[str, str]:
    """Start Serve on the connected Ray cluster, deploy, and wait: app name → status message when not running."""
    from ray import serve
    from ray.serve._private.api import serve_start
    from ray.serve.schema import ServeDeploySchema

    schema = ServeDeploySchema.model_validate(config)
    client = serve_start(
        http_options=schema.http_options.model_dump(),
        proxy_location=schema.proxy_location,
        global_logging_config=schema.logging_config,
    )
    client.deploy_apps(schema, _blocking=False)
    deadline = time.monotonic() + timeout_s
    names = [app.name for app in schema.applications]
    while True:
        status = serve.status().applications
        if all(name in status and status[name].status.value in TERMINAL for name in names):
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"Serve applications not ready after {timeout_s:.0f} s: {names}")
        time.sleep(1.0)
    return {name: status[name].message for name in names if status[name].status.value != "RUNNING"}
