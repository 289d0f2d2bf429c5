"""Which human, across the study: each panel entry's mean over subsets, with its interval.

Table 1 of the report gives one line per kind of human (HUME's aggregate, the mean, best and
worst annotator, the Dawid–Skene aggregate; :mod:`scoring.panel`) as the mean over the subsets
where that entry has a value. Its interval combines the per-subset intervals the report prints
beside each entry (:func:`scoring.intervals.mover_mean`: the subsets hold disjoint items, so
their errors are independent), so nothing is resampled twice. Where one of those subsets has
no interval, the mean's interval is "not estimable" and names that subset and its reason; the
noise ceiling has no interval by construction (its per-subset entries have none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import scoring.intervals as intervals
from scoring.errors import ScoringError
from scoring.records import Interval

#: The panel entries Table 1 summarises, in its order.
SUMMARISED = (
    "aggregate",
    "mean_annotator",
    "best_annotator",
    "worst_annotator",
    "dawid_skene",
    "noise_ceiling",
)
ZERO_WIDTH = 1e-9
METHOD = (
    "Table 1's human rows (HUME's aggregate and the panel: mean, best, worst annotator, "
    "Dawid–Skene): the mean over the subsets where the entry has a value; its 95 % interval "
    "combines the per-subset intervals printed in 'Which human, per subset' by MOVER (Zou & "
    "Donner 2008: mean ± sqrt(Σ distances to each bound²) / k, the subsets' items being "
    "disjoint); 'not estimable' names a subset without an interval"
)


def _interval(d: Mapping[str, Any]) -> Interval:
    return Interval(
        estimate=float(d.get("estimate", 0.0)),
        low=float(d["low"]),
        high=float(d["high"]),
        level=float(d.get("level", 0.95)),
        method=str(d.get("method", "")),
    )


def summarise_entry(got: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """One entry's mean over ``(subset, entry)`` pairs that have a value, with its interval.

    Args:
        got: ``(subset id, panel entry)`` pairs, each entry with a value.

    Returns:
        ``value``, ``interval`` (MOVER over the subsets' intervals) and ``note`` saying why
        there is no interval where there is none.
    """
    if not got:
        return {"value": None, "interval": None, "note": "not estimable on any subset"}
    values = [float(e["value"]) for _, e in got]
    out: dict[str, Any] = {
        "value": sum(values) / len(values),
        "interval": None,
        "note": None,
        "n_subsets": len(got),
        "subsets": [sid for sid, _ in got],
    }
    missing = [(sid, e) for sid, e in got if not e.get("interval")]
    if missing:
        sid, e = missing[0]
        more = f" and {len(missing) - 1} more subset(s)" if len(missing) > 1 else ""
        why = (e.get("note") or "none").removeprefix("not estimable: ")
        out["note"] = f"not estimable: no interval on {sid}{more} ({why})"
        return out
    try:
        iv = intervals.mover_mean(values, [_interval(e["interval"]) for _, e in got])
    except ScoringError as exc:
        out["note"] = f"not estimable: {exc}"
        return out
    if iv.high - iv.low <= ZERO_WIDTH:
        out["note"] = "not estimable: the combined interval has zero width"
        return out
    out["interval"] = iv.to_dict()
    out["method"] = "MOVER over the per-subset intervals"
    return out


def summarise(panels: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Every summarised panel entry over ``(subset id, human_panel)`` pairs.

    Args:
        panels: ``(subset id, human_panel)`` pairs, one per subset.

    Returns:
        ``{entry: summary}`` for each of :data:`SUMMARISED`.
    """
    return {
        key: summarise_entry(
            [(sid, e) for sid, p in panels if (e := p.get(key)) and e.get("value") is not None]
        )
        for key in SUMMARISED
    }


__all__ = ["METHOD", "SUMMARISED", "summarise", "summarise_entry"]
