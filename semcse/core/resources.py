"""Files that ship inside the package: run configs, aspect packs, Tune studies and the Serve config.

They are package data (`importlib.resources`), not files beside a checkout, so an installed wheel
finds them from any working directory, and a job submitted with `--working-dir .` finds the
checkout's own copies. Each kind is looked up by name (`demo`, `invasion_biology`, `cropping`) or
taken as a path to a YAML file of the user's.
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path
from typing import Literal

Kind = Literal["configs", "packs", "studies"]
WHAT: dict[Kind, str] = {"configs": "run config", "packs": "aspect pack", "studies": "study"}
SERVE_CONFIG = "apps/config.yaml"


class ResourceNotFound(ValueError):
    """A name that is neither a YAML file nor one of the shipped ones (the message lists those)."""


def _package_dir(relative: str) -> Path:
    return Path(str(files("semcse").joinpath(relative)))


def shipped(kind: Kind) -> dict[str, Path]:
    """{name: path} of the YAML files of one kind shipped with the package."""
    directory = _package_dir(kind)
    return {p.stem: p for p in sorted(directory.glob("*.yaml"))} if directory.is_dir() else {}


def find(kind: Kind, ref: str | Path) -> Path:
    """A YAML path as given (when it exists), else the shipped file of that name; else `ResourceNotFound`."""
    path = Path(ref).expanduser()
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return path.resolve()
    known = shipped(kind)
    if str(ref) in known:
        return known[str(ref)]
    if path.suffix in (".yaml", ".yml") or "/" in str(ref):
        raise ResourceNotFound(f"{WHAT[kind]} file not found: {ref}")
    raise ResourceNotFound(
        f"unknown {WHAT[kind]} {str(ref)!r}: not a YAML file, and not one of the shipped ones {sorted(known)}"
    )


DATA_ENV = "SEMCSE_DATA"
DEFAULT_DATA = "../shared/data"


def data_dir() -> Path:
    """Where real corpora live for the real-data tests, benchmarks and walkthroughs: `SEMCSE_DATA`, else
    `DEFAULT_DATA` from the repository root (docs/DATA.md lists the files, their sources and columns)."""
    return Path(os.environ.get(DATA_ENV) or DEFAULT_DATA).expanduser()


def serve_config() -> Path:
    """The Serve config the serve stage deploys unless given another (`semcse/apps/config.yaml`)."""
    return _package_dir(SERVE_CONFIG)
