"""A type's one-rater value (``score_rater_value``, what the noise ceiling takes) is its human
score's value alone, to the bit, wherever it takes a shortcut and wherever it does not."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest

from hume_sync import task_types
from scoring.errors import ScoringError


def _random_case(seed: int) -> tuple[dict[Hashable, Any], dict[Hashable, Any]]:
    rng = np.random.default_rng(seed)
    labels = [f"label {k}" for k in range(int(rng.integers(2, 7)))]
    n = int(rng.integers(1, 60))
    gold: dict[Hashable, Any] = {f"i{k}": str(rng.choice(labels)) for k in range(n)}
    keep = [i for i in gold if rng.random() < 0.8] or [next(iter(gold))]
    answers: dict[Hashable, Any] = {i: str(rng.choice(labels)) for i in keep}
    return gold, answers


@pytest.mark.parametrize("seed", range(40))
def test_classification_value_is_the_human_score_of_one_rater(seed: int) -> None:
    t = task_types.get("classification")
    gold, answers = _random_case(seed)
    assert t.score_rater_value(gold, answers) == t.score_human(gold, {"r": answers}).value


@pytest.mark.parametrize(
    ("gold", "answers"),
    [
        # labels ending in NUL: numpy's string arrays drop it, so "a\0" equals "a" there
        ({"x": "a", "y": "b"}, {"x": "a\0", "y": "b"}),
        ({"x": "a\0", "y": "b"}, {"x": "a", "y": "a"}),
        # whole-number labels take the validated path
        ({"x": 1, "y": 2, "z": 1}, {"x": 1, "y": 1, "z": 1}),
    ],
)
def test_inputs_off_the_shortcut_give_the_same_value(
    gold: dict[Hashable, Any], answers: dict[Hashable, Any]
) -> None:
    t = task_types.get("classification")
    assert t.score_rater_value(gold, answers) == t.score_human(gold, {"r": answers}).value


@pytest.mark.parametrize(
    "answers",
    [{"x": "a", "nope": "b"}, {"x": "a", "y": 1.5}, {}],
)
def test_bad_answers_raise_as_the_human_score_does(answers: dict[Hashable, Any]) -> None:
    t = task_types.get("classification")
    gold: dict[Hashable, Any] = {"x": "a", "y": "b"}
    with pytest.raises(ScoringError):
        t.score_human(gold, {"r": answers})
    with pytest.raises(ScoringError):
        t.score_rater_value(gold, answers)


def test_the_default_is_the_human_score() -> None:
    t = task_types.get("sts")
    rng = np.random.default_rng(2)
    gold: dict[Hashable, Any] = {f"p{k}": float(rng.uniform(0, 5)) for k in range(25)}
    answers: dict[Hashable, Any] = {i: int(rng.integers(0, 6)) for i in gold}
    value = t.score_rater_value(gold, answers)
    assert value == t.score_human(gold, {"r": answers}).value
    assert -1.0 <= value <= 1.0
