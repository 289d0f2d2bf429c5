"""Effort and quality signals as ``status`` shows them (text and ``--json``) and the dashboard.

The numbers are :func:`hume_sync.rules.effort_quality.effort_quality`'s, read from the answers
the last ``pull`` stored (Label Studio's ``lead_time`` for the hours; the answers for the
signals; never gold, so they are shown while the study is open). ``status`` itself reads
progress from Label Studio live, so the block names the pull it is as of. One dictionary
(:func:`effort_json`) feeds the text (:func:`effort_lines`), ``status --json`` and the
dashboard, so the three cannot disagree.

It reads every stored answer and instance (2.3–5.3 s at 100,000 answers, issue 38), so the
block is kept in the store (:mod:`hume_sync.store.effort_cache`) until the answers, the plan,
the annotators or the seats change: the first ``status`` after a pull that brought changes
computes it, the next ones read it back, the same numbers to the bit (JSON keeps a float's
shortest repr, which reads back as the same float, and the block is JSON either way).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hume_sync.labelstudio.annotators import plan_seats
from hume_sync.rules.display import format_duration
from hume_sync.store import PULLED_AT, Store

if TYPE_CHECKING:
    from hume_sync.rules.effort_quality import Flag, SeatReport
    from hume_sync.store import AnnotatorRow
    from scoring.quality import Signal


def _signal(signal: Signal) -> dict[str, Any]:
    """What a row shows of a signal (its method and details stay in ``detail``)."""
    return {
        "value": signal.value,
        "flagged": signal.flagged,
        "threshold": signal.threshold,
        "n": signal.n,
        "note": signal.note,
    }


def _worst_straight_lining(seats: list[SeatReport]) -> dict[str, Any]:
    """Straight-lining is per subset (answers of one type): the annotator's row shows the
    flagged seat with the highest share, else the highest share."""
    shown = [s.straight_lining for s in seats if s.straight_lining.value is not None]
    if not shown:
        return {"value": None, "flagged": False, "threshold": None, "n": 0, "note": "no answer"}
    return _signal(max(shown, key=lambda s: (s.flagged, s.value)))


def _flag(flag: Flag) -> dict[str, Any]:
    """A flag as ``status --json`` gives it: its text, and the number behind it."""
    m = flag.measured
    return {"flag": str(flag), "signal": flag.signal, "subset": flag.subset, "value": m.value,
            "threshold": m.threshold, "n": m.n}  # fmt: skip


def effort_json(store: Store) -> dict[str, Any]:
    """Effort and quality signals per annotator, per subset and in total (JSON-friendly).

    The block kept in the store where it was computed from the same answers, plan, annotators
    and seats; else computed now and kept (best effort: ``status`` takes no lock, and a store
    it cannot write keeps nothing).

    Args:
        store: The open study store.

    Returns:
        ``as_of`` (the last pull, None before one), ``annotators`` (slot, key, email, hours so
        far and owed, median seconds per item, the three signals, flags), ``subsets``,
        ``total`` (hours so far and owed, items not priced yet), ``methods`` and ``detail``
        (every seat's numbers, :meth:`EffortQuality.to_dict`).
    """
    kept = store.kept_effort()  # the generation first: rows read after it are at least as new
    seats = plan_seats(store)
    people = store.annotators()
    inputs = _inputs(store, seats, people)
    text = kept.block_for(inputs)
    if text is None:
        text = json.dumps(computed_effort(store, seats, people))
        store.keep_effort(kept.generation, inputs, text)
    return {"as_of": store.meta().get(PULLED_AT), **json.loads(text)}


#: The modules whose code makes the block (besides each task type's ``quality_view``, in its
#: ``interface.py``): a block kept by other code is not read back.
_CODE_MODULES = (
    "hume_sync.workflow.status_effort",
    "hume_sync.rules.effort_quality",
    "scoring.effort",
    "scoring.quality",
    "hume_sync.task_types.base",
)


@cache
def _code_digest() -> str:
    """sha256 of the source that computes the block, read once a process (without importing
    it: the cached path needs none of NumPy). Where the source cannot be read, a digest of
    this process alone: its blocks are kept but never read back by another."""
    h = hashlib.sha256()
    try:
        files = [Path(str(find_spec(name).origin)) for name in _CODE_MODULES]  # type: ignore[union-attr]
        files += sorted(files[-1].parent.glob("*/interface.py"))
        for f in files:
            h.update(f.read_bytes())
    except (OSError, AttributeError, ImportError, ValueError):
        h.update(os.urandom(16))
    return h.hexdigest()


def _inputs(store: Store, seats: Mapping[str, list[int | None]], people: list[AnnotatorRow]) -> str:
    """What the block is computed from besides the answers and the plan (which move the
    store's answers generation): the code, the annotators as shown, the seats, the subsets'
    panels."""
    return json.dumps(
        {
            "code": _code_digest(),
            "annotators": [[a.slot, a.email, a.retired_at, list(a.languages)] for a in people],
            "seats": seats,
            "subsets": [[s.key, s.task_type, s.overlap] for s in store.subsets()],
        },
        sort_keys=True,
    )


def computed_effort(
    store: Store, seats: Mapping[str, list[int | None]], people_rows: list[AnnotatorRow]
) -> dict[str, Any]:
    """The block (all but ``as_of``) computed from the store's rows, as :func:`effort_json`
    keeps it (the benchmark and the tests compare the kept block with it)."""
    from hume_sync.rules.effort_quality import effort_quality

    eq = effort_quality(store, seats)
    people = {a.key: a for a in people_rows}
    annotators = []
    for a in eq.annotators:
        row = people.get(a.annotator)
        annotators.append(
            {
                "slot": None if row is None else row.slot,
                "annotator": a.annotator,
                "email": None if row is None else row.email,
                "retired": a.retired,
                "median_s": a.effort.median_s,
                "hours_so_far": a.effort.hours_so_far,
                "hours_owed": a.effort.hours_owed,
                "items_owed": a.effort.items_owed,
                "fast": _signal(a.fast),
                "straight_lining": _worst_straight_lining(
                    [s for s in eq.seats if s.annotator == a.annotator]
                ),
                "position_bias": _signal(a.position_bias),
                "flags": [_flag(f) for f in a.flags],
            }
        )
    subsets = [
        {
            "subset": s.subset,
            "task_type": s.task_type,
            "open_seats": s.open_seats,
            "hours_so_far": s.effort.hours_so_far,
            "hours_owed": s.effort.hours_owed,
            "unpriced_items": s.effort.unpriced_items,
        }
        for s in eq.subsets
    ]
    return {
        "annotators": annotators,
        "subsets": subsets,
        "total": {
            "hours_so_far": sum(s["hours_so_far"] for s in subsets),
            "hours_owed": sum(s["hours_owed"] for s in subsets),
            "unpriced_items": sum(s["unpriced_items"] for s in subsets),
        },
        "methods": {"effort": eq.effort_method, "quality": eq.quality_method},
        "detail": eq.to_dict(),
    }


def _hours(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} h"


def _share(signal: Mapping[str, Any]) -> str:
    value = signal["value"]
    text = "-" if value is None else f"{value:.0%}"
    return text + ("!" if signal["flagged"] else "")


def _p(signal: Mapping[str, Any]) -> str:
    value = signal["value"]
    text = "-" if value is None else f"p={value:.3g}"
    return text + ("!" if signal["flagged"] else "")


def effort_lines(data: Mapping[str, Any]) -> list[str]:
    """The effort and quality block of ``status``'s text (from :func:`effort_json`).

    Args:
        data: What :func:`effort_json` returned.

    Returns:
        The block's lines: a heading naming the pull, one row per annotator, the flags with
        their numbers, and the totals.
    """
    as_of = data["as_of"] or "no pull yet"
    lines = [
        f"Effort and quality signals (from the answers pulled at {as_of}; no gold):",
        f"{'slot':>4}  {'annotator':<30} {'median':>7} {'hours so far':>12} {'hours owed':>10} "
        f"{'fast':>6} {'same answer':>11} {'position':>10}",
    ]
    for a in data["annotators"]:
        who = (a["email"] or a["annotator"])[:30]
        lines.append(
            f"{a['slot'] if a['slot'] is not None else '-':>4}  {who:<30} "
            f"{format_duration(a['median_s']):>7} {_hours(a['hours_so_far']):>12} "
            f"{_hours(a['hours_owed']):>10} {_share(a['fast']):>6} "
            f"{_share(a['straight_lining']):>11} {_p(a['position_bias']):>10}"
        )
    if not data["annotators"]:
        lines.append("      no answers pulled yet")
    for a in data["annotators"]:
        for f in a["flags"]:
            value = f["value"]
            number = f"p = {value:.3g}" if f["signal"] == "position_bias" else f"{value:.0%}"
            lines.append(
                f"flag: {a['email'] or a['annotator']}: {f['flag']} ({number} of {f['n']}, "
                f"threshold {f['threshold']:.3g})"
            )
    t = data["total"]
    unpriced = (
        f"; {t['unpriced_items']} item(s) not priced yet (no timed answer of their type)"
        if t["unpriced_items"]
        else ""
    )
    lines.append(
        f"Hours: {t['hours_so_far']:.2f} spent, {t['hours_owed']:.2f} still owed{unpriced} "
        "(an item's time is its lead_time, capped; '!' marks a flag)"
    )
    return lines
