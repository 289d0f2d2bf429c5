"""STS's human score keeps each annotator's correlation for the panel's next call within one
subset's evaluation (scoring.aggregation.sts._own_spearman through scoring.score_memo): keyed by
the lists' float64 bytes, the numbers of a fresh call, nothing kept outside that block."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pytest

from scoring import metrics
from scoring.aggregation import sts
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.score_memo import shared_scores


def _study(seed: int) -> tuple[dict[Hashable, float], dict[str, dict[Hashable, float]]]:
    rng = np.random.default_rng(seed)
    gold: dict[Hashable, float] = {f"p{i}": float(rng.integers(0, 26) / 5) for i in range(25)}
    humans = {r: {i: float(rng.integers(0, 6)) for i in gold} for r in ("a", "b")}
    humans["a"]["p0"] = -0.0  # a signed zero is its own key
    return gold, humans


@pytest.fixture
def spearman_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the correlations computed (each call's length)."""
    calls: list[int] = []
    real = metrics.spearman

    def counting(gold: object, pred: object) -> object:
        calls.append(len(gold))  # type: ignore[arg-type]
        return real(gold, pred)  # type: ignore[arg-type]

    monkeypatch.setattr(metrics, "spearman", counting)
    return calls


def test_alone_each_annotator_gets_the_aggregates_correlation_which_is_fresh(
    spearman_calls: list[int],
) -> None:
    gold, humans = _study(1)
    with shared_scores():
        both = sts.human_sts(gold, humans)
        computed = len(spearman_calls)
        for r, given in humans.items():
            alone = sts.human_sts(gold, {r: given})
            fresh = metrics.spearman([gold[i] for i in given], list(given.values()))
            assert both.per_rater[r] == alone.value == fresh.value
            assert both.details["per_rater_pearson"][r] == alone.details["pearson"]
            assert alone.details["pearson"] == fresh.details["pearson"]
    # each annotator's own correlation was computed once in the block; alone, "a"'s pooled
    # one is computed (its -0.0 is a mean rating of 0.0: other numbers), "b"'s is its own
    assert len(spearman_calls) == computed + 1 + len(humans)


def test_equal_but_not_identical_numbers_are_different_keys(spearman_calls: list[int]) -> None:
    gold, humans = _study(2)
    golds = [gold[i] for i in humans["a"]]
    signed = list(humans["a"].values())  # its first rating is -0.0
    unsigned = [0.0, *signed[1:]]
    with shared_scores():
        first = sts._own_spearman(golds, signed)
        sts._own_spearman(golds, unsigned)
        assert sts._own_spearman(golds, signed) is first
    assert len(spearman_calls) == 2


def test_errors_and_non_numbers_are_not_kept(spearman_calls: list[int]) -> None:
    gold, _ = _study(3)
    constant = {"a": dict.fromkeys(gold, 2.0), "b": {i: float(k % 5) for k, i in enumerate(gold)}}
    with shared_scores():
        s = sts.human_sts(gold, constant)
        assert "a" in s.details["degenerate_raters"]
        before = len(spearman_calls)
        for _ in range(2):
            with pytest.raises(DegenerateInputError):
                sts._own_spearman([1.0, 2.0, 3.0], [1.0, 1.0, 1.0])
            with pytest.raises(InvalidInputError):
                sts._own_spearman(["x", "y", "z"], [1.0, 2.0, 3.0])
        assert len(spearman_calls) == before + 4  # each error computed again


def test_nothing_is_kept_outside_one_block(spearman_calls: list[int]) -> None:
    gold, humans = _study(4)
    one = {"b": humans["b"]}  # no signed zero: the pooled correlation is the annotator's own
    sts.human_sts(gold, one)
    sts.human_sts(gold, one)
    with shared_scores():
        sts.human_sts(gold, one)
    with shared_scores():
        sts.human_sts(gold, one)
    assert len(spearman_calls) == 4
