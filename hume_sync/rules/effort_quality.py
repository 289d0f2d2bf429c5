"""Effort, cost and quality signals of a study, read from its store (issue 38).

What ``status``, the dashboard and the report show of the hours spent and owed and of who is
rushing, straight-lining or biased by position: the maths is :mod:`scoring.effort` and
:mod:`scoring.quality`; this module only gathers the stored annotations for it. It reads no
gold, so it runs while the study is open.

- **Timing** is per task type (:func:`scoring.effort.type_timing`): every non-deleted
  annotation of the type's subsets with a ``lead_time``, whatever its status (a skip or an
  answer the interface refused took time too). It sets the cap and the panel's rate.
- **Effort** is per annotator and subset: their annotations' capped times, and the items of
  the subset they have no valid answer for yet. A retired annotator owes nothing (their open
  seats went to others); a subset's open seats (no annotator yet) are owed at the panel's rate.
- **Quality** reads valid answers only, through the type's
  :meth:`~hume_sync.task_types.base.TaskType.quality_view` (what straight-lining compares, and
  the shown places where the order is shuffled): the instance's content is in the order shown.

Annotators are the store's annotator keys (``annotator-<slot>``), as every report names them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hume_sync import task_types
from hume_sync.store import AnnotationRow, InstanceRow, Store, SubsetRow, annotator_key
from scoring import effort as effort_maths
from scoring import quality
from scoring.effort import Effort, TargetCost, TypeTiming
from scoring.quality import ShownAnswer, Signal
from scoring.records import plain_dict

#: The signals a seat is flagged for, as :class:`SeatReport` names them, and what they read as.
SIGNAL_NAMES = {
    "fast": "fast answers",
    "straight_lining": "straight-lining",
    "position_bias": "position bias",
}


@dataclass(frozen=True)
class Flag:
    """A raised flag: which signal (a key of :data:`SIGNAL_NAMES`), on which subset (None:
    pooled over the annotator's subsets), and the signal that raised it, so that whoever shows
    the flag shows its number without looking it up again."""

    signal: str
    subset: str | None
    measured: Signal

    def __str__(self) -> str:
        where = "overall" if self.subset is None else f"on {self.subset}"
        return f"{SIGNAL_NAMES[self.signal]} {where}"


@dataclass(frozen=True)
class SeatReport:
    """One annotator on one subset: effort and the three quality signals."""

    subset: str
    annotator: str
    effort: Effort
    fast: Signal
    straight_lining: Signal
    position_bias: Signal


@dataclass(frozen=True)
class SubsetEffort:
    """One subset: its panel's hours so far and owed.

    Open seats are owed at the panel's rate; ``overlap`` is what the sample-size table needs
    to turn items into annotator-hours.
    """

    subset: str
    task_type: str
    n_items: int
    overlap: int
    open_seats: int
    effort: Effort


@dataclass(frozen=True)
class AnnotatorSummary:
    """One annotator over the study.

    Hours added up, fast answers and position bias pooled over their subsets, and each flag
    raised: a subset's (``str`` reads ``"<signal> on <subset>"``), and a pooled one
    (``"<signal> overall"``) where no subset's is raised for that signal.
    """

    annotator: str
    retired: bool
    effort: Effort
    fast: Signal
    position_bias: Signal
    flags: tuple[Flag, ...]


@dataclass(frozen=True)
class EffortQuality:
    """Everything :func:`effort_quality` read: per type, per subset, per seat, per annotator."""

    types: Mapping[str, TypeTiming]
    subsets: tuple[SubsetEffort, ...]
    seats: tuple[SeatReport, ...]
    annotators: tuple[AnnotatorSummary, ...]
    effort_method: str = effort_maths.METHOD
    quality_method: str = quality.METHOD

    def target_cost(
        self, subset: str, items: int | None, rate_per_hour: float | None = None
    ) -> TargetCost | None:
        """The annotator-hours (and cost) of ``items`` items of ``subset``'s type.

        Args:
            subset: A subset key of the study.
            items: The sample-size table's items for ±0.05 (None: not worked out).
            rate_per_hour: ``export --rate``, or None for hours only.

        Returns:
            :func:`scoring.effort.target_cost` at the subset's overlap and its type's mean
            capped seconds per item; None where either is unknown.

        Raises:
            KeyError: ``subset`` is not a subset of the study.
        """
        sub = next((s for s in self.subsets if s.subset == subset), None)
        if sub is None:
            raise KeyError(subset)
        timing = self.types[sub.task_type]
        return effort_maths.target_cost(items, sub.overlap, timing.mean_s, rate_per_hour)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly values for ``status --json`` and the report's data."""
        return plain_dict(self)


def _others_medians(times: Mapping[str, list[float]]) -> dict[str, float | None]:
    """Per annotator, the median of everyone else's times (None: nobody else has one)."""
    owners = np.array([who for who, ts in times.items() for _ in ts], dtype=object)
    values = np.array([t for ts in times.values() for t in ts], dtype=float)
    out: dict[str, float | None] = {}
    for who in times:
        rest = values[owners != who]
        out[who] = float(np.median(rest)) if rest.size else None
    return out


def _project_holders(store: Store) -> dict[str, set[str]]:
    """Per subset, the annotators with a project there (one query for the whole study)."""
    out: dict[str, set[str]] = defaultdict(set)
    for p in store.slot_projects():
        out[p.subset_key].add(annotator_key(p.slot))
    return out


def effort_quality(
    store: Store,
    seats: Mapping[str, Sequence[int | None]] | None = None,
    *,
    annotations: Mapping[str, Sequence[AnnotationRow]] | None = None,
    instances: Mapping[str, Sequence[InstanceRow]] | None = None,
    subsets: Sequence[SubsetRow] | None = None,
) -> EffortQuality:
    """Effort and quality signals per subset × annotator, per subset and per annotator.

    Args:
        store: The open study store.
        seats: Subset → its seats' slots, None for an open seat (``plan_seats`` of
            :mod:`hume_sync.labelstudio.annotators`, which ``status`` already computes). Without
            it, a subset's seats are the annotators with a project or an annotation there, and
            its open seats are the rest of its overlap.
        annotations: Subset → ``store.annotations(subset)`` (deleted ones left out), where the
            caller has read them already: the export reads each subset's rows once for the
            scores and for this (issue 38). Read from the store where absent.
        instances: Subset → ``store.instances(subset)``, likewise.
        subsets: ``store.subsets()``, likewise (an empty sequence is read from the store).

    Returns:
        The :class:`EffortQuality` of the study.
    """
    retired = {a.key for a in store.annotators() if a.retired_at is not None}
    subsets = subsets or store.subsets()
    rows = {
        s.key: store.annotations(s.key) if annotations is None else annotations[s.key]
        for s in subsets
    }
    items_of = {
        s.key: store.instances(s.key) if instances is None else instances[s.key] for s in subsets
    }
    by_type: dict[str, list[float | None]] = defaultdict(list)
    valid_times: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    # the rows grouped once: each subset's rows by annotator (all, the valid ones and their
    # timed seconds, each in the store's order) for the type's timing and the seats below
    by_annotator: dict[str, dict[str, list[AnnotationRow]]] = {}
    valid_by: dict[str, dict[str, list[AnnotationRow]]] = {}
    timed_by: dict[str, dict[str, list[float]]] = {}
    for s in subsets:
        by_type[s.task_type].extend([r.lead_time for r in rows[s.key]])
        mine_of = by_annotator[s.key] = defaultdict(list)
        for r in rows[s.key]:
            mine_of[r.annotator].append(r)
        valid_of = valid_by[s.key] = defaultdict(list)
        timed_of = timed_by[s.key] = defaultdict(list)
        for who, mine in mine_of.items():
            valid = valid_of[who] = [r for r in mine if r.status == "valid"]
            timed = timed_of[who] = [float(r.lead_time) for r in valid if r.lead_time is not None]
            if timed:
                valid_times[s.task_type][who].extend(timed)
    timings = {t: effort_maths.type_timing(times) for t, times in by_type.items()}
    others = {t: _others_medians(times) for t, times in valid_times.items()}
    for s in subsets:
        timings.setdefault(s.task_type, effort_maths.type_timing([]))

    seat_reports: list[SeatReport] = []
    subset_efforts: list[SubsetEffort] = []
    pooled: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    project_holders: dict[str, set[str]] | None = None
    for s in subsets:
        kind, timing = task_types.get(s.task_type), timings[s.task_type]
        n_items = len(items_of[s.key])
        if seats is not None and s.key in seats:
            holders = {annotator_key(x) for x in seats[s.key] if x is not None}
            holders |= set(by_annotator[s.key])
            open_seats = sum(x is None for x in seats[s.key])
        else:
            if project_holders is None:
                project_holders = _project_holders(store)
            holders = project_holders[s.key] | set(by_annotator[s.key])
            open_seats = max(0, s.overlap - len(holders))
        contents = {i.hume_id: i.content for i in items_of[s.key]}
        # the subset's valid answers viewed in one batch (an instance's content read once),
        # then cut back into each annotator's, in their order
        valid_mine = valid_by[s.key]
        flat = [r for valid in valid_mine.values() for r in valid]
        views = kind.quality_views(
            [r.answer for r in flat], [r.hume_id for r in flat], contents, s.config
        )
        views_of: dict[str, list[ShownAnswer]] = defaultdict(list)
        start = 0
        for who, valid in valid_mine.items():
            end = start + len(valid)
            views_of[who] = [v for v in views[start:end] if v is not None]
            start = end
        others_of = others.get(s.task_type, {})
        efforts = []
        for who in sorted(holders):
            mine = by_annotator[s.key][who]
            valid = valid_mine[who]
            owed = 0 if who in retired else n_items - len({r.hume_id for r in valid})
            e = effort_maths.effort([r.lead_time for r in mine], owed, timing)
            efforts.append(e)
            shown = views_of[who]
            timed = timed_by[s.key][who]
            ref = others_of.get(who)
            fast = quality.fast_answers(timed, [ref] * len(timed))
            n_options = next((v.n_options for v in shown), None)
            straight = quality.straight_lining([v.choice for v in shown], n_options)
            position = quality.position_bias(shown)
            seat = SeatReport(s.key, who, e, fast, straight, position)
            seat_reports.append(seat)
            mine_pooled = pooled[who]
            mine_pooled["times"] += timed
            mine_pooled["refs"] += [ref] * len(timed)
            mine_pooled["shown"] += shown
            mine_pooled["efforts"].append(e)
            mine_pooled["flags"] += [
                Flag(key, s.key, signal)
                for key in SIGNAL_NAMES
                if (signal := getattr(seat, key)).flagged
            ]
        efforts.append(effort_maths.effort([], open_seats * n_items, timing))
        subset_efforts.append(
            SubsetEffort(
                s.key, s.task_type, n_items, s.overlap, open_seats, effort_maths.total(efforts)
            )
        )
    return EffortQuality(
        types=timings,
        subsets=tuple(subset_efforts),
        seats=tuple(seat_reports),
        annotators=tuple(_summary(who, p, who in retired) for who, p in sorted(pooled.items())),
    )


def _summary(who: str, pooled: Mapping[str, list[Any]], retired: bool) -> AnnotatorSummary:
    """One annotator's totals and pooled signals from their seats' gathered values."""
    fast = quality.fast_answers(pooled["times"], pooled["refs"])
    position = quality.position_bias(pooled["shown"])
    flags: list[Flag] = list(pooled["flags"])
    for key, signal in (("fast", fast), ("position_bias", position)):
        # pooled over subsets, a signal too weak in each one alone can be flagged
        if signal.flagged and not any(f.signal == key for f in flags):
            flags.append(Flag(key, None, signal))
    total = effort_maths.total(pooled["efforts"])
    return AnnotatorSummary(who, retired, total, fast, position, tuple(flags))
