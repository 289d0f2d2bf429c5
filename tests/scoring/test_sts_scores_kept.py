"""STS's human score keeps each annotator's correlation for the panel's next call
(scoring.aggregation.sts._own_spearman): keyed by the lists' float64 bytes, the numbers of a
fresh call, never across an export's worth of other annotators."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pytest

from scoring import metrics
from scoring.aggregation import sts
from scoring.errors import DegenerateInputError, InvalidInputError


def _study(seed: int) -> tuple[dict[Hashable, float], dict[str, dict[Hashable, float]]]:
    rng = np.random.default_rng(seed)
    gold: dict[Hashable, float] = {f"p{i}": float(rng.integers(0, 26) / 5) for i in range(25)}
    humans = {r: {i: float(rng.integers(0, 6)) for i in gold} for r in ("a", "b")}
    humans["a"]["p0"] = -0.0  # a signed zero is its own key
    return gold, humans


def test_alone_each_annotator_gets_the_aggregates_correlation_which_is_fresh() -> None:
    gold, humans = _study(1)
    sts._kept.clear()
    both = sts.human_sts(gold, humans)
    kept = dict(sts._kept)
    assert len(kept) == 2
    for r, given in humans.items():
        alone = sts.human_sts(gold, {r: given})
        fresh = metrics.spearman([gold[i] for i in given], list(given.values()))
        assert both.per_rater[r] == alone.value == fresh.value
        assert both.details["per_rater_pearson"][r] == alone.details["pearson"]
        assert alone.details["pearson"] == fresh.details["pearson"]
    assert dict(sts._kept) == kept  # found, nothing computed again


def test_equal_but_not_identical_numbers_are_different_keys() -> None:
    gold, humans = _study(2)
    sts._kept.clear()
    sts.human_sts(gold, {"a": humans["a"]})
    flipped = {**humans["a"], "p0": 0.0}
    sts.human_sts(gold, {"a": flipped})
    assert len(sts._kept) == 2


def test_errors_and_non_numbers_are_not_kept() -> None:
    gold, _ = _study(3)
    sts._kept.clear()
    constant = {"a": dict.fromkeys(gold, 2.0), "b": {i: float(k % 5) for k, i in enumerate(gold)}}
    s = sts.human_sts(gold, constant)
    assert "a" in s.details["degenerate_raters"] and len(sts._kept) == 1
    with pytest.raises(DegenerateInputError):
        sts._own_spearman([1.0, 2.0, 3.0], [1.0, 1.0, 1.0])
    with pytest.raises(InvalidInputError):
        sts._own_spearman(["x", "y", "z"], [1.0, 2.0, 3.0])
    assert len(sts._kept) == 1


def test_few_are_kept() -> None:
    sts._kept.clear()
    for seed in range(sts._KEPT + 3):
        gold, humans = _study(10 + seed)
        sts.human_sts(gold, {"a": humans["a"]})
    assert len(sts._kept) == sts._KEPT
