"""Quality signals without gold (scoring.quality), worked out by hand; the chi-square is
cross-checked against its closed form."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.errors import InvalidInputError
from scoring.quality import (
    ALPHA,
    FAST_SHARE,
    ShownAnswer,
    expected_positions,
    fast_answers,
    position_bias,
    straight_line_threshold,
    straight_lining,
)


def test_fast_answers_by_hand() -> None:
    # The others' median is 20 s, so fast is under 0.25 × 20 = 5 s: 2, 2, 2 of ten answers.
    times = [2.0, 2.0, 2.0] + [10.0] * 7
    s = fast_answers(times, [20.0] * 10)
    assert s.value == pytest.approx(0.3) and s.threshold == FAST_SHARE
    assert s.flagged and s.n == 10
    # 2 of 10 is not more than 0.2: shown, not flagged.
    assert not fast_answers([2.0, 2.0] + [10.0] * 8, [20.0] * 10).flagged
    # On 3 answers, all fast: shown, never flagged.
    few = fast_answers([1.0, 1.0, 1.0], [20.0] * 3)
    assert few.value == 1.0 and not few.flagged and "fewer than 10" in few.note
    # Answers with no other annotator's time are left out.
    none = fast_answers([1.0], [None])
    assert none.value is None and none.n == 0


def test_straight_lining_by_hand() -> None:
    # Yes/no: threshold (1 + 1/2) / 2 = 0.75; 8 of 10 the same is 0.8: flagged.
    s = straight_lining([1] * 8 + [0] * 2, 2)
    assert s.value == pytest.approx(0.8) and s.threshold == 0.75 and s.flagged
    assert not straight_lining([1] * 7 + [0] * 3, 2).flagged  # 0.7
    # Six levels: (1 + 1/6) / 2 = 7/12 = 0.5833; 6 of 10 the same is flagged.
    assert straight_line_threshold(6) == pytest.approx(7 / 12)
    assert straight_lining([3] * 6 + [0, 1, 2, 4], 6).flagged
    # One possible answer: a share, never a flag.
    single = straight_lining(["x"] * 10, 1)
    assert single.value == 1.0 and not single.flagged and single.threshold is None


def test_expected_positions_follow_the_shuffle() -> None:
    # Shown 2, chose place 0: 1 observed at 0; 1/2 expected at 0 and 1.
    # Shown 4, chose places 0 and 3: observed at 0 and 3; 2/4 expected at each of 4 places.
    answers = [ShownAnswer(positions=(0,), n_shown=2), ShownAnswer(positions=(0, 3), n_shown=4)]
    observed, expected = expected_positions(answers)
    assert observed == [2, 0, 0, 1]
    assert expected == pytest.approx([1.0, 1.0, 0.5, 0.5])
    with pytest.raises(InvalidInputError):
        expected_positions([ShownAnswer(positions=(4,), n_shown=4)])


def test_chi_square_against_its_closed_form() -> None:
    # The counts above: (2-1)²/1 + (0-1)²/1 + (0-.5)²/.5 + (1-.5)²/.5 = 1 + 1 + .5 + .5 = 3,
    # df 3; the chi-square survival at df 3 is erfc(sqrt(x/2)) + sqrt(2x/π) e^(-x/2).
    answers = [ShownAnswer(positions=(0,), n_shown=2), ShownAnswer(positions=(0, 3), n_shown=4)]
    s = position_bias(answers)
    x = 3.0
    closed = math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    assert s.details["statistic"] == pytest.approx(x)
    assert s.details["df"] == 3
    assert s.value == pytest.approx(closed)  # 0.3916
    assert not s.flagged and "fewer than 10" in s.note


def test_first_place_preference_is_flagged() -> None:
    # 15 answers, one mark among 3 shuffled places: 11, 2, 2 against 5, 5, 5.
    # Statistic (36 + 9 + 9) / 5 = 10.8, df 2: p = e^(-10.8/2) = 0.004517 < 0.01.
    answers = [ShownAnswer(positions=(p,), n_shown=3) for p in [0] * 11 + [1] * 2 + [2] * 2]
    s = position_bias(answers)
    assert s.details["statistic"] == pytest.approx(10.8)
    assert s.value == pytest.approx(math.exp(-5.4))
    assert s.flagged and s.threshold == ALPHA
    # An even spread, 5, 5, 5: statistic 0, p = 1.
    even = position_bias([ShownAnswer(positions=(p % 3,), n_shown=3) for p in range(15)])
    assert even.value == pytest.approx(1.0) and not even.flagged


def test_nothing_chosen_or_no_positions_is_untestable() -> None:
    assert position_bias([ShownAnswer(positions=(), n_shown=3)] * 12).value is None
    assert position_bias([ShownAnswer(choice="a")] * 12).value is None


@given(st.lists(st.integers(0, 4), min_size=1, max_size=60))
def test_observed_and_expected_have_the_same_total(places: list[int]) -> None:
    observed, expected = expected_positions(
        [ShownAnswer(positions=(p,), n_shown=5) for p in places]
    )
    assert sum(observed) == len(places)
    assert sum(expected) == pytest.approx(len(places))


@given(
    st.lists(
        st.integers(1, 9).flatmap(
            lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1), max_size=n))
        ),
        min_size=1,
        max_size=40,
    )
)
def test_expected_counts_are_the_place_by_place_sums_to_the_bit(
    shown: list[tuple[int, set[int]]],
) -> None:
    """Answers shown different numbers of places: each place's expectation is the running sum
    of the shares of the answers showing it, added in the answers' order, as a place-by-place
    loop adds them (the report prints these floats, so a reordered sum would change it)."""
    answers = [ShownAnswer(positions=tuple(sorted(c)), n_shown=n) for n, c in shown]
    reference = [0.0] * max(n for n, _ in shown)
    for n, chosen in shown:
        for place in range(n):
            reference[place] += len(chosen) / n
    _, expected = expected_positions(answers)
    assert [x.hex() for x in expected] == [x.hex() for x in reference]


def test_too_small_expected_counts_are_shown_not_flagged() -> None:
    # 12 answers, one mark among 3 places, all at the first: 12, 0, 0 against 4, 4, 4;
    # statistic (64 + 16 + 16) / 4 = 24, p = e^-12, but every expected count is under 5
    # (Cochran allows a fifth of them): shown, not flagged.
    s = position_bias([ShownAnswer(positions=(0,), n_shown=3)] * 12)
    assert s.details["statistic"] == pytest.approx(24.0)
    assert s.value == pytest.approx(math.exp(-12))
    assert not s.flagged and "Cochran" in s.note
