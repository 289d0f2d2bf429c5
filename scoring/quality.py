"""Quality signals while a study runs: rushing, straight-lining, position bias. Never gold.

Each signal is computed from an annotator's own answers and times (and, for rushing, the other
annotators' times), so it can be shown while the study is open, before any gold is read. Each
returns a :class:`Signal`: its number, whether it is flagged, and the threshold it was held to.

- **Fast answers**: the share of an annotator's timed answers given in under
  ``FAST_FRACTION`` × the median time of the *other* annotators on that type (the rest of the
  panel: with two annotators, a panel median that included the rusher would halve the bar);
  flagged above ``FAST_SHARE``.
- **Straight-lining**: the share of their answers equal to their most frequent answer; where
  ``k`` answers are possible, flagged above halfway between a uniform spread and one answer for
  everything, ``(1 + 1/k) / 2`` (0.75 for yes/no, 0.58 for six levels).
- **Position bias**: where the order shown to annotators is a seeded shuffle, which answer sits
  at which shown place is chance, so the places they choose should spread evenly. Per place,
  the expected count is the sum over their answers of ``chosen / shown`` (an answer choosing
  ``m`` of ``n`` shown places puts ``m/n`` on each); Pearson's chi-square goodness-of-fit
  (:func:`scipy.stats.chisquare`) tests the chosen places against it; flagged at ``p < ALPHA``.
  Choices within one answer are drawn without replacement, so the test is conservative.

A signal on fewer than ``MIN_ANSWERS`` answers (or, for the chi-square, with expected counts
too small for its approximation by Cochran's rule: none under 1, at most a fifth under
``MIN_EXPECTED``) is reported but never flagged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from scoring.errors import InvalidInputError
from scoring.records import plain_dict

__all__ = [
    "ALPHA",
    "FAST_FRACTION",
    "FAST_SHARE",
    "METHOD",
    "MIN_ANSWERS",
    "ShownAnswer",
    "Signal",
    "chisquare",
    "expected_positions",
    "fast_answers",
    "position_bias",
    "straight_line_threshold",
    "straight_lining",
]


#: An answer is fast under this fraction of the rest of the panel's median time for its type.
FAST_FRACTION = 0.25
#: Rushing is flagged when more than this share of an annotator's timed answers are fast.
FAST_SHARE = 0.2
#: The position-bias test's level (low: every annotator is tested on every type).
ALPHA = 0.01
#: Fewer answers than this: a signal is shown, never flagged.
MIN_ANSWERS = 10
#: Cochran's rule for the chi-square approximation: no expected count under 1, and at most
#: ``SMALL_EXPECTED_SHARE`` of the places with one under ``MIN_EXPECTED``.
MIN_EXPECTED = 5.0
SMALL_EXPECTED_SHARE = 0.2
#: scipy.stats.chisquare's relative tolerance between the observed and expected sums:
#: ``np.finfo(np.float64).eps ** 0.5``, exactly (the square root of 2**-52).
_RTOL = 2.0**-26

#: The report's Methods phrase for the quality signals.
METHOD = (
    "Quality signals (from answers and times only, never gold, so shown while the study is "
    f"open): fast answers, the share given in under {FAST_FRACTION:g}× the other annotators' "
    f"median lead_time on that type, flagged above {FAST_SHARE:g}; straight-lining, the share "
    "of an annotator's answers equal to their most frequent one, flagged above (1 + 1/k)/2 "
    "where k answers are possible; position bias, where candidates are shown in a seeded "
    "shuffled order, Pearson's chi-square of the shown places chosen against the even spread "
    f"the shuffle gives, flagged at p < {ALPHA:g}; none is flagged on fewer than {MIN_ANSWERS} "
    f"answers, nor the chi-square where an expected count is under 1 or more than a fifth are "
    f"under {MIN_EXPECTED:g} (Cochran's rule)"
)


_FAST_METHOD = f"share(lead_time < {FAST_FRACTION:g}*median_of_others)"


@dataclass(frozen=True)
class ShownAnswer:
    """One answer as the quality signals see it (a task type's ``quality_view``).

    ``choice`` is what straight-lining compares (hashable; None: not comparable), out of
    ``n_options`` possible answers; ``positions`` are the 0-based shown places the answer chose
    among ``n_shown`` shown in a shuffled order (None where the order is fixed or not shown).
    """

    choice: Hashable | None = None
    n_options: int | None = None
    positions: tuple[int, ...] | None = None
    n_shown: int | None = None


@dataclass(frozen=True)
class Signal:
    """A quality signal: ``value`` against ``threshold`` (None: not computable), ``flagged``."""

    value: float | None
    flagged: bool
    threshold: float | None
    n: int
    method: str
    note: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Give the record as JSON-friendly values (``status --json``, the dashboard's data).

        Returns:
            A dict of plain values (nested records as dicts).
        """
        return plain_dict(self)


def fast_answers(times_s: Sequence[float], reference_s: Sequence[float | None]) -> Signal:
    """The share of answers faster than ``FAST_FRACTION`` of their reference time.

    Args:
        times_s: The annotator's ``lead_time`` per timed answer.
        reference_s: Per answer, the other annotators' median time on its type (None: nobody
            else has timed answers there; the answer is left out).

    Returns:
        The share of fast answers among those with a reference, flagged above ``FAST_SHARE``.

    Raises:
        InvalidInputError: The two sequences differ in length.
    """
    if len(times_s) != len(reference_s):
        raise InvalidInputError(f"{len(times_s)} times but {len(reference_s)} reference times")
    pairs = [
        (float(t), float(r)) for t, r in zip(times_s, reference_s, strict=True) if r is not None
    ]
    method = _FAST_METHOD
    if not pairs:
        return Signal(None, False, FAST_SHARE, 0, method, "no other annotator's time to compare")
    fast = sum(t < FAST_FRACTION * r for t, r in pairs)
    share = fast / len(pairs)
    enough = len(pairs) >= MIN_ANSWERS
    note = "" if enough else f"fewer than {MIN_ANSWERS} timed answers"
    return Signal(share, enough and share > FAST_SHARE, FAST_SHARE, len(pairs), method, note)


def straight_line_threshold(n_options: int) -> float:
    """The straight-lining threshold: halfway between an even spread and one answer.

    Args:
        n_options: ``k``, the number of possible answers (2 or more).

    Returns:
        ``(1 + 1/k) / 2``.
    """
    return (1.0 + 1.0 / n_options) / 2.0


def straight_lining(choices: Sequence[Hashable], n_options: int | None) -> Signal:
    """The share of answers equal to the annotator's most frequent answer.

    Args:
        choices: Their answers (hashable, as the type's ``quality_view`` gives them).
        n_options: How many answers are possible (None or < 2: never flagged).

    Returns:
        The share, flagged above :func:`straight_line_threshold` with 2 or more options.
    """
    method = "share(most_frequent_answer)"
    if not choices:
        return Signal(None, False, None, 0, method, "no answer")
    # most_common(1) is this max (the first answer counted most often), without heapq's call
    top, count = max(Counter(choices).items(), key=itemgetter(1))
    share = count / len(choices)
    if n_options is None or n_options < 2:
        return Signal(share, False, None, len(choices), method, "a single possible answer")
    threshold = straight_line_threshold(n_options)
    enough = len(choices) >= MIN_ANSWERS
    note = "" if enough else f"fewer than {MIN_ANSWERS} answers"
    return Signal(
        share,
        enough and share > threshold,
        threshold,
        len(choices),
        method,
        note,
        {"most_frequent": repr(top), "n_options": n_options},
    )


def expected_positions(answers: Sequence[ShownAnswer]) -> tuple[list[int], list[float]]:
    """Observed and expected counts per shown place over the answers with positions.

    Args:
        answers: Answers with ``positions`` and ``n_shown`` (others are skipped).

    Returns:
        ``(observed, expected)``, one entry per place ``0 .. max(n_shown) - 1``: an answer
        choosing ``m`` of ``n`` places adds 1 at each chosen place and ``m/n`` at each of its
        ``n`` places to the expectation.

    Raises:
        InvalidInputError: A position outside ``0 .. n_shown - 1``, or chosen twice.
    """
    rows = [a for a in answers if a.positions is not None and a.n_shown]
    width = max((int(a.n_shown or 0) for a in rows), default=0)
    observed, expected = [0] * width, [0.0] * width
    shares: list[tuple[int, float]] = []
    # an answer object is checked once: task types share one immutable view between the
    # answers that read the same, and the pooled test reads each seat's answers again
    checked: dict[int, tuple[int, float]] = {}
    for a in rows:
        n_share = checked.get(id(a))
        chosen = a.positions or ()
        if n_share is None:
            n = int(a.n_shown or 0)
            if len(set(chosen)) != len(chosen) or (
                chosen and not 0 <= min(chosen) <= max(chosen) < n
            ):
                raise InvalidInputError(
                    f"positions {chosen!r} are not distinct places of {n} shown"
                )
            n_share = checked[id(a)] = (n, len(chosen) / n)
        for p in chosen:
            observed[p] += 1
        shares.append(n_share)
    # A place's expectation is the running sum, in the answers' order, of the shares of the
    # answers showing it (n > place). Places below the same next shown size n are shown by
    # the same answers, so one running sum serves them all: the same additions in the same
    # order as place by place (the report prints these sums, so they must not move a bit).
    low = 0
    for size in sorted({n for n, _ in shares}):
        total = 0.0
        for n, share in shares:
            if n >= size:
                total += share
        expected[low:size] = [total] * (size - low)
        low = size
    return observed, expected


def chisquare(observed: Sequence[float], expected: Sequence[float]) -> tuple[float, float]:
    """``scipy.stats.chisquare(observed, expected)``: Pearson's statistic and its p-value.

    Why by hand: scipy's call spends most of a millisecond in its array-API and NaN-policy
    layers for a handful of counts, and the report tests each annotator's positions. These are
    scipy's own steps (both as float64; the sums must agree to √eps, else the same ValueError;
    the terms (o − e)² / e summed by numpy; the p-value ``scipy.special.chdtrc`` of k − 1
    degrees of freedom), so the numbers are scipy's to the bit (a test compares them).

    Args:
        observed: The observed counts.
        expected: The expected counts (their sum that of ``observed``).

    Returns:
        ``(statistic, p-value)``.

    Raises:
        ValueError: The sums disagree, as scipy says it.
    """
    import numpy as np
    from scipy import special

    obs = np.asarray(observed, dtype=np.float64)
    exp = np.asarray(expected, dtype=np.float64)
    obs_sum, exp_sum = float(np.sum(obs)), float(np.sum(exp))
    # scipy's check in Python floats (IEEE doubles, as numpy's scalars): numpy's scalar layer
    # cost more than the test; a zero sum takes numpy's path (0/0 is nan there, no error)
    if min(obs_sum, exp_sum) != 0.0:
        relative_diff = abs(obs_sum - exp_sum) / min(obs_sum, exp_sum)
    else:
        with np.errstate(invalid="ignore"):
            relative_diff = np.abs(np.float64(obs_sum) - exp_sum) / np.minimum(obs_sum, exp_sum)
    if relative_diff > _RTOL:
        raise ValueError(
            f"For each axis slice, the sum of the observed frequencies must agree with the "
            f"sum of the expected frequencies to a relative tolerance of {_RTOL}, but the "
            f"percent differences are:\n{relative_diff}"
        )
    statistic = np.sum((obs - exp) ** 2 / exp)
    return float(statistic), float(special.chdtrc(np.float64(len(obs) - 1), statistic))


def position_bias(answers: Sequence[ShownAnswer]) -> Signal:
    """Chi-square of the shown places chosen against the shuffled order's even spread.

    Args:
        answers: The annotator's answers (those without positions are skipped).

    Returns:
        ``value`` the p-value (None when untestable: fewer than two places with an expectation,
        or nothing chosen), flagged at ``p < ALPHA``; ``details`` holds the statistic, the
        degrees of freedom and the counts.
    """
    method = "chisquare(chosen_positions, shuffled_uniform_expectation)"
    rows = [a for a in answers if a.positions is not None and a.n_shown]
    n = len(rows)
    if n == 0:  # most types show a fixed order: nothing to count
        return Signal(None, False, ALPHA, 0, method, "no answer tied to a shuffled shown order")
    observed, expected = expected_positions(rows)
    keep = [i for i, e in enumerate(expected) if e > 0]
    if len(keep) < 2:
        return Signal(None, False, ALPHA, n, method, "nothing chosen at two or more places")
    obs, exp = [observed[i] for i in keep], [expected[i] for i in keep]
    statistic, p = chisquare(obs, exp)
    reasons = []
    if n < MIN_ANSWERS:
        reasons.append(f"fewer than {MIN_ANSWERS} answers")
    small = sum(e < MIN_EXPECTED - 1e-9 for e in exp)  # 15 × 1/3 sums to 4.999…
    if min(exp) < 1.0 - 1e-9 or small > SMALL_EXPECTED_SHARE * len(exp):
        reasons.append(
            f"expected counts too small (Cochran: none under 1, at most "
            f"{SMALL_EXPECTED_SHARE:.0%} under {MIN_EXPECTED:g})"
        )
    details = {
        "statistic": statistic,
        "df": len(keep) - 1,
        "observed": obs,
        "expected": exp,
        "positions": [i + 1 for i in keep],
    }
    return Signal(p, not reasons and p < ALPHA, ALPHA, n, method, "; ".join(reasons), details)
