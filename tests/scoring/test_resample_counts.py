"""Bootstrap statistics from draw counts (scoring.resample_counts): the floats of the gathered
records, bit for bit, in the bootstrap, its jackknife and the panel's mean annotator; records
the form cannot take (fractions) go the gathered way."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest

from hume_sync import task_types
from scoring import intervals, panel
from scoring.resample_counts import counts_form, counts_form_of, mean_of_whole_records


@intervals.vectorized
def _plain_mean(x: Any) -> Any:
    """The same statistic without the counts form: the gathered reference."""
    return np.mean(x, axis=-1)


@counts_form(mean_of_whole_records)
@intervals.vectorized
def _counted_mean(x: Any) -> Any:
    return np.mean(x, axis=-1)


def _bits(x: Any) -> bytes:
    return np.asarray(x, dtype=np.float64).tobytes()


def test_mean_of_whole_records_is_the_gathered_mean() -> None:
    """counts[r, i] = how often item i is in resample r, from the draws themselves."""
    rng = np.random.default_rng(3)
    for n in (2, 3, 7, 30, 31, 200):
        hits = rng.integers(0, 2, n).astype(float)
        draws = rng.integers(0, n, (500, n))
        counts = np.zeros((500, n))
        np.add.at(counts, (np.arange(500)[:, None], draws), 1.0)
        assert _bits(mean_of_whole_records(hits, counts)) == _bits(np.mean(hits[draws], axis=-1))
        whole = rng.integers(-50, 50, n)  # whole numbers of either sign, integer dtype
        assert _bits(mean_of_whole_records(whole, counts)) == _bits(np.mean(whole[draws], axis=-1))


def test_records_it_cannot_take_give_none() -> None:
    counts = np.ones((2, 3))
    assert mean_of_whole_records(np.array([0.5, 1.0, 0.0]), counts) is None  # a fraction
    assert mean_of_whole_records(np.array([2.0**40, 0.0, 1.0]), counts) is None  # too large
    assert mean_of_whole_records(np.ones((3, 2)), counts) is None  # not one number per item
    assert mean_of_whole_records([1.0, 0.0, 1.0], counts) is None  # not an array


@pytest.mark.parametrize("n", [3, 20, 30, 57])
@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_bootstrap_from_counts_is_the_gathered_bootstrap(
    n: int, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same estimate, bounds, BCa z0, acceleration and levels (the jackknife from counts too);
    the counted bootstrap gathers no records at all."""
    rng = np.random.default_rng(n)
    hits = (rng.random(n) < 0.7).astype(float)
    hits[0], hits[1] = 0.0, 1.0  # never constant
    gathered = intervals.bootstrap(hits, _plain_mean, seed=5, method=method, vectorized=True)  # type: ignore[arg-type]

    def no_gathering(*_args: Any) -> None:
        raise AssertionError("records gathered")

    monkeypatch.setattr(intervals, "_statistics", no_gathering)
    counted = intervals.bootstrap(hits, _counted_mean, seed=5, method=method, vectorized=True)  # type: ignore[arg-type]
    assert counted == gathered
    assert _bits([counted.low, counted.high]) == _bits([gathered.low, gathered.high])


def test_fractional_records_fall_back_to_gathering() -> None:
    rng = np.random.default_rng(1)
    values = rng.random(25)
    gathered = intervals.bootstrap(values, _plain_mean, seed=2, vectorized=True)
    assert intervals.bootstrap(values, _counted_mean, seed=2, vectorized=True) == gathered


def test_classification_hits_and_the_mean_annotator_carry_the_form() -> None:
    """The accuracy statistic carries the form, the panel's memo leaves it out, and the mean
    annotator's interval is the gathered one's (both annotators' hits from counts)."""
    cls = task_types.get("classification")
    rng = np.random.default_rng(9)
    gold: dict[Hashable, Any] = {f"i{i}": str(rng.integers(0, 3)) for i in range(30)}
    humans = {
        r: {i: g if rng.random() < p else "x" for i, g in gold.items()}
        for r, p in (("a", 0.8), ("b", 0.6))
    }
    score = cls.score_human(gold, {"a": humans["a"]})
    per_item = cls.score_per_item(gold, score)
    assert per_item is not None
    hits, statistic = per_item
    assert counts_form_of(statistic) is mean_of_whole_records
    assert panel._ResampleMemo().indexed(hits, statistic) is None
    parts = []
    for r in "ab":
        part = cls.score_per_item(gold, cls.score_human(gold, {r: humans[r]}))
        assert part is not None
        parts.append(part)
    counted = panel.mean_of_statistics(parts)
    gathered = panel.mean_of_statistics([(rec, _plain_mean) for rec, _ in parts])
    assert counts_form_of(counted) is not None and counts_form_of(gathered) is not None
    kw: dict[str, Any] = {"seed": 4, "method": "percentile", "vectorized": True}
    a = intervals.bootstrap(np.arange(30), counted, **kw)
    b = intervals.bootstrap(np.arange(30), gathered, **kw)
    assert a == b and _bits([a.low, a.high, a.estimate]) == _bits([b.low, b.high, b.estimate])


def test_a_subset_past_the_counts_cap_is_gathered(monkeypatch: pytest.MonkeyPatch) -> None:
    """More than COUNTS_VALUES draw counts (here: a cap of 1,000 against 300 x 30): the
    statistic is gathered, no counts made, and the interval is the same."""
    rng = np.random.default_rng(2)
    hits = (rng.random(30) < 0.6).astype(float)
    want = intervals.bootstrap(hits, _counted_mean, n_resamples=300, seed=1, vectorized=True)
    monkeypatch.setattr(intervals, "COUNTS_VALUES", 1000)

    def no_counts(*_args: Any) -> None:
        raise AssertionError("counts made")

    monkeypatch.setattr(intervals, "_draw_counts", no_counts)
    got = intervals.bootstrap(hits, _counted_mean, n_resamples=300, seed=1, vectorized=True)
    assert got == want
