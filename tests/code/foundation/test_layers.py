"""The layout a newcomer can change safely: no module of the library imports from a layer above its own.

Layers, lowest first (docs/ARCHITECTURE.md): foundation, models, stages, orchestration, entry point.
"""

from __future__ import annotations

import ast
from pathlib import Path

import semcse

PACKAGE = Path(semcse.__file__).parent
# each layer's folder, lowest first; `models` and `testing` (tiny models for tests) are the layer above the core
LAYERS = {
    **dict.fromkeys(("__init__", "core"), 0),
    **dict.fromkeys(("models", "testing"), 1),
    "stages": 2,
    "orchestration": 3,
    **dict.fromkeys(("cli", "commands", "__main__", "apps"), 4),
}


def _layer(module: str) -> int:
    top = module.removeprefix("semcse").lstrip(".").split(".")[0] or "__init__"
    assert top in LAYERS, f"{module} belongs to no layer: add it to docs/ARCHITECTURE.md and to LAYERS here"
    return LAYERS[top]


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "semcse":
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "semcse"]
    return found


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(("semcse", *path.relative_to(PACKAGE).with_suffix("").parts))
        for line, target in _imports(path):
            if _layer(target) > _layer(module):
                upward.append(f"{path.relative_to(PACKAGE)}:{line} imports {target}")
    assert not upward, upward


def test_evaluation_does_not_import_training() -> None:
    """Training may rank with evaluation's metrics; the other way round would make the two one tangle."""
    modules = sorted((PACKAGE / "stages" / "evaluation").rglob("*.py"))
    assert modules, "no evaluation package where the layout puts it"
    offenders = [
        f"{path.name}:{line} imports {target}"
        for path in modules
        for line, target in _imports(path)
        if target.startswith("semcse.stages.training")
    ]
    assert not offenders, offenders


def test_the_library_never_imports_its_testing_helpers() -> None:
    """`semcse.testing` builds throwaway models for tests and benchmarks; a stage depending on it would ship them."""
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, target in _imports(path)
        if target == "semcse.testing" or target.startswith("semcse.testing.")
    ]
    assert not offenders, offenders
