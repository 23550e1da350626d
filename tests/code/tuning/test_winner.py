"""How a study chooses its winner: the best validation metric, or with `prefer` the most regularised trial that still
delivered a trained step (the parsimony rule `prefer` names)."""

from __future__ import annotations

import pytest

from semcse.orchestration.tuning.study import StudyError, load_study
from semcse.orchestration.tuning.table import TrialRow, build_table

LAMBDA = "training.base_similarity_weight"


def _table(trials: dict[str, tuple[float, int, float]]):
    """Trials as id → (λ, delivered step, val_score); val_score is lower-is-better, as the trainer reports it."""
    rows = [
        TrialRow(trial, {LAMBDA: weight}, {"val_score": score, "best_step": step}, "done")
        for trial, (weight, step, score) in trials.items()
    ]
    return build_table(rows, "val_score", "min")


LAMBDA_GRID = {
    "a": (0.0, 150, 1.74),  # the best validation score, furthest from the base
    "b": (10.0, 150, 1.83),
    "c": (30.0, 100, 1.85),
    "d": (100.0, 0, 1.89),  # kept its base model: nothing beat it on validation
}


def test_without_prefer_the_best_metric_wins() -> None:
    assert _table(LAMBDA_GRID).winner("val_score") == ("a", "the best val_score")


def test_prefer_takes_the_largest_weight_that_still_delivered_a_trained_step() -> None:
    trial, why = _table(LAMBDA_GRID).winner("val_score", {LAMBDA: "max"})
    assert trial == "c"
    assert why == f"the largest {LAMBDA} of the 3 of 4 trials that delivered a trained step"
    trial, _ = _table(LAMBDA_GRID).winner("val_score", {LAMBDA: "min"})
    assert trial == "a"


def test_prefer_breaks_ties_on_the_metric() -> None:
    grid = LAMBDA_GRID | {"e": (30.0, 150, 1.80)}
    assert _table(grid).winner("val_score", {LAMBDA: "max"})[0] == "e"


def test_when_no_trial_delivered_a_trained_step_the_winner_says_so() -> None:
    grid = {trial: (weight, 0, score) for trial, (weight, _, score) in LAMBDA_GRID.items()}
    trial, why = _table(grid).winner("val_score", {LAMBDA: "max"})
    assert trial == "a" and why.startswith("no trial delivered a trained step")


def _seeded(trials: dict[str, tuple[float, int, int, float]]):
    """Trials as id → (λ, seed, delivered step, val_score)."""
    rows = [
        TrialRow(trial, {LAMBDA: weight, SEED: seed}, {"val_score": score, "best_step": step}, "done")
        for trial, (weight, seed, step, score) in trials.items()
    ]
    return build_table(rows, "val_score", "min")


SEED = "training.seed"
# shaped like the λ study (docs/tune.md): λ 30 delivered a trained step at seeds 6 and 8 and kept the base model at 7
SEEDED = {
    "l10-s6": (10.0, 6, 150, 1.842),
    "l10-s7": (10.0, 7, 150, 1.850),
    "l10-s8": (10.0, 8, 150, 1.845),
    "l30-s6": (30.0, 6, 150, 1.867),
    "l30-s7": (30.0, 7, 0, 1.890),
    "l30-s8": (30.0, 8, 100, 1.862),
}


def test_with_replicates_a_recipe_delivers_only_when_every_run_did() -> None:
    table = _seeded(SEEDED)
    assert table.winner("val_score", {LAMBDA: "max"})[0] == "l30-s8"  # seeds as recipes: one lucky seed wins
    trial, why = table.winner("val_score", {LAMBDA: "max"}, [SEED])
    assert trial == "l10-s6"  # the chosen recipe's best run
    assert why == f"the largest {LAMBDA} of the 1 of 2 recipes whose every run over {SEED} delivered a trained step"


def test_with_replicates_the_metric_is_the_mean_over_runs() -> None:
    grid = SEEDED | {"l10-s7": (10.0, 7, 150, 1.99)}  # λ 10's mean (1.892) is now worse than λ 30's (1.873)
    trial, why = _seeded(grid).winner("val_score", replicates=[SEED])
    assert trial == "l30-s8" and why == f"the best mean val_score over {SEED}"
    failed = {trial: (weight, seed, 0, score) for trial, (weight, seed, _, score) in SEEDED.items()}
    trial, why = _seeded(failed).winner("val_score", {LAMBDA: "max"}, [SEED])
    assert trial == "l10-s6" and why.startswith(f"no recipe delivered a trained step in every run over {SEED}")


def test_a_metric_no_trial_reported_has_no_winner() -> None:
    assert _table(LAMBDA_GRID).winner("knn/knn_accuracy") is None


def test_the_table_shows_each_trials_delivered_step() -> None:
    markdown = _table(LAMBDA_GRID).markdown()
    assert markdown.splitlines()[0].startswith(f"| trial | {LAMBDA} | status | best_step | val_score ↓ |")
    assert "| c | 30 | done | 100 |" in markdown and "| d | 100 | done | 0 |" in markdown


def test_prefer_must_name_a_searched_number(write_study) -> None:
    with pytest.raises(StudyError, match=r"prefer names 'training\.temperature', which the study does not search"):
        load_study(str(write_study(prefer={"training.temperature": "max"}, search={"training.learning_rate": [1e-3]})))
    with pytest.raises(StudyError, match=r"replicates names 'training\.seed', which the study does not search"):
        load_study(str(write_study(replicates=["training.seed"], search={"training.learning_rate": [1e-3]})))
    with pytest.raises(StudyError, match=r"cannot be both preferred and replicates"):
        both = {"prefer": {"training.seed": "max"}, "replicates": ["training.seed"]}
        load_study(str(write_study(**both, search={"training.seed": [1, 2]})))
    with pytest.raises(StudyError, match=r"prefer needs numbers to compare; 'training\.pairs'"):
        load_study(str(write_study(prefer={"training.pairs": "max"}, search={"training.pairs": ["crops", "title"]})))


def test_label_agreement_is_higher_is_better_and_params_read_plainly() -> None:
    rows = [
        TrialRow("a", {LAMBDA: 0.0}, {"val_score": 1.7, "val_label_agreement": 0.48, "best_step": 150}, "done"),
        TrialRow("b", {LAMBDA: 30.0}, {"val_score": 1.8, "val_label_agreement": 0.49, "best_step": 150}, "done"),
    ]
    table = build_table(rows, "val_score", "min")
    assert "val_label_agreement" not in table.lower_is_better
    assert table.best()["val_label_agreement"] == "b"
    assert table.params_of("b") == {LAMBDA: 30.0} and type(table.params_of("b")[LAMBDA]) is float
