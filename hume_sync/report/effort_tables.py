"""The report's effort, cost and quality-signal blocks (issue 38), as neutral blocks.

The numbers come from :func:`hume_sync.rules.effort_quality.effort_quality` (hours from Label
Studio's ``lead_time``, capped; signals without gold) and, beside each annotator's signals,
from the "which human" panel already in the report model (their own score against gold, and
against the others' consensus): nothing is recomputed here. As in the other tables, a cell holds
a number and a flag mark; why a number is missing, or not flagged, is a footnote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hume_sync import task_types
from hume_sync.report.blocks import Block, Cell, Paragraph, Table
from hume_sync.report.cells import f, noted
from hume_sync.task_types.base import TaskType

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport
    from hume_sync.rules.effort_quality import EffortQuality
    from scoring.effort import Effort
    from scoring.quality import Signal
    from scoring.subset_report import SubsetReport

#: The mark of a flagged signal (as the dashboard and ``status`` show it).
FLAG = "⚑"
NO_TIMING = (
    "No answer in this study has a Label Studio lead_time (seconds per annotation): no hours, "
    "cost or fast-answer signal can be given; straight-lining and position bias need no times."
)
NO_TIMED_TYPE = "no timed answer of this task type (no lead_time): nothing to price it with"
RETIRED = "retired: owes nothing (their open seats went to others)"
#: Columns that need times: left out of a study without any lead_time.
TIMED_COLUMNS = {"median s per item", "hours so far", "hours still owed", "fast answers"}


def has_timing(eq: EffortQuality | None) -> bool:
    """Whether any annotation of the study has a ``lead_time``."""
    return eq is not None and any(t.n_timed for t in eq.types.values())


def hours(h: float) -> str:
    """Annotator-hours to two places (36 s)."""
    return f(float(h), 2)


def signal_cell(signal: Signal, *, p_value: bool = False) -> Cell:
    """The signal's number (``p = …`` for a test), ⚑ when flagged; why there is no number,
    or why it cannot be flagged, as a footnote."""
    if signal.value is None:
        return noted(signal.note or "not computable")
    text = f"p = {f(signal.value)}" if p_value else f(signal.value)
    if signal.flagged:
        text = f"{text} {FLAG}"
    return noted(f"never flagged: {signal.note}", text) if signal.note else text


def _so_far_cell(e: Effort, cap_s: float | None = None) -> Cell:
    """Hours so far; answers capped (at ``cap_s``, where one type's) or without a lead_time
    as a footnote."""
    reasons = []
    if e.n_capped:
        at = "" if cap_s is None else f" at {cap_s:g} s"
        reasons.append(f"{e.n_capped} answer(s) capped{at} (a task left open; Methods)")
    if e.n_untimed:
        reasons.append(f"{e.n_untimed} answer(s) without a lead_time, not counted")
    return noted("; ".join(reasons), hours(e.hours_so_far)) if reasons else hours(e.hours_so_far)


def _owed_cell(e: Effort, retired: bool) -> Cell:
    """Hours still owed and for how many items; how they were priced as a footnote."""
    text = f"{hours(e.hours_owed)} ({e.items_owed} items)"
    if retired:
        return noted(RETIRED, text)
    if e.unpriced_items:
        return noted(f"{e.unpriced_items} item(s) owed not priced: {NO_TIMED_TYPE}", text)
    if e.items_owed and e.rate_from == "panel":
        return noted("priced at the panel's mean capped time: no timed answer of their own", text)
    return text


UNSHUFFLED = "not applicable: no answer here was shown in a shuffled order"


def _position_cell(signal: Signal, answered: bool) -> Cell:
    """Position bias; "not applicable" where answers were given but none in a shuffled
    order (a fixed order cannot tell a preferred place from a preferred answer)."""
    if signal.n == 0 and answered:
        return noted(UNSHUFFLED)
    return signal_cell(signal, p_value=True)


def _gold_cell(panel: Mapping[str, Any], name: str) -> Cell:
    """The annotator's own score against gold, from the "which human" panel."""
    entry = (panel.get("annotators") or {}).get(name)
    if not entry:
        return noted("no scored answer (invalid, late or none yet)")
    if entry.get("value") is None:
        return noted(entry.get("note") or "not estimable")
    return f(entry["value"])


def _others_cell(panel: Mapping[str, Any], name: str) -> Cell:
    """The annotator scored against the others' consensus (the panel's leave-one-out noise
    ceiling, per annotator)."""
    ceiling = panel.get("noise_ceiling") or {}
    value = (ceiling.get("per_annotator") or {}).get(name)
    if value is not None:
        return f(value)
    if ceiling.get("value") is None:
        return noted(ceiling.get("note") or "not estimable")
    return noted("not estimable: too few items shared with the others' consensus")


def has_quality_view(type_name: str) -> bool:
    """Whether the task type gives its answers a form the signals compare (its own
    ``quality_view``); clustering, a partition of texts, has none."""
    return type(task_types.get(type_name)).quality_view is not TaskType.quality_view


def _columns(timed: bool, names: list[str]) -> list[int]:
    """Indexes of ``names`` to keep: all with times, the untimed ones without."""
    return [i for i, n in enumerate(names) if timed or n not in TIMED_COLUMNS]


def annotator_table(report: StudyReport, eq: EffortQuality) -> Table:
    """Per annotator over the study: hours, owed hours, pooled signals and every flag."""
    names = report.annotator_names
    header = [
        "annotator",
        "hours so far",
        "hours still owed",
        "fast answers",
        "position bias",
        "flags",
    ]
    keep = _columns(has_timing(eq), header)
    answered = {seat.annotator for seat in eq.seats if seat.straight_lining.n > 0}
    rows: list[list[Cell]] = []
    for a in eq.annotators:
        who = names.get(a.annotator, a.annotator) + (" (retired)" if a.retired else "")
        row: list[Cell] = [
            who,
            _so_far_cell(a.effort),
            _owed_cell(a.effort, a.retired),
            signal_cell(a.fast),
            _position_cell(a.position_bias, a.annotator in answered),
            [f"{FLAG} {x}" for x in a.flags] or "none",
        ]
        rows.append([row[i] for i in keep])
    return Table([header[i] for i in keep], rows, anchor="effort-annotators")


def seat_table(report: StudyReport, eq: EffortQuality) -> Table:
    """Per subset and annotator: time per item, hours, owed hours, the three signals, and
    beside them the annotator's agreement with gold and with the others."""
    names = report.annotator_names
    panels: dict[str, SubsetReport] = {s.input.key: s for s in report.subsets}
    subsets = {s.subset: s for s in eq.subsets}
    retired = {a.annotator for a in eq.annotators if a.retired}
    header = [
        "subset",
        "annotator",
        "median s per item",
        "hours so far",
        "hours still owed",
        "fast answers",
        "straight-lining",
        "position bias",
        "vs gold",
        "vs the others' consensus",
    ]
    keep = _columns(has_timing(eq), header)
    rows: list[list[Cell]] = []
    for seat in eq.seats:
        name = names.get(seat.annotator, seat.annotator)
        rep = panels.get(seat.subset)
        panel = rep.human_panel if rep is not None else {}
        type_name = subsets[seat.subset].task_type
        timing, e = eq.types[type_name], seat.effort
        viewed = has_quality_view(type_name)
        not_compared = noted(f"not applicable: a {type_name} answer has no form to compare")
        median = f(e.median_s, 1) if e.median_s is not None else noted("no timed answer yet")
        row: list[Cell] = [
            seat.subset,
            name,
            median,
            _so_far_cell(e, timing.cap_s),
            _owed_cell(e, seat.annotator in retired),
            signal_cell(seat.fast),
            signal_cell(seat.straight_lining) if viewed else not_compared,
            _position_cell(seat.position_bias, seat.straight_lining.n > 0)
            if viewed
            else not_compared,
            _gold_cell(panel, name) if panel else noted("no human score on this subset"),
            _others_cell(panel, name) if panel else noted("no human score on this subset"),
        ]
        rows.append([row[i] for i in keep])
    return Table([header[i] for i in keep], rows, anchor="effort-seats")


def summary_lines(eq: EffortQuality) -> list[str]:
    """The study's hours in one line, and each task type's timing (the rate and the cap)."""
    so_far = sum(s.effort.hours_so_far for s in eq.subsets)
    owed = sum(s.effort.hours_owed for s in eq.subsets)
    open_seats = sum(s.open_seats for s in eq.subsets)
    line = f"Annotator-hours so far: {hours(so_far)}; still owed: {hours(owed)}"
    if open_seats:
        line += f" (with {open_seats} open seat(s) priced at the panel's rate)"
    lines = [line + "."]
    for name, t in sorted(eq.types.items()):
        if t.n_timed:
            lines.append(
                f"{name}: median {f(t.median_s, 1)} s per item, mean {f(t.mean_s, 1)} s "
                f"(capped at {t.cap_s:g} s), over {t.n_timed} timed answer(s)."
            )
    return lines


def effort_blocks(report: StudyReport) -> list[Block]:
    """The section's blocks: the study's hours, per annotator, per subset and annotator."""
    eq = report.effort
    if eq is None:
        return [Paragraph(report.effort_note or "No effort was gathered.", warn=True)]
    if not eq.seats:
        return [Paragraph("No annotator has a seat in this study yet.")]
    blocks: list[Block] = []
    if has_timing(eq):
        blocks.append(Paragraph(" ".join(summary_lines(eq))))
    else:
        blocks.append(Paragraph(NO_TIMING))
    blocks += [annotator_table(report, eq), seat_table(report, eq)]
    return blocks


def target_cells(report: StudyReport, subset: str, items: Any) -> list[Cell]:
    """The sample-size table's annotator-hours for ±0.05 (and cost, with ``export --rate``)."""
    eq, rate = report.effort, report.rate_per_hour
    width = 1 if rate is None else 2
    if items is None:
        return ["–"] * width  # the items column's method says why
    if eq is None:
        return [noted(report.effort_note or "no effort gathered")] * width
    cost = eq.target_cost(subset, int(items), rate)
    if cost is None:
        return [noted(NO_TIMED_TYPE)] * width
    cells: list[Cell] = [hours(cost.annotator_hours)]
    if rate is not None:
        cells.append(f(cost.cost, 2))
    return cells
