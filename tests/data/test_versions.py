"""Versioned artifact roots: a reader sees the old version or the new one, whole; reruns never apply a tag twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from semcse.core import versions


def _writer(text: str):
    def write(directory: Path) -> None:
        assert directory.is_dir() and not any(directory.iterdir()), "a writer gets an empty directory"
        (directory / "payload.txt").write_text(text)

    return write


def test_publish_swaps_the_pointer_and_keeps_the_previous_version(tmp_path: Path) -> None:
    root = tmp_path / "index"
    assert versions.current(root) is None and versions.resolve(root) == str(root)
    first, fresh = versions.publish(root, "build", _writer("one"))
    assert fresh and first == "0001-build" and (Path(versions.resolve(root)) / "payload.txt").read_text() == "one"
    second, _ = versions.publish(root, "add-abc", _writer("two"))
    assert second == "0002-add-abc" and versions.current(root) == second
    assert json.loads((root / versions.POINTER).read_text()) == {"version": second, "previous": first}
    third, _ = versions.publish(root, "add-def", _writer("three"))
    # the live version and the one it replaced stay; older ones and no staging leftovers remain
    assert sorted(p.name for p in root.iterdir()) == sorted([second, third, versions.POINTER])
    assert (Path(versions.resolve(root)) / "payload.txt").read_text() == "three"


def test_once_skips_a_tag_that_is_already_current_but_a_build_republishes(tmp_path: Path) -> None:
    root = tmp_path / "map"
    versions.publish(root, "build", _writer("one"))
    name, fresh = versions.publish(root, "add-abc", _writer("two"), once=True)
    again, fresh_again = versions.publish(root, "add-abc", _writer("never written"), once=True)
    assert fresh and not fresh_again and again == name
    assert versions.published(root, "add-abc") == name and versions.published(root, "build") is None
    assert (Path(versions.resolve(root)) / "payload.txt").read_text() == "two"
    rebuilt, fresh = versions.publish(root, "build", _writer("rebuilt"))
    assert fresh and rebuilt == "0003-build"


def test_an_interrupted_publish_leaves_the_live_version_and_is_cleaned_up(tmp_path: Path) -> None:
    root = tmp_path / "index"
    versions.publish(root, "build", _writer("one"))

    def dies(directory: Path) -> None:
        (directory / "half.txt").write_text("half")
        raise RuntimeError("killed while writing")

    with pytest.raises(RuntimeError):
        versions.publish(root, "add-abc", dies, once=True)
    assert (Path(versions.resolve(root)) / "payload.txt").read_text() == "one", (
        "readers still see the old version whole"
    )
    name, fresh = versions.publish(root, "add-abc", _writer("two"), once=True)
    assert fresh and (Path(versions.resolve(root)) / "payload.txt").read_text() == "two"
    assert not [p for p in root.iterdir() if p.name.startswith(".")], "no staging leftovers"
