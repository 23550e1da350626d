"""Quiet by default, everything with --verbose: the settings that reach the driver and every Ray worker."""

from __future__ import annotations

import logging
import os
import warnings

import pytest
from semcse import logs


@pytest.fixture
def restore_logging(monkeypatch: pytest.MonkeyPatch):
    levels = {name: logging.getLogger(name).level for name in logs.THIRD_PARTY_LEVELS}
    monkeypatch.delenv(logs.LEVEL_ENV, raising=False)
    with warnings.catch_warnings():
        yield monkeypatch
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    os.environ.pop(logs.LEVEL_ENV, None)


def test_quiet_mode_turns_down_third_parties_but_not_errors_or_our_own_lines(restore_logging) -> None:
    logs.configure()
    assert logging.getLogger("transformers").getEffectiveLevel() == logging.ERROR
    assert logging.getLogger("ray.train").getEffectiveLevel() == logging.WARNING
    assert logging.getLogger("semcse.training").isEnabledFor(logging.INFO)
    assert logging.getLogger("ray.train").isEnabledFor(logging.ERROR)
    with warnings.catch_warnings(record=True) as caught:
        warnings.warn("`torch.distributed.all_gather_into_tensor` is deprecated", FutureWarning, stacklevel=1)
        warnings.warn("something else is deprecated", FutureWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["something else is deprecated"]
    env = logs.worker_env()
    assert env["RAY_TRAIN_ENABLE_PRINT_PATCH"] == "0" and env["HF_HUB_DISABLE_PROGRESS_BARS"] == "1"
    assert logs.ray_level() == "WARNING"


def test_verbose_reaches_workers_and_keeps_third_party_output(restore_logging) -> None:
    logs.set_verbose(True)
    assert logs.verbose() and logs.ray_level() == "DEBUG"
    env = logs.worker_env()
    assert env[logs.LEVEL_ENV] == "DEBUG" and "HF_HUB_DISABLE_PROGRESS_BARS" not in env
    assert env["RAY_TRAIN_ENABLE_PRINT_PATCH"] == "0"  # our lines once, verbose or not
