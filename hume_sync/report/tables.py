"""The report's tables other than Table 1 (:mod:`hume_sync.report.table1`), as neutral
:class:`~hume_sync.report.blocks.Table` blocks.

Cells hold numbers and short words; where a value has a reason (not estimable, not
applicable, unpaired), the cell holds a short mark and the reason becomes a numbered footnote
(:func:`hume_sync.report.cells.noted`), so a reason repeated down a column is printed once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hume_sync.report.blocks import Cell, Table
from hume_sync.report.cells import f, mark, noted, signed
from hume_sync.report.effort_tables import target_cells
from scoring.alt_test import AltTestResult
from scoring.subset_report import SubsetReport, degenerate

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport

MAX_ITEMS_LISTED = 20

#: Which human: (panel key, column header), in the order the report shows them.
PANEL_COLUMNS = (
    ("aggregate", "aggregate (HUME)"),
    ("mean_annotator", "mean annotator"),
    ("best_annotator", "best annotator"),
    ("worst_annotator", "worst annotator"),
    ("dawid_skene", "Dawid–Skene"),
    ("noise_ceiling", "noise ceiling (leave-one-out)"),
)


def left_out_table(report: StudyReport) -> Table:
    """Per subset and annotator: late answers (and those edited after the close), invalid,
    and answers deleted after the close."""
    header = [
        "subset",
        "annotator",
        "late answers",
        "of which edited after the close",
        "invalid",
        "deleted after the close",
    ]
    rows: list[list[Cell]] = []
    for s in report.subsets:
        inp = s.input
        for who in sorted(set(inp.late) | set(inp.invalid) | set(inp.late_deleted)):
            counts = (inp.late, inp.late_edited, inp.invalid, inp.late_deleted)
            rows.append([inp.key, who, *[str(c.get(who, 0)) for c in counts]])
    return Table(header, rows)


def _interval_cell(s: SubsetReport) -> Cell:
    """The subset's 95 % interval and its method; why there is none, or why the bootstrap
    stands in, as a footnote."""
    if s.interval is None:
        return noted(s.interval_note) if s.interval_note else "–"
    text = f"[{f(s.interval.low)}, {f(s.interval.high)}] {s.interval.method}"
    return noted(s.interval_note, text) if s.interval_note else text


def ties_cell(s: Any) -> str:
    """Tied items and the expected score under a random tie-break; ⚑ when the aggregate is
    above every annotator."""
    flag = "⚑ above every annotator" if s.above_every_annotator else ""
    t = s.ties
    if not t:
        return flag or "–"
    cell = f"{t['n_tied_items']} tied; {f(t['scores'].get('random_expected'))}"
    return f"{cell} {flag}".strip()


def subset_table(report: StudyReport) -> Table:
    """One row per subset: the human score, its interval, agreement, and the models."""
    header = [
        "subset",
        "type",
        "lang",
        "human",
        "95 % interval",
        "bootstrap",
        "annotators",
        "agreement",
        "models above / inside / below",
        "ties (random tie-break)",
        "human rank",
        "best model",
        "best model score",
        "human − best model",
        "difficulty",
    ]
    rows: list[list[Cell]] = []
    for s in report.subsets:
        inp = s.input
        head = s.headline_agreement
        agree = "–" if head is None else f"{head.method} {f(head.value)} ({head.band})"
        pos = list(s.model_positions.values())
        counts = f"{pos.count('above')} / {pos.count('inside')} / {pos.count('below')}"
        boot = (
            "–"
            if s.bootstrap is None
            else f"[{f(s.bootstrap.low)}, {f(s.bootstrap.high)}]"
            + (" zero width: every resample equal" if degenerate(s.bootstrap) else "")
        )
        per = (
            ""
            if s.human is None
            else ", ".join(f"{k} {f(v)}" for k, v in sorted(s.human.per_rater.items()))
        )
        d = s.difficulty or {}
        rows.append(
            [
                inp.key,
                inp.task_type.name,
                inp.language,
                "–" if s.human is None else f(s.human.value),
                _interval_cell(s),
                boot,
                per,
                agree,
                counts,
                ties_cell(s),
                "–" if s.human_rank is None else f"{s.human_rank}/{s.n_raters_ranked}",
                d.get("best_model", "–"),
                f(d.get("best_model_score")),
                signed(d.get("human_minus_best")),
                d.get("label", "–"),
            ]
        )
    return Table(header, rows)


def vs_humans(s: Any, name: str) -> list[Cell]:
    """Where a rater stands against the humans, and the paired difference behind it."""
    pos = s.model_positions.get(name, "")
    cmp = s.paired.get(name)
    if cmp is None or "low" not in cmp:
        if pos not in ("above", "inside", "below"):
            return [pos, "–"]
        why = "" if cmp is None else cmp.get("why", "")
        return [noted(why, f"{pos} (unpaired)") if why else f"{pos} (unpaired)", "–"]
    # Each side scored on the shared items by the metric printed for it; where the type
    # compares another metric for models (a vote over runs), the cell says which.
    metric = cmp.get("rater_metric") or "its printed score"
    what = "" if metric == "its printed score" else f"; rater side: {metric}"
    diff = (
        f"{f(cmp['human_on_items'])} − {f(cmp['rater_on_items'])} = {f(cmp['difference'])} "
        f"[{f(cmp['low'])}, {f(cmp['high'])}] {cmp['method']}, {cmp['n_items']} items{what}"
    )
    # This verdict is against HUME's aggregate; "above humans" needs the best annotator
    # (the section "Against the best annotator"), so the cell names its human.
    return [f"{pos} HUME's aggregate", diff]


def panel_cell(e: Mapping[str, Any] | None) -> Cell:
    """One panel entry: value [interval], or the value (``n/e`` where there is none) with why
    there is no interval as a footnote."""
    if not e:
        return "–"
    who = f"{e['annotator']}: " if e.get("annotator") else ""
    if e.get("value") is None:
        reason = e.get("note") or "not estimable"
        return noted(reason, f"{who}{mark(reason)}" if who else None)
    iv = e.get("interval")
    if iv:
        return f"{who}{f(e['value'])} [{f(iv['low'])}, {f(iv['high'])}]"
    sb = e.get("spearman_brown")
    sb = "" if sb is None else f"; Spearman–Brown to {e['spearman_brown_k']}: {f(sb)}"
    return noted(e.get("note") or "no interval", f"{who}{f(e['value'])}{sb}")


def panel_table(report: StudyReport) -> Table:
    """Which human, per subset (scoring.panel)."""
    header = ["subset", *[h for _, h in PANEL_COLUMNS]]
    rows: list[list[Cell]] = [
        [s.input.key, *[panel_cell(s.human_panel.get(k)) for k, _ in PANEL_COLUMNS]]
        for s in report.subsets
        if s.human_panel
    ]
    return Table(header, rows)


def vs_best_table(report: StudyReport) -> Table:
    """Each rater against the best annotator alone, paired, with the verdict naming them."""
    header = ["subset", "rater", "verdict", "best annotator − rater (paired)"]
    rows: list[list[Cell]] = []
    for s in report.subsets:
        for name, c in sorted(s.vs_best.items()):
            if "low" not in c:
                why = c.get("why", "")
                estimable = c.get("position") != "not estimable"
                word = noted(why, "unpaired") if estimable else noted(why)
                rows.append([s.input.key, name, word, "–"])
                continue
            diff = f"{f(c['difference'])} [{f(c['low'])}, {f(c['high'])}], {c['n_items']} items"
            rows.append([s.input.key, name, c["verdict"], diff])
    return Table(header, rows)


def model_table(report: StudyReport) -> Table:
    """Every model and LLM annotator against the humans' aggregate, per subset."""
    header = [
        "subset",
        "rater",
        "kind",
        "score",
        "vs humans (aggregate)",
        "human − rater (paired)",
        "failed answers",
    ]
    rows: list[list[Cell]] = []
    for s in report.subsets:
        for name, value in sorted(s.input.models.items()):
            rows.append([s.input.key, name, "model", f(value), *vs_humans(s, name), ""])
        for name in sorted(set(s.llm_scores) | set(s.input.llm_failures)):
            sc = s.llm_scores.get(name)
            failed = s.input.llm_failures.get(name, 0)
            answered = len(s.input.llms.get(name, {}))
            rows.append(
                [
                    s.input.key,
                    name,
                    "llm",
                    "–" if sc is None else f(sc.value),
                    *vs_humans(s, name),
                    f"{failed} of {failed + answered}",
                ]
            )
    return Table(header, rows)


def llm_agreement_table(report: StudyReport) -> Table:
    """Each LLM annotator's agreement with the humans, apart from human–human agreement."""
    header = ["subset", "LLM", "agreement with humans", "band"]
    rows: list[list[Cell]] = [
        [s.input.key, name, f"{a.method} {f(a.value)}", a.band]
        for s in report.subsets
        for name, a in sorted(s.human_llm_agreement.items())
    ]
    return Table(header, rows)


def alt_test_cell(r: AltTestResult) -> str:
    """One LLM's alternative annotator test in words: the verdict, ω, or why there is none."""
    if r.status == "tested":
        won = sum(bool(a.llm_wins) for a in r.annotators)
        n = sum(a.p_adjusted is not None for a in r.annotators)
        verdict = "passes" if r.passed else "fails"
        each = [
            f"{a.annotator}: p = {f(a.p_adjusted)} ({'LLM wins' if a.llm_wins else 'LLM loses'})"
            if a.p_adjusted is not None
            else f"{a.annotator}: not estimable ({a.reason})"
            for a in r.annotators
        ]
        return (
            f"{verdict}: ω = {f(r.winning_rate, 2)} ({won}/{n} annotators), ε = {r.epsilon:g}; "
            f"per held-out annotator, Benjamini–Yekutieli p at α = {r.alpha:g}: " + "; ".join(each)
        )
    if r.status == "fewer than 3 annotators":
        paired = [
            f"{p.annotator} − LLM = {f(p.annotator_score)} − {f(p.llm_score)} = "
            f"{f(p.difference)} [{f(p.low)}, {f(p.high)}] {p.method}, {p.n_items} items"
            if p.difference is not None
            else f"{p.annotator} − LLM: not estimable ({p.reason})"
            for p in r.paired
        ]
        parts = [
            f"vs {p.annotator}: {f(p.agreement)} [{f(p.low)}, {f(p.high)}] {p.method}, "
            f"n = {p.n_items}"
            if p.agreement is not None and p.low is not None
            else f"vs {p.annotator}: not estimable ({p.reason})"
            for p in r.pairwise
        ]
        lead = f"not tested ({r.reason}); paired, each scored against gold: "
        return lead + "; ".join(paired) + "; agreement: " + "; ".join(parts)
    return f"{r.status}: {r.reason}"


def alt_test_table(report: StudyReport) -> Table:
    """The alternative annotator test of each LLM annotator, per subset."""
    header = ["subset", "LLM", "alignment", "can it replace an annotator?"]
    rows: list[list[Cell]] = [
        [s.input.key, name, r.alignment or "—", alt_test_cell(r)]
        for s in report.subsets
        for name, r in sorted(s.alt_test.items())
    ]
    return Table(header, rows)


def planning_table(report: StudyReport) -> Table:
    """Items needed for a ±0.05 interval per subset, the annotator-hours they take at the
    measured seconds per item and, with ``export --rate``, their cost."""
    header = [
        "subset",
        "items",
        "half-width now",
        "items for ±0.05",
        "annotator-hours for ±0.05",
    ]
    if report.rate_per_hour is not None:
        header.append(f"cost at {report.rate_per_hour:g} per hour")
    header.append("method")
    rows: list[list[Cell]] = [
        [
            s.input.key,
            f(p.get("n_items")),
            f(p.get("half_width")),
            f(p.get("n_items_for_target")),
            *target_cells(report, s.input.key, p.get("n_items_for_target")),
            p.get("method", ""),
        ]
        for s in report.subsets
        if (p := s.planning)
    ]
    return Table(header, rows)


ITEM_HEADER = ["subset", "item", "text", "gold", "answers"]


def item_rows(items: list[dict[str, Any]], subset: str) -> list[list[Cell]]:
    """Item-list rows; where the type shows answers against the item's texts (reranking:
    one line per candidate with gold's and each rater's mark), those lines are the answers."""
    return [
        [
            subset,
            it["item"],
            (it["text"] or "")[:160],
            "marked in each line" if "marks" in it else f(it["gold"]),
            list(it["marks"])
            if "marks" in it
            else ", ".join(f"{k}: {f(v)}" for k, v in sorted(it["answers"].items())),
        ]
        for it in items[:MAX_ITEMS_LISTED]
    ]


def sealing_table(report: StudyReport) -> Table:
    """One row per model and LLM: its commitment recomputed now, the verdict, what changed."""
    header = ["model or LLM", "commitment (SHA-256, recomputed)", "answers", "sealing", "details"]
    seal = report.sealing
    rows: list[list[Cell]] = [
        [
            c.model_version,
            c.recomputed,
            str(c.n_answers),
            "ok" if not c.problems else c.status,
            list(c.problems) + [f"note: {n}" for n in c.notes] or "–",
        ]
        for c in (seal.checks if seal is not None else [])
    ]
    return Table(header, rows)
