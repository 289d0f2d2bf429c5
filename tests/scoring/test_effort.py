"""Effort and cost from lead_time (scoring.effort), worked out by hand."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.effort import (
    CAP_CEILING_S,
    CAP_FLOOR_S,
    METHOD,
    effort,
    target_cost,
    time_cap,
    total,
    type_timing,
)
from scoring.errors import InvalidInputError


def test_the_cap_rule_by_hand() -> None:
    assert time_cap(30.0) == 150.0  # 5 × 30 s
    assert time_cap(4.0) == CAP_FLOOR_S  # 5 × 4 = 20 s, under the one-minute floor
    assert time_cap(900.0) == CAP_CEILING_S  # 5 × 900 = 4500 s, over half an hour
    assert time_cap(None) == CAP_CEILING_S  # no timed answer yet
    assert "5×" in METHOD and "60 s" in METHOD and "1800 s" in METHOD


def test_a_task_left_open_over_lunch_counts_as_the_cap() -> None:
    # Panel: 20, 30, 40, 3600 (lunch) and one unknown. Raw median (30 + 40) / 2 = 35 s,
    # cap 5 × 35 = 175 s; capped 20, 30, 40, 175: median 35, mean 265 / 4 = 66.25 s.
    timing = type_timing([20.0, 30.0, 40.0, 3600.0, None])
    assert timing.n_timed == 4
    assert timing.median_raw_s == 35.0
    assert timing.cap_s == 175.0
    assert timing.median_s == 35.0
    assert timing.mean_s == pytest.approx(66.25)


def test_hours_so_far_and_owed_at_the_annotators_own_rate() -> None:
    timing = type_timing([20.0, 30.0, 40.0, 3600.0])  # cap 175 s (above)
    # Their times 40, 3600 (capped to 175) and one unknown: 215 s = 0.059722 h so far;
    # own rate (40 + 175) / 2 = 107.5 s; 10 items owed × 107.5 = 1075 s = 0.298611 h.
    e = effort([40.0, 3600.0, None], 10, timing)
    assert (e.n_timed, e.n_untimed, e.n_capped) == (2, 1, 1)
    assert e.median_s == pytest.approx(107.5)
    assert e.hours_so_far == pytest.approx(215 / 3600)
    assert e.seconds_per_item == pytest.approx(107.5) and e.rate_from == "own"
    assert e.hours_owed == pytest.approx(1075 / 3600)
    assert e.unpriced_items == 0


def test_half_way_owes_what_it_spent() -> None:
    # The mean prices the rest: 4 items of 10, 20, 30, 100 s (cap 5 × 25 = 125 s, none cut)
    # = 160 s so far; 4 owed × 40 s = 160 s.
    times = [10.0, 20.0, 30.0, 100.0]
    e = effort(times, 4, type_timing(times))
    assert e.hours_so_far == pytest.approx(e.hours_owed) == pytest.approx(160 / 3600)


def test_a_new_annotator_is_priced_at_the_panels_rate_or_not_at_all() -> None:
    timing = type_timing([20.0, 30.0, 40.0, 3600.0])  # panel mean 66.25 s
    e = effort([], 8, timing)
    assert e.rate_from == "panel" and e.hours_owed == pytest.approx(8 * 66.25 / 3600)
    assert e.hours_so_far == 0.0 and e.median_s is None
    nobody = effort([None], 8, type_timing([]))
    assert nobody.rate_from is None and nobody.hours_owed == 0.0 and nobody.unpriced_items == 8


def test_total_adds_hours_and_items() -> None:
    a = effort([60.0], 2, type_timing([60.0]))  # 60 s so far, 2 × 60 s owed
    b = effort([], 3, type_timing([]))  # 3 unpriced
    t = total([a, b])
    assert t.hours_so_far == pytest.approx(60 / 3600)
    assert t.hours_owed == pytest.approx(120 / 3600)
    assert (t.items_owed, t.unpriced_items, t.median_s) == (5, 3, None)
    assert t.to_dict()["hours_owed"] == pytest.approx(120 / 3600)


def test_annotator_hours_and_cost_for_the_target() -> None:
    # 385 items × 3 annotators × 24 s = 27,720 s = 7.7 h; at 18 per hour: 138.6.
    c = target_cost(385, 3, 24.0, rate_per_hour=18.0)
    assert c is not None
    assert c.annotator_hours == pytest.approx(7.7)
    assert c.cost == pytest.approx(138.6)
    assert c.to_dict()["cost"] == pytest.approx(138.6)
    no_rate = target_cost(385, 3, 24.0)
    assert no_rate is not None and no_rate.cost is None
    assert target_cost(None, 3, 24.0) is None and target_cost(385, 3, None) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda: type_timing([-1.0]),
        lambda: type_timing([float("nan")]),
        lambda: effort([1.0], -1, type_timing([1.0])),
        lambda: target_cost(10, 0, 5.0),
        lambda: target_cost(10, 2, 5.0, rate_per_hour=-3.0),
    ],
)
def test_bad_input_is_refused(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError):
        call()


@given(st.lists(st.floats(0, 10_000), min_size=1, max_size=40))
def test_capped_times_never_exceed_the_cap_nor_the_raw_times(times: list[float]) -> None:
    timing = type_timing(times)
    e = effort(times, 0, timing)
    assert e.hours_so_far <= min(sum(times), len(times) * timing.cap_s) / 3600 + 1e-9
    assert CAP_FLOOR_S <= timing.cap_s <= CAP_CEILING_S
