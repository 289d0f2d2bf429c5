"""Table 1's human rows across subsets (scoring.panel_summary, scoring.intervals.mover_mean),
checked by hand on small cases."""

from __future__ import annotations

import math

import pytest

from scoring.errors import DegenerateInputError
from scoring.intervals import mover_mean
from scoring.panel_summary import summarise, summarise_entry
from scoring.records import Interval


def _iv(low: float, high: float, est: float = 0.0) -> Interval:
    return Interval(estimate=est, low=low, high=high, level=0.95, method="bootstrap:bca")


def _entry(value: float | None, low: float | None = None, high: float | None = None) -> dict:
    iv = None if low is None else _iv(low, high, value).to_dict()  # type: ignore[arg-type]
    return {"value": value, "interval": iv, "note": None if iv else "not estimable: one annotator"}


def test_mover_mean_by_hand() -> None:
    # 0.8 [0.6, 0.9] and 0.6 [0.5, 0.8]: mean 0.7; below sqrt(0.2² + 0.1²) / 2, above the same
    # distances swapped: sqrt(0.1² + 0.2²) / 2 = sqrt(0.05) / 2 = 0.111803…
    iv = mover_mean([0.8, 0.6], [_iv(0.6, 0.9), _iv(0.5, 0.8)])
    assert iv.estimate == pytest.approx(0.7)
    assert iv.low == pytest.approx(0.7 - math.sqrt(0.05) / 2)
    assert iv.high == pytest.approx(0.7 + math.sqrt(0.05) / 2)
    # Asymmetry kept: 0.9 [0.5, 1.0] and 0.9 [0.8, 0.95]: below sqrt(0.16 + 0.01) / 2.
    iv = mover_mean([0.9, 0.9], [_iv(0.5, 1.0), _iv(0.8, 0.95)])
    assert iv.low == pytest.approx(0.9 - math.sqrt(0.17) / 2)
    assert iv.high == pytest.approx(0.9 + math.sqrt(0.0125) / 2)
    # One estimate: its own interval back.
    iv = mover_mean([0.75], [_iv(0.4, 0.9)])
    assert (iv.low, iv.high) == pytest.approx((0.4, 0.9))
    with pytest.raises(DegenerateInputError):
        mover_mean([], [])


def test_summary_of_panels() -> None:
    panels = [
        ("A", {"best_annotator": _entry(0.8, 0.6, 0.9), "mean_annotator": _entry(0.7, 0.6, 0.8)}),
        ("B", {"best_annotator": _entry(0.6, 0.5, 0.8), "mean_annotator": _entry(0.6)}),
        ("C", {"best_annotator": _entry(None), "dawid_skene": _entry(0.5, 0.3, 0.7)}),
    ]
    out = summarise(panels)
    best = out["best_annotator"]
    assert best["value"] == pytest.approx(0.7) and best["subsets"] == ["A", "B"]
    assert best["interval"]["low"] == pytest.approx(0.7 - math.sqrt(0.05) / 2)
    assert best["interval"]["high"] == pytest.approx(0.7 + math.sqrt(0.05) / 2)
    # B's mean annotator has a value but no interval: the mean's interval is not estimable,
    # naming B and its reason, never a zero-width or NaN interval.
    mean = out["mean_annotator"]
    assert mean["value"] == pytest.approx(0.65) and mean["interval"] is None
    assert mean["note"] == "not estimable: no interval on B (one annotator)"
    assert out["dawid_skene"]["interval"]["low"] == pytest.approx(0.3)
    assert out["worst_annotator"] == {
        "value": None,
        "interval": None,
        "note": "not estimable on any subset",
    }


def test_zero_width_is_not_estimable() -> None:
    e = summarise_entry([("A", _entry(0.5, 0.5, 0.5))])
    assert e["interval"] is None and "zero width" in e["note"]
