"""Study files are checked completely before any trial: unknown parameters, empty spaces, bad values."""

from __future__ import annotations

import pytest

from semcse.orchestration.tuning.runner import max_concurrent_trials
from semcse.orchestration.tuning.study import StudyError, load_study


def test_unknown_parameter_is_named(write_study) -> None:
    path = write_study(search={"training.learning_rat": [1e-3], "training.temperature": [0.1]})
    with pytest.raises(StudyError, match=r"training\.learning_rat.*unknown parameter 'training.learning_rat'"):
        load_study(str(path))


def test_unknown_section_and_fixed_key_are_named(write_study) -> None:
    with pytest.raises(StudyError, match="unknown parameter 'trainig'"):
        load_study(str(write_study(search={"trainig.loss": ["triplet"]})))
    with pytest.raises(StudyError, match="'training' is a section"):
        load_study(str(write_study(search={"training": ["x"]})))


@pytest.mark.parametrize(
    "search", [{}, {"training.loss": []}, {"training.learning_rate": {"loguniform": [1e-3, 1e-3]}}]
)
def test_empty_search_space_fails(write_study, search) -> None:
    with pytest.raises(StudyError, match="empty search space"):
        load_study(str(write_study(search=search)))


def test_invalid_grid_value_is_named(write_study) -> None:
    with pytest.raises(StudyError, match=r"(?s)training\.pairs='crop'.*unknown pairs mode"):
        load_study(str(write_study(search={"training.pairs": ["crops", "crop"]})))


def test_unknown_study_name_lists_known_ones() -> None:
    with pytest.raises(StudyError, match="semcse-objective"):
        load_study("no-such-study")


def test_repository_studies_are_valid() -> None:
    for name in ("semcse-data-size", "semcse-objective", "cropping", "lr-search", "multi-two-stage", "llm-free"):
        study, _ = load_study(name)
        assert study.name == name and study.search


def test_a_grid_crosses_every_searched_key(write_study) -> None:
    """The study's search space, as Ray Tune expands it: a 2 × 2 grid is four trials, every pair once."""
    from ray.tune.search.variant_generator import generate_variants

    study, _ = load_study(str(write_study()))  # learning rate [1e-3, 1e-5] × temperature [0.05, 0.5]
    variants = [config for _, config in generate_variants(study.param_space())]
    pairs = [(config["training.learning_rate"], config["training.temperature"]) for config in variants]
    assert sorted(pairs) == [(1e-5, 0.05), (1e-5, 0.5), (1e-3, 0.05), (1e-3, 0.5)]
    assert study.trials == 4


def test_concurrency_follows_trial_resources() -> None:
    assert max_concurrent_trials({"CPU": 2.0}, {"CPU": 4.0}) == 2
    assert max_concurrent_trials({"CPU": 1.0}, {"CPU": 4.0}, cap=3) == 3
    assert max_concurrent_trials({"CPU": 1.0, "GPU": 1.0}, {"CPU": 16.0, "GPU": 2.0}) == 2
    with pytest.raises(StudyError, match="asks for"):
        max_concurrent_trials({"CPU": 8.0}, {"CPU": 4.0})
