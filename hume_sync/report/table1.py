"""Table 1: every rater's mean over subsets, ranked, with the humans' panel under it.

It is the table a reader looks at first, so it must fit a laptop window (1366 px) without
sideways scrolling: ranks, rater, mean, interval and one column per task type stay in Table 1;
the per-language means and the model metadata (long numbers, a column per language) move to
a second table with the same rows. An interval that cannot be had is ``n/e`` with its reason
as a footnote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hume_sync import task_types
from hume_sync.report.blocks import Cell, Table
from hume_sync.report.cells import count, noted, pct
from hume_sync.report.tables import PANEL_COLUMNS
from scoring.tasks import normalise_language

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport

#: Model metadata columns: (key, header); a column shows when any model knows it.
META_COLUMNS = (
    ("n_parameters", "parameters"),
    ("embed_dim", "embedding dim"),
    ("max_tokens", "max tokens"),
)


def summary_cell(e: Mapping[str, Any] | None) -> Cell:
    """A Table 1 interval in percent, or ``n/e`` with why there is none as its footnote
    (scoring.panel_summary)."""
    if not e:
        return "–"
    iv = e.get("interval")
    if iv:
        return f"[{pct(iv['low'])}, {pct(iv['high'])}]"
    return noted(e.get("note") or "not estimable")


def _mean(vals: list[float]) -> float | None:
    return sum(vals) / len(vals) if vals else None


#: One rater's row: Table 1's cells before the type columns, the means per type, the means
#: per language, and the metadata cells.
_Row = tuple[list[Cell], list[Cell], list[Cell], list[Cell]]


def _columns(report: StudyReport) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """The task types (registration order), languages and metadata columns the report has."""
    present = {s.input.task_type.name for s in report.subsets}
    types = [t for t in task_types.names() if t in present]
    langs = sorted({lang for r in report.rows for lang in r.by_language})
    meta = [(k, t) for k, t in META_COLUMNS if any(k in m for m in report.model_meta.values())]
    return types, langs, meta


def _rows(report: StudyReport) -> list[_Row]:
    """Per rater, ranked ones first, then the human panel."""
    types, langs, meta = _columns(report)
    n = len(report.ids)
    out: list[_Row] = []
    for r in report.rows:
        interval = (
            summary_cell(report.panel_summary.get("aggregate")) if r.rater.kind == "human" else "–"
        )
        lead: list[Cell] = [
            "–" if r.rank is None else str(r.rank),
            "–" if r.borda_rank is None else f"{r.borda_rank} ({r.borda:g} points)",
            r.rater.name,
            r.rater.kind,
            pct(r.mean),
            interval,
            f"{r.n_subsets}/{n}",
        ]
        known = report.model_meta.get(r.rater.name, {})
        by_type: list[Cell] = [pct(r.by_type.get(t)) for t in types]
        by_lang: list[Cell] = [pct(r.by_language.get(g)) for g in langs]
        out.append((lead, by_type, by_lang, [count(known.get(k)) for k, _ in meta]))
    # Which human, across the study: each panel entry's mean over the subsets where it is
    # estimable (unranked), with the interval of that mean (scoring.panel_summary).
    for key, label in PANEL_COLUMNS[1:]:
        got = [
            (s, e["value"])
            for s in report.subsets
            if (e := s.human_panel.get(key)) and e.get("value") is not None
        ]
        if not got:
            continue
        by_type = [pct(_mean([v for s, v in got if s.input.task_type.name == t])) for t in types]
        by_lang = [
            pct(_mean([v for s, v in got if normalise_language(s.input.language) == g]))
            for g in langs
        ]
        lead = [
            "–",
            "–",
            f"humans: {label}",
            "human panel",
            pct(_mean([v for _, v in got])),
            summary_cell(report.panel_summary.get(key)),
            f"{len(got)}/{n}",
        ]
        out.append((lead, by_type, by_lang, ["–"] * len(meta)))
    return out


def table1(report: StudyReport) -> tuple[Table, Table]:
    """Table 1 (ranks, rater, mean, interval, per task type) and its continuation (per
    language and model metadata), row for row."""
    types, langs, meta = _columns(report)
    rows = _rows(report)
    head = ["rank (mean)", "Borda rank", "rater", "kind", "mean %", "95 % interval (%)", "subsets"]
    first = Table(
        [*head, *types], [[*lead, *by_type] for lead, by_type, _, _ in rows], anchor="table-1"
    )
    second = Table(
        ["rater", *langs, *[t for _, t in meta]],
        [[lead[2], *by_lang, *m] for lead, _, by_lang, m in rows],
        anchor="table-1-languages",
    )
    return first, second
