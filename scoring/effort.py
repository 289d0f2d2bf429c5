"""Effort and cost in annotator-hours, from Label Studio's ``lead_time``.

Label Studio records, for each annotation, how many seconds it was open (``lead_time``). A task
left open over lunch would count as an hour of work, so an item's time is capped first
(:func:`time_cap`): at five times the panel's median for the task type, never below a minute
(nothing a careful annotator plausibly spends is cut) nor above half an hour (a panel whose
median is itself inflated by a few forgotten tasks still cannot book hours per item).

Projections use the mean of the capped times, not their median: hours are a sum, and
``items × mean`` is the estimate of a sum that agrees with the hours already booked (an
annotator half-way through owes as many hours as they have spent), while the median of
right-skewed times would promise less than the work takes. The median is still reported, as the
typical item. Pure: plain numbers in, records out; no gold, no store.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.errors import InvalidInputError
from scoring.records import plain_dict

__all__ = [
    "CAP_CEILING_S",
    "CAP_FLOOR_S",
    "CAP_METHOD",
    "CAP_MULTIPLE",
    "METHOD",
    "Effort",
    "TargetCost",
    "TypeTiming",
    "effort",
    "target_cost",
    "time_cap",
    "total",
    "type_timing",
]


#: The cap on an item's time: ``CAP_MULTIPLE`` × the panel's median for the type ...
CAP_MULTIPLE = 5.0
#: ... never below this many seconds ...
CAP_FLOOR_S = 60.0
#: ... nor above this many (also the cap while the type has no timed answer yet).
CAP_CEILING_S = 1800.0
SECONDS_PER_HOUR = 3600.0

CAP_METHOD = (
    f"capped_lead_time(min(max({CAP_MULTIPLE:g}*panel_median_of_type, {CAP_FLOOR_S:g}s), "
    f"{CAP_CEILING_S:g}s))"
)
#: The report's Methods phrase for effort and cost.
METHOD = (
    "Effort: an item's time is Label Studio's lead_time (seconds the annotation was open), "
    f"capped at {CAP_MULTIPLE:g}× the panel's median for its task type, never below "
    f"{CAP_FLOOR_S:g} s nor above {CAP_CEILING_S:g} s, so a task left open over a break does not "
    "count as hours of work; hours so far are the capped times summed; hours still owed and the "
    "annotator-hours for ±0.05 are items × the mean capped seconds per item (the annotator's own "
    "on that type, else the panel's), × annotators per item for the target; cost = hours × rate"
)


@dataclass(frozen=True)
class TypeTiming:
    """The panel's times on one task type: the cap they set and the panel's rate per item."""

    n_timed: int
    median_raw_s: float | None  # median lead_time before the cap (what the cap scales)
    cap_s: float
    median_s: float | None  # median capped seconds per item
    mean_s: float | None  # mean capped seconds per item: the rate projections use
    method: str = CAP_METHOD

    def to_dict(self) -> dict[str, Any]:
        """Give the record as JSON-friendly values (``status --json``, the report's data).

        Returns:
            A dict of plain values (nested records as dicts).
        """
        return plain_dict(self)


@dataclass(frozen=True)
class Effort:
    """One annotator's effort on one subset (or, from :func:`total`, on several).

    ``hours_owed`` prices the ``items_owed`` at ``seconds_per_item``; ``unpriced_items`` are
    owed items with no rate known at all (nobody has a timed answer of that type yet).
    """

    n_timed: int
    n_untimed: int
    n_capped: int
    median_s: float | None
    hours_so_far: float
    items_owed: int
    seconds_per_item: float | None
    rate_from: str | None  # "own" or "panel": whose mean capped time prices the owed items
    hours_owed: float
    unpriced_items: int
    method: str = CAP_METHOD

    def to_dict(self) -> dict[str, Any]:
        """Give the record as JSON-friendly values (``status --json``, the report's data).

        Returns:
            A dict of plain values (nested records as dicts).
        """
        return plain_dict(self)


@dataclass(frozen=True)
class TargetCost:
    """Annotator-hours (and with a rate, the cost) of a study sized for a target interval."""

    items: int
    annotators_per_item: int
    seconds_per_item: float
    annotator_hours: float
    rate_per_hour: float | None
    cost: float | None
    method: str

    def to_dict(self) -> dict[str, Any]:
        """Give the record as JSON-friendly values (the sample-size table's data).

        Returns:
            A dict of plain values (nested records as dicts).
        """
        return plain_dict(self)


def _checked_times(lead_times: Iterable[float | None]) -> tuple[list[float], int]:
    """The known lead times as floats, and how many were unknown (None)."""
    known, unknown = [], 0
    for t in lead_times:
        if t is None:
            unknown += 1
            continue
        value = float(t)
        if not value >= 0.0 or value == float("inf"):
            raise InvalidInputError(f"a lead_time must be finite and >= 0 seconds, got {t!r}")
        known.append(value)
    return known, unknown


def time_cap(panel_median_s: float | None) -> float:
    """The cap on one item's seconds for a type whose panel median is ``panel_median_s``.

    Args:
        panel_median_s: Median raw ``lead_time`` of the type over the panel; None if unknown.

    Returns:
        ``min(max(CAP_MULTIPLE × median, CAP_FLOOR_S), CAP_CEILING_S)``; the ceiling alone
        while the type has no timed answer.
    """
    if panel_median_s is None:
        return CAP_CEILING_S
    return min(max(CAP_MULTIPLE * float(panel_median_s), CAP_FLOOR_S), CAP_CEILING_S)


def type_timing(lead_times: Iterable[float | None]) -> TypeTiming:
    """The panel's timing of one task type from every annotator's ``lead_time`` on it.

    Args:
        lead_times: Seconds per annotation (None where Label Studio recorded none).

    Returns:
        The median before the cap, the cap, and the median and mean capped seconds.

    Raises:
        InvalidInputError: A negative or non-finite lead time.
    """
    known, _ = _checked_times(lead_times)
    raw_median = statistics.median(known) if known else None
    cap = time_cap(raw_median)
    capped = [min(t, cap) for t in known]
    return TypeTiming(
        n_timed=len(known),
        median_raw_s=raw_median,
        cap_s=cap,
        median_s=statistics.median(capped) if capped else None,
        mean_s=statistics.fmean(capped) if capped else None,
    )


def effort(lead_times: Sequence[float | None], items_owed: int, timing: TypeTiming) -> Effort:
    """One annotator's effort on one subset: hours so far and hours still owed.

    Args:
        lead_times: Their ``lead_time`` per annotation on the subset (None where unknown).
        items_owed: Items of the subset they have yet to answer.
        timing: The panel's :func:`type_timing` for the subset's type (its cap and rate).

    Returns:
        The record; owed items are priced at the annotator's own mean capped time, else at the
        panel's, else left unpriced.

    Raises:
        InvalidInputError: A negative count, or a negative or non-finite lead time.
    """
    if items_owed < 0:
        raise InvalidInputError(f"items owed must be >= 0, got {items_owed}")
    known, unknown = _checked_times(lead_times)
    capped = [min(t, timing.cap_s) for t in known]
    rate: float | None = None
    rate_from: str | None = None
    if capped:
        rate, rate_from = statistics.fmean(capped), "own"
    elif timing.mean_s is not None:
        rate, rate_from = timing.mean_s, "panel"
    priced = items_owed if rate is not None else 0
    return Effort(
        n_timed=len(known),
        n_untimed=unknown,
        n_capped=sum([t > timing.cap_s for t in known]),
        median_s=statistics.median(capped) if capped else None,
        hours_so_far=sum(capped) / SECONDS_PER_HOUR,
        items_owed=items_owed,
        seconds_per_item=rate,
        rate_from=rate_from,
        hours_owed=priced * (rate or 0.0) / SECONDS_PER_HOUR,
        unpriced_items=items_owed - priced,
        method=timing.method,
    )


def total(efforts: Iterable[Effort]) -> Effort:
    """Several subsets' efforts added up (one annotator's study, or one subset's panel).

    Counts and hours add; the median and the rate are not additive across types and are None.

    Args:
        efforts: The records to add.

    Returns:
        The sum, with ``method`` naming the cap rule.
    """
    items = list(efforts)
    return Effort(
        n_timed=sum([e.n_timed for e in items]),
        n_untimed=sum([e.n_untimed for e in items]),
        n_capped=sum([e.n_capped for e in items]),
        median_s=None,
        hours_so_far=sum([e.hours_so_far for e in items]),
        items_owed=sum([e.items_owed for e in items]),
        seconds_per_item=None,
        rate_from=None,
        hours_owed=sum([e.hours_owed for e in items]),
        unpriced_items=sum([e.unpriced_items for e in items]),
        method=f"sum({CAP_METHOD})",
    )


def target_cost(
    items: int | None,
    annotators_per_item: int,
    seconds_per_item: float | None,
    rate_per_hour: float | None = None,
) -> TargetCost | None:
    """Annotator-hours, and with a rate the cost, of ``items`` items answered by a panel.

    The sample-size table's "annotator-hours for ±0.05": ``items`` is its items for the target,
    ``seconds_per_item`` the measured mean capped seconds per item of the type
    (:attr:`TypeTiming.mean_s`).

    Args:
        items: Items needed (None where the table could not work it out).
        annotators_per_item: Annotators who answer each item (the subset's overlap).
        seconds_per_item: Seconds one annotator spends per item (None: no timed answer yet).
        rate_per_hour: Money per annotator-hour (``export --rate``), or None for no cost.

    Returns:
        ``items × annotators × seconds / 3600`` hours and ``hours × rate``; None where the
        items or the seconds are unknown.

    Raises:
        InvalidInputError: A negative count, time or rate.
    """
    if items is None or seconds_per_item is None:
        return None
    if items < 0 or annotators_per_item < 1 or not seconds_per_item >= 0.0:
        raise InvalidInputError(
            f"items ({items}) must be >= 0, annotators per item ({annotators_per_item}) >= 1 "
            f"and seconds per item ({seconds_per_item}) >= 0"
        )
    if rate_per_hour is not None and not rate_per_hour >= 0.0:
        raise InvalidInputError(f"a rate per hour must be >= 0, got {rate_per_hour}")
    hours = items * annotators_per_item * float(seconds_per_item) / SECONDS_PER_HOUR
    return TargetCost(
        items=items,
        annotators_per_item=annotators_per_item,
        seconds_per_item=float(seconds_per_item),
        annotator_hours=hours,
        rate_per_hour=rate_per_hour,
        cost=None if rate_per_hour is None else hours * rate_per_hour,
        method="items*annotators_per_item*mean_capped_seconds/3600"
        + ("" if rate_per_hour is None else "*rate_per_hour"),
    )
