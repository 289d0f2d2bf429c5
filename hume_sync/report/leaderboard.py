"""`hume-sync leaderboard`: the HUME(v1) table from a folder of MTEB result files.

Everything is computed by :mod:`scoring`; this module only selects, formats and prints.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hume_sync import task_types
from hume_sync.report.model import known_types
from hume_sync.report.safe_text import csv_rows, md_cell, md_text
from scoring.comparison import (
    RANK_METHOD,
    HumanVsModels,
    RankRow,
    SubsetInfo,
    catalogue,
    human_vs_models,
    rank_raters,
    select_subsets,
)
from scoring.results import ResultsCollection, read_results_dir

FORMATS = ("table", "markdown", "csv", "json")

METHOD = (
    "mean of main_score over task-language subsets, each weighted equally; French subsets "
    "excluded (HUME(v1)); only raters with every subset are ranked (competition ranks); "
    "best/median model per subset over ranked models; newest revision per model unless chosen; "
    "Borda rank (last column, as the MTEB leaderboard shows): per subset one point per ranked "
    "rater beaten and ½ per tie, summed over subsets; " + RANK_METHOD
)


@dataclass
class Leaderboard:
    """The computed leaderboard, ready to format."""

    rows: list[RankRow]
    subsets: dict[str, SubsetInfo]
    human: HumanVsModels | None
    collection: ResultsCollection
    languages: list[str] | None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": METHOD,
            "languages": self.languages,
            "n_subsets": len(self.subsets),
            "subsets": list(self.subsets),
            "rows": [r.to_dict() for r in self.rows],
            "problems": [str(p) for p in self.collection.problems],
        }
        if self.human is not None:
            out["human_vs_models"] = self.human.to_dict()
        return out


def build(
    results_dir: str,
    *,
    languages: Sequence[str] | None = None,
    revisions: dict[str, str] | None = None,
    strict: bool = False,
) -> Leaderboard:
    """Read ``results_dir`` and compute the table (see :mod:`scoring.comparison` for the rules)."""
    collection = read_results_dir(
        results_dir, known_types(), revisions=revisions, on_error="raise" if strict else "skip"
    )
    subsets = select_subsets(catalogue(collection.raters), languages=languages)
    rows = rank_raters(collection.raters, subsets)
    humans = [r for r in rows if r.rater.kind == "human"]
    ranked_models = [r.rater for r in rows if r.rater.kind == "model" and r.rank is not None]
    human = human_vs_models(humans[0].rater, ranked_models, subsets) if humans else None
    return Leaderboard(rows, subsets, human, collection, list(languages) if languages else None)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.2f}"


def _interval(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"{_pct(low)}–{_pct(high)}"


def _published(row: RankRow) -> str:
    """The interval the rater's own files publish (humans), or why there is none."""
    if row.rater.kind != "human":
        return ""
    iv = row.published.get("interval")
    return _interval(*iv) if iv else "not in files"


def _table_rows(board: Leaderboard) -> tuple[list[str], list[list[str]]]:
    present = {i.task_type for i in board.subsets.values()}
    types = [t for t in task_types.names() if t in present]
    header = [
        "rank",
        "model",
        "kind",
        "mean %",
        "mean 95 %",
        "published 95 %",
        "rank 95 %",
        "group",
        "subsets",
        *[f"{t} %" for t in types],
        "Borda rank",
    ]
    body = []
    for r in board.rows:
        body.append(
            [
                "" if r.rank is None else str(r.rank),
                r.rater.label,
                r.rater.kind,
                _pct(r.mean),
                _interval(r.mean_low, r.mean_high),
                _published(r),
                "" if r.rank_low is None else f"{r.rank_low}–{r.rank_high}",
                "" if r.group is None else str(r.group),
                f"{r.n_subsets}/{len(board.subsets)}",
                *[_pct(r.by_type.get(t)) for t in types],
                "" if r.borda_rank is None else str(r.borda_rank),
            ]
        )
    return header, body


def _summary(board: Leaderboard) -> list[str]:
    lines = []
    if board.human is not None:
        h = board.human.to_dict()
        n = h["n_subsets"]
        lines.append(
            f"Humans beat the best model on {h['wins_vs_best']} of {n} subsets "
            f"({100 * (h['share_vs_best'] or 0):.1f} %) and the median model on "
            f"{h['wins_vs_median']} of {n} ({100 * (h['share_vs_median'] or 0):.1f} %)."
        )
        hard = [s["subset"] for s in h["subsets"] if s["difficulty"] == "hard"]
        if hard:
            lines.append(f"Hard for humans (score < 0.7): {', '.join(hard)}.")
        low = [
            f"{s['subset']} ({s['agreement']['method']} {s['agreement']['value']:.2f})"
            for s in h["subsets"]
            if s["low_agreement"]
        ]
        if low:
            lines.append(f"Low human agreement (κ < 0.4 or ρ < 0.6): {', '.join(low)}.")
    for r in board.rows:
        if r.rater.kind != "human" or r.rank is None:
            continue
        p = r.published
        if p.get("n_annotators"):
            lines.append(
                f"{r.rater.label}: {p['n_items']} items, up to {p['n_annotators']} annotators "
                f"({p['n_subsets_with_agreement']} of {len(board.subsets)} subsets publish "
                "agreement, items and annotators)."
            )
        else:
            lines.append(
                f"{r.rater.label}: its result files publish no agreement, items or annotators."
            )
    groups = sorted({r.group for r in board.rows if r.group is not None})
    if groups:
        top = [r.rater.label for r in board.rows if r.group == 1]
        lines.append(
            f"{len(groups)} group(s) of raters whose ranks cannot be separated; "
            f"group 1 holds {len(top)}."
        )
    lines.append(f"Method: {METHOD}.")
    return lines


def render(board: Leaderboard, fmt: str) -> str:
    """Format the leaderboard as a plain table, Markdown, CSV or JSON."""
    if fmt == "json":
        return json.dumps(board.to_dict(), indent=2, ensure_ascii=False)
    header, body = _table_rows(board)
    if fmt == "csv":
        return csv_rows(header, body).rstrip("\n")
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in body]
        return "\n".join([*lines, "", *(md_text(line) for line in _summary(board))])
    widths = [max(len(x) for x in col) for col in zip(header, *body, strict=True)]
    fmt_row = "  ".join(f"{{:<{w}}}" for w in widths).format
    lines = [fmt_row(*header), fmt_row(*["-" * w for w in widths])]
    lines += [fmt_row(*row) for row in body]
    return "\n".join([*lines, "", *_summary(board)])
