"""`semcse serve`: deploy serve_apps/config.yaml on Ray, with the run config's `serve` section as overrides.

The YAML is the same file `serve deploy` takes, so a local run and a cluster deployment cannot drift
apart; we only merge the explicitly set ServeConfig fields into every app's args, make local model
paths absolute (replicas do not share the caller's working directory), and deploy it the way
`serve run CONFIG` does.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from semcse.config import ConfigError, ServeConfig, format_validation_error

PATH_ARGS = ("encoder", "index", "map")
TERMINAL = {"RUNNING", "DEPLOY_FAILED", "UNHEALTHY"}


def _absolute(ref: str) -> str:
    path = Path(ref).expanduser()
    return str(path.resolve()) if not ref.startswith("models:/") and path.exists() else ref


def deploy_config(path: str | Path, settings: ServeConfig, apps: list[str] | None = None) -> dict[str, Any]:
    """The Serve config to deploy: `path` with the fields set on `settings` merged into each app's args."""
    from ray.serve.schema import ServeDeploySchema

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"Serve config not found: {path}")
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    names = [app.get("name") for app in data.get("applications", [])]
    unknown = sorted(set(apps or []) - set(names))
    if unknown:
        raise ConfigError(f"{path}: no application named {unknown}; it defines {names}")
    overrides = settings.model_dump(include=settings.model_fields_set - {"host", "port"})
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
    http = data.setdefault("http_options", {})
    http.update({key: getattr(settings, key) for key in ("host", "port") if key in settings.model_fields_set})
    try:
        return ServeDeploySchema.model_validate(data).model_dump(exclude_unset=True)
    except ValidationError as exc:
        raise ConfigError(f"{path}: not a valid Serve config:\n{format_validation_error(exc)}") from exc


def deploy(config: dict[str, Any], timeout_s: float = 600.0) -> dict[str, str]:
    """Start Serve on the connected Ray cluster, deploy, and wait: app name → status message when not running."""
    from ray import serve
    from ray.serve._private.api import serve_start
    from ray.serve.schema import ServeDeploySchema

    sys.path.insert(0, str(Path.cwd()))
    if importlib.util.find_spec("serve_apps") is None:
        raise ConfigError("cannot import serve_apps: run `semcse serve` from the repository root")
    schema = ServeDeploySchema.model_validate(config)
    client = serve_start(http_options=schema.http_options.model_dump(), proxy_location=schema.proxy_location)
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
