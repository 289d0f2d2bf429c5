"""Checks an export takes for every rating, without their general path where the value is
plainly a finite number: the same values, errors and decisions as the general path."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from hume_sync.task_types.sts.scoring import RATING_GAP, STSScoring
from scoring.agreement._input import _clean_value, _is_missing, _prepare
from scoring.errors import InvalidInputError


def _general(ratings: Any, numeric: bool) -> dict[Any, dict[Any, Any]]:
    return {
        r: {i: _clean_value(v, r, i, numeric) for i, v in a.items() if not _is_missing(v)}
        for r, a in ratings.items()
    }


def test_prepare_keeps_the_general_values() -> None:
    ratings: dict[str, Any] = {
        "a": {"i1": 3, "i2": 2.5, "i3": None, "i4": math.nan, "i5": True, "i6": np.float64(1.5)},
        "b": {"i1": np.int64(4), "i2": -0.0, "i3": 10**6, "i4": np.nan, "i5": "2"},
    }
    got = _prepare(ratings, (), numeric=True).values
    want = _general(ratings, True)
    assert got == want
    for r in got:
        for i in got[r]:
            assert type(got[r][i]) is type(want[r][i])
            assert math.copysign(1.0, got[r][i]) == math.copysign(1.0, want[r][i])
    labels: dict[str, Any] = {
        "a": {"i1": "x", "i2": 3, "i3": None},
        "b": {"i1": np.int64(2), "i2": 2.0},
    }
    assert _prepare(labels, (), numeric=False).values == _general(labels, False)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, "x", [1]])
def test_prepare_still_refuses_what_is_not_a_finite_number(bad: Any) -> None:
    with pytest.raises(InvalidInputError, match="rater 'a', item 'i2'"):
        _prepare({"a": {"i1": 1.0, "i2": bad}}, (), numeric=True)


def test_sts_agree_not_gold_is_np_means_decision() -> None:
    t = STSScoring()
    rng = np.random.default_rng(0)
    for trial in range(3000):
        k = int(rng.integers(1, 6))
        if trial % 3 == 0:
            values: list[Any] = [int(v) for v in rng.integers(0, 6, k)]
        elif trial % 3 == 1:
            values = [float(v) for v in rng.integers(0, 6, k)]
        else:
            values = [float(v) for v in rng.integers(0, 21, k) / 4]
        gold = float(rng.integers(0, 26) / 5)
        # a gold exactly RATING_GAP from the mean now and then: the boundary decides alike
        if trial % 7 == 0:
            gold = float(np.mean(values)) + RATING_GAP
        want = abs(float(np.mean(values)) - gold) >= RATING_GAP
        assert t.score_agree_not_gold(values, gold) is want
