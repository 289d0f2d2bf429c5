"""Render a :class:`hume_sync.report.model.StudyReport` as Markdown and as one self-contained
HTML page.

The HTML has no external resources (inline CSS and SVG plots), so it opens offline and can be
mailed as one file. Every number printed here was computed by :mod:`scoring`; rendering only
formats it, and every table names the method behind its numbers.
"""

from __future__ import annotations

import html as html_lib
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hume_sync import task_types
from hume_sync.report import plots
from hume_sync.report.plots import Bar
from hume_sync.report.safe_text import md_cell, md_text
from hume_sync.rules.late_answers import EDITED_NOTE
from scoring.alt_test import METHOD as ALT_TEST_METHOD
from scoring.alt_test import AltTestResult
from scoring.panel_summary import METHOD as PANEL_SUMMARY_METHOD
from scoring.subset_report import SubsetReport, degenerate
from scoring.tasks import normalise_language

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport

MAX_ITEMS_LISTED = 20

#: Methods that hold for every task type; the per-type topics (``scoring.rules.METHOD_TOPICS``)
#: come from each registered type's ``score_methods`` (see :func:`methods`).
_COMMON_METHODS = {
    "LLM annotator": "scored as one human annotator, on the items it answered; agreement with "
    "humans reported apart from human–human agreement",
    "Interval (95 %)": "a seeded BCa bootstrap over items is given beside it; where the type's "
    "own interval has zero width (one annotator's range, Fisher z at ρ = ±1) that bootstrap "
    "over items (queries for reranking) is used instead and named; where it has zero width "
    'too, or there is nothing to resample (one clustering set), the interval is "not '
    'estimable" and so is the items-for-±0.05 line',
    "Significance": "humans and each model or LLM with per-item answers are compared on the "
    "items both answered, each side by the metric printed for it: humans and LLMs by the "
    "type's human rule, a model by its own metric (reranking: its own ranking, per-query "
    "trec_eval AP as mteb's MAP; classification: the accuracy of its majority vote over "
    "mteb's runs, named in the cell), human − rater with a seeded paired bootstrap over "
    "items (2000 resamples, "
    "the same resamples for both sides, percentile 95 % interval); above/below when that "
    "interval excludes 0, else inside. A rater without per-item answers (a model known only "
    "by its MTEB score, a clustering set) is placed by its score against the human interval, "
    "marked 'unpaired'",
    "Which human": "per subset: HUME's aggregate; each annotator's own score (seeded BCa "
    "bootstrap over items); the mean annotator (joint percentile bootstrap, where all "
    "answered the same items); the best and the worst annotator; for label answers a "
    "Dawid–Skene aggregate (crowd-kit, 100 EM iterations) scored as one rater; a noise "
    "ceiling with 2 or more annotators: each scored against the others' consensus (majority, "
    "mean rating for STS, with the Spearman–Brown step-up to all annotators). 'not "
    "estimable' says why where a number or interval cannot be had",
    "Above humans": "only when the paired interval of (best annotator − rater), on the items "
    "both answered, lies below 0; every such verdict names the best annotator",
    "Alternative annotator test": ALT_TEST_METHOD + "; per-item alignment from the task type "
    "(label match; STS −|a − b|/5; reranking the share of a query's candidates marked alike); "
    "not applicable to clustering (no per-item answer)",
    "Agreement": "bands: ≤0.2 slight, ≤0.4 fair, ≤0.6 moderate, ≤0.8 substantial, >0.8 "
    "excellent; low agreement: κ < 0.4 or ρ < 0.6",
    "Table": "mean over task-language subsets, each weighted equally; only raters with every "
    "subset are ranked; humans win a subset when strictly above the best / median model",
    "Table 1 interval": PANEL_SUMMARY_METHOD,
    "Borda rank": "as the MTEB leaderboard shows beside the mean: on each subset a ranked "
    "rater earns one point per ranked rater it beats and ½ per tie; points summed over "
    "subsets, ranked high to low (competition ranks)",
    "Best model": "per subset, the embedding model with the highest score there (ties: first "
    "name); human − best model as in the HUME paper",
    "Model metadata": "parameters, embedding dimension and max tokens from the results "
    "folder's model_meta.json, else what the loaded model reported when predict ran it "
    "(sentence-transformers: parameter count, embedding size, max_seq_length); shown only "
    "where known",
    "Annotators": "named by pseudonymous keys (annotator-N, their slot in the study, the same "
    "in every file of it); emails only in an export made with --with-emails",
    "Answers scored": "valid answers only: an invalid one (a clustering text left unsorted, a "
    "candidate not placed, no choice, an item not in the task) is never scored; a late one "
    "(Label Studio's created_at or updated_at after the study's close) only with --include-late",
    "Ties": "a subset is flagged (⚑) when its aggregate human score is strictly above every "
    "one of its two or more annotators' own scores",
    "Difficulty": "human score − the best embedding model's score on the subset (the model "
    "named): humans ahead above +0.05, close within ±0.05, humans behind below −0.05 (the "
    "former 'easy when the human score is ≥ 0.7' said easy on every HUME subset and is "
    "dropped)",
    "Sealing": "each model's and LLM's commitment is SHA-256 over the canonical JSON (keys "
    "sorted, no whitespace, floats in shortest round-trip form) of its sealed answers in hume_id "
    "order, its revision, its prompt and the study id (scheme hume-seal/1, hume_sync.sealing); "
    "recorded by predict, recomputed here from the store; a sealed answer is flagged when it "
    "no longer gives the recorded commitment, or was written or recommitted after the first "
    "annotation's Label Studio created_at",
    "Sample size": "items needed for a ±0.05 interval: Wilson / Fisher z at the observed "
    "value; otherwise n × (bootstrap half-width / 0.05)²; none where the interval is not "
    "estimable (never fewer items than already annotated from a zero-width interval)",
}

_METHOD_ORDER = (
    "Human score",
    "Ties",
    "Model score",
    "LLM annotator",
    "Interval (95 %)",
    "Significance",
    "Which human",
    "Above humans",
    "Alternative annotator test",
    "Agreement",
    "Table",
    "Table 1 interval",
    "Borda rank",
    "Best model",
    "Model metadata",
    "Annotators",
    "Answers scored",
    "Difficulty",
    "Candidate gold errors",
    "Sample size",
    "Sealing",
)


def methods(report: StudyReport | None = None) -> list[tuple[str, str]]:
    """The Methods section: per topic, the phrase of each type in ``report`` (every registered
    type without one), in registration order, then what holds for all types, so a new type is
    described by its own class and a report names only the methods it used."""
    present = {s.input.task_type.name for s in report.subsets} if report is not None else None
    types = [task_types.get(n) for n in task_types.names() if present is None or n in present]
    rows = []
    for topic in _METHOD_ORDER:
        parts = [f"{t.name}: {t.score_methods[topic]}" for t in types if topic in t.score_methods]
        common = _COMMON_METHODS.get(topic)
        rows.append((topic, "; ".join(parts + ([common] if common else []))))
    return rows


def _f(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _md_cell(c: Any) -> str:
    """A Markdown cell: text, or lines (a list) separated by line breaks."""
    return "<br>".join(md_cell(x) for x in c) if isinstance(c, list) else md_cell(c)


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table; cells are data, so HTML in them is escaped (hume_sync.report.safe_text)."""
    out = ["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows]
    return [*out, ""]


# ------------------------------------------------------------------------------------------
# Shared row builders (Markdown and HTML print the same tables)


def _coverage_line(report: StudyReport) -> str:
    if report.complete:
        return "Coverage: every subset is fully annotated."
    parts = [
        f"{s.input.key} {s.coverage['items_annotated']}/{s.coverage['items_planned']} items, "
        f"{s.coverage['annotations']}/{s.coverage['annotations_planned']} annotations"
        for s in report.subsets
        if not s.coverage["complete"]
    ]
    return (
        "**Partly annotated study** — scores below cover only what is annotated: "
        + "; ".join(parts)
        + "."
    )


def _close_line(report: StudyReport) -> str:
    """When annotation closed and what happened to the answers given after it."""
    if report.closed_at is None:
        return "Annotation is open (no close recorded): no answer counts as late."
    n_late = report.total_left_out("late")
    fate = (
        "included in every score (--include-late)"
        if report.include_late
        else "left out of every score (export --include-late keeps them)"
    )
    line = f"Annotation closed at {report.closed_at}; {n_late} late answer(s) {fate}."
    n_deleted = report.total_left_out("late_deleted")
    if n_deleted:
        kept = (
            "the deletions count (--include-late)"
            if report.include_late
            else "each still scored as it was at the close (export --include-late drops them)"
        )
        line += f" {n_deleted} answer(s) deleted in Label Studio after the close: {kept}."
    if any(s.input.late_edited for s in report.subsets):
        line += f" Note: {EDITED_NOTE}."
    return line


def _left_out_rows(report: StudyReport) -> tuple[list[str], list[list[str]]]:
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
    rows = []
    for s in report.subsets:
        inp = s.input
        for who in sorted(set(inp.late) | set(inp.invalid) | set(inp.late_deleted)):
            rows.append(
                [
                    inp.key,
                    who,
                    str(inp.late.get(who, 0)),
                    str(inp.late_edited.get(who, 0)),
                    str(inp.invalid.get(who, 0)),
                    str(inp.late_deleted.get(who, 0)),
                ]
            )
    return header, rows


def _table1(report: StudyReport) -> tuple[list[str], list[list[str]]]:
    present = {s.input.task_type.name for s in report.subsets}
    types = [t for t in task_types.names() if t in present]
    langs = sorted({lang for r in report.rows for lang in r.by_language})
    meta = [(k, t) for k, t in _META_COLUMNS if any(k in m for m in report.model_meta.values())]
    header = [
        "rank (mean)",
        "Borda rank",
        "rater",
        "kind",
        "mean %",
        "95 % interval (%)",
        "subsets",
        *types,
        *langs,
        *[t for _, t in meta],
    ]
    n = len(report.ids)
    rows = [
        [
            _f(r.rank),
            "–" if r.borda_rank is None else f"{r.borda_rank} ({r.borda:g} points)",
            r.rater.name,
            r.rater.kind,
            _pct(r.mean),
            _summary_cell(report.panel_summary.get("aggregate"))
            if r.rater.kind == "human"
            else "–",
            f"{r.n_subsets}/{n}",
            *[_pct(r.by_type.get(t)) for t in types],
            *[_pct(r.by_language.get(g)) for g in langs],
            *[_count(report.model_meta.get(r.rater.name, {}).get(k)) for k, _ in meta],
        ]
        for r in report.rows
    ]
    rows += _table1_panel_rows(report, types, langs, len(meta))
    return header, rows


def _summary_cell(e: Mapping[str, Any] | None) -> str:
    """A Table 1 interval in percent, or why there is none (scoring.panel_summary)."""
    if not e:
        return "–"
    iv = e.get("interval")
    if iv:
        return f"[{_pct(iv['low'])}, {_pct(iv['high'])}]"
    return e.get("note") or "not estimable"


def _table1_panel_rows(
    report: StudyReport, types: list[str], langs: list[str], n_meta: int
) -> list[list[str]]:
    """Which human, across the study: each panel entry's mean over the subsets where it is
    estimable (unranked), with the interval of that mean (scoring.panel_summary; per-subset
    intervals are in "Which human, per subset")."""
    n = len(report.ids)
    rows = []
    for key, label in _PANEL_COLUMNS[1:]:
        got = [
            (s, e["value"])
            for s in report.subsets
            if (e := s.human_panel.get(key)) and e.get("value") is not None
        ]
        if not got:
            continue

        def mean(vals: list[float]) -> float | None:
            return sum(vals) / len(vals) if vals else None

        by_type = [mean([v for s, v in got if s.input.task_type.name == t]) for t in types]
        by_lang = [
            mean([v for s, v in got if normalise_language(s.input.language) == g]) for g in langs
        ]
        rows.append(
            [
                "–",
                "–",
                f"humans: {label}",
                "human panel",
                _pct(mean([v for _, v in got])),
                _summary_cell(report.panel_summary.get(key)),
                f"{len(got)}/{n}",
                *[_pct(v) for v in by_type],
                *[_pct(v) for v in by_lang],
                *["–"] * n_meta,
            ]
        )
    return rows


#: Model metadata columns of Table 1: (key, header); a column shows when any model knows it.
_META_COLUMNS = (
    ("n_parameters", "parameters"),
    ("embed_dim", "embedding dim"),
    ("max_tokens", "max tokens"),
)


def _count(n: int | None) -> str:
    """A count as people read it: 22.7M, 1.5B, 384."""
    if n is None:
        return "–"
    for size, unit in ((1e9, "B"), (1e6, "M")):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def names_line(report: StudyReport) -> str:
    """How annotators are named in this report (said in its header)."""
    if report.with_emails:
        return (
            "Annotators are named by email (export --with-emails): keep this report within "
            "the team."
        )
    return (
        "Annotators are named by pseudonymous keys (annotator-N: their slot in this study, the "
        "same in every file); export --with-emails names them by email, for the team only."
    )


def _subset_rows(report: StudyReport) -> tuple[list[str], list[list[str]]]:
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
    rows = []
    for s in report.subsets:
        inp = s.input
        head = s.headline_agreement
        agree = "–" if head is None else f"{head.method} {_f(head.value)} ({head.band})"
        pos = list(s.model_positions.values())
        counts = f"{pos.count('above')} / {pos.count('inside')} / {pos.count('below')}"
        ci = (
            ("not estimable" if s.interval_note else "–")
            if s.interval is None
            else (f"[{_f(s.interval.low)}, {_f(s.interval.high)}] {s.interval.method}")
        )
        if s.interval is not None and s.interval_note:
            ci += f" ({s.interval_note})"
        boot = (
            "–"
            if s.bootstrap is None
            else f"[{_f(s.bootstrap.low)}, {_f(s.bootstrap.high)}]"
            + (" zero width: every resample equal" if degenerate(s.bootstrap) else "")
        )
        per = (
            ""
            if s.human is None
            else ", ".join(f"{k} {_f(v)}" for k, v in sorted(s.human.per_rater.items()))
        )
        d = s.difficulty or {}
        rows.append(
            [
                inp.key,
                inp.task_type.name,
                inp.language,
                "–" if s.human is None else _f(s.human.value),
                ci,
                boot,
                per,
                agree,
                counts,
                _ties_cell(s),
                "–" if s.human_rank is None else f"{s.human_rank}/{s.n_raters_ranked}",
                d.get("best_model", "–"),
                _f(d.get("best_model_score")),
                _signed(d.get("human_minus_best")),
                d.get("label", "–"),
            ]
        )
    return header, rows


def _vs_humans(s: Any, name: str) -> list[str]:
    """Where a rater stands against the humans, and the paired difference behind it."""
    pos = s.model_positions.get(name, "")
    cmp = s.paired.get(name)
    if cmp is None or "low" not in cmp:
        why = "" if cmp is None else f": {cmp.get('why', '')}"
        return [f"{pos} (unpaired{why})" if pos in ("above", "inside", "below") else pos, "–"]
    # Each side scored on the shared items by the metric printed for it; where the type
    # compares another metric for models (a vote over runs), the cell says which.
    metric = cmp.get("rater_metric") or "its printed score"
    what = "" if metric == "its printed score" else f"; rater side: {metric}"
    diff = (
        f"{_f(cmp['human_on_items'])} − {_f(cmp['rater_on_items'])} = {_f(cmp['difference'])} "
        f"[{_f(cmp['low'])}, {_f(cmp['high'])}] {cmp['method']}, {cmp['n_items']} items{what}"
    )
    # This verdict is against HUME's aggregate; "above humans" needs the best annotator
    # (the section "Against the best annotator"), so the cell names its human.
    return [f"{pos} HUME's aggregate", diff]


def _panel_cell(e: Mapping[str, Any] | None) -> str:
    """One panel entry: value [interval], or value and why there is no interval."""
    if not e:
        return "–"
    who = f"{e['annotator']}: " if e.get("annotator") else ""
    if e.get("value") is None:
        return f"{who}{e.get('note') or 'not estimable'}"
    iv = e.get("interval")
    if iv:
        return f"{who}{_f(e['value'])} [{_f(iv['low'])}, {_f(iv['high'])}]"
    sb = e.get("spearman_brown")
    sb = "" if sb is None else f"; Spearman–Brown to {e['spearman_brown_k']}: {_f(sb)}"
    return f"{who}{_f(e['value'])}{sb} ({e.get('note') or 'no interval'})"


_PANEL_COLUMNS = (
    ("aggregate", "aggregate (HUME)"),
    ("mean_annotator", "mean annotator"),
    ("best_annotator", "best annotator"),
    ("worst_annotator", "worst annotator"),
    ("dawid_skene", "Dawid–Skene"),
    ("noise_ceiling", "noise ceiling (leave-one-out)"),
)


def _panel_rows(report: StudyReport) -> tuple[list[str], list[list[str]]]:
    """Which human, per subset (scoring.panel)."""
    header = ["subset", *[h for _, h in _PANEL_COLUMNS]]
    rows = [
        [s.input.key, *[_panel_cell(s.human_panel.get(k)) for k, _ in _PANEL_COLUMNS]]
        for s in report.subsets
        if s.human_panel
    ]
    return header, rows


def _vs_best_rows(report: StudyReport) -> tuple[list[str], list[list[str]]]:
    """Each rater against the best annotator alone, paired, with the verdict naming them."""
    header = ["subset", "rater", "verdict", "best annotator − rater (paired)"]
    rows = []
    for s in report.subsets:
        for name, c in sorted(s.vs_best.items()):
            if "low" not in c:
                why = c.get("why", "")
                word = why if c.get("position") == "not estimable" else f"unpaired: {why}"
                rows.append([s.input.key, name, word, "–"])
                continue
            diff = f"{_f(c['difference'])} [{_f(c['low'])}, {_f(c['high'])}], {c['n_items']} items"
            rows.append([s.input.key, name, c["verdict"], diff])
    return header, rows


def _ties_cell(s: Any) -> str:
    """Tied items and the expected score under a random tie-break; ⚑ when the aggregate is
    above every annotator."""
    flag = "⚑ above every annotator" if s.above_every_annotator else ""
    t = s.ties
    if not t:
        return flag or "–"
    cell = f"{t['n_tied_items']} tied; {_f(t['scores'].get('random_expected'))}"
    return f"{cell} {flag}".strip()


def _model_rows(report: StudyReport) -> tuple[list[str], list[list[str]]]:
    header = [
        "subset",
        "rater",
        "kind",
        "score",
        "vs humans (aggregate)",
        "human − rater (paired)",
        "failed answers",
    ]
    rows = []
    for s in report.subsets:
        for name, value in sorted(s.input.models.items()):
            rows.append([s.input.key, name, "model", _f(value), *_vs_humans(s, name), ""])
        for name in sorted(set(s.llm_scores) | set(s.input.llm_failures)):
            sc = s.llm_scores.get(name)
            failed = s.input.llm_failures.get(name, 0)
            answered = len(s.input.llms.get(name, {}))
            rows.append(
                [
                    s.input.key,
                    name,
                    "llm",
                    "–" if sc is None else _f(sc.value),
                    *_vs_humans(s, name),
                    f"{failed} of {failed + answered}",
                ]
            )
    return header, rows


def _llm_agreement_rows(report: StudyReport) -> tuple[list[str], list[list[str]]]:
    header = ["subset", "LLM", "agreement with humans", "band"]
    rows = [
        [s.input.key, name, f"{a.method} {_f(a.value)}", a.band]
        for s in report.subsets
        for name, a in sorted(s.human_llm_agreement.items())
    ]
    return header, rows


NO_LLM_ALT_TEST = "No LLM annotator answered in this study: nothing to test."


def _alt_test_cell(r: AltTestResult) -> str:
    """One LLM's alternative annotator test in words: the verdict, ω, or why there is none."""
    if r.status == "tested":
        won = sum(bool(a.llm_wins) for a in r.annotators)
        n = sum(a.p_adjusted is not None for a in r.annotators)
        verdict = "passes" if r.passed else "fails"
        each = [
            f"{a.annotator}: p = {_f(a.p_adjusted)} ({'LLM wins' if a.llm_wins else 'LLM loses'})"
            if a.p_adjusted is not None
            else f"{a.annotator}: not estimable ({a.reason})"
            for a in r.annotators
        ]
        return (
            f"{verdict}: ω = {_f(r.winning_rate, 2)} ({won}/{n} annotators), ε = {r.epsilon:g}; "
            f"per held-out annotator, Benjamini–Yekutieli p at α = {r.alpha:g}: " + "; ".join(each)
        )
    if r.status == "fewer than 3 annotators":
        paired = [
            f"{p.annotator} − LLM = {_f(p.annotator_score)} − {_f(p.llm_score)} = "
            f"{_f(p.difference)} [{_f(p.low)}, {_f(p.high)}] {p.method}, {p.n_items} items"
            if p.difference is not None
            else f"{p.annotator} − LLM: not estimable ({p.reason})"
            for p in r.paired
        ]
        parts = [
            f"vs {p.annotator}: {_f(p.agreement)} [{_f(p.low)}, {_f(p.high)}] {p.method}, "
            f"n = {p.n_items}"
            if p.agreement is not None and p.low is not None
            else f"vs {p.annotator}: not estimable ({p.reason})"
            for p in r.pairwise
        ]
        lead = f"not tested ({r.reason}); paired, each scored against gold: "
        return lead + "; ".join(paired) + "; agreement: " + "; ".join(parts)
    return f"{r.status}: {r.reason}"


def _alt_test_rows(report: StudyReport) -> tuple[list[str], list[list[str]]]:
    header = ["subset", "LLM", "alignment", "can it replace an annotator?"]
    rows = [
        [s.input.key, name, r.alignment or "—", _alt_test_cell(r)]
        for s in report.subsets
        for name, r in sorted(s.alt_test.items())
    ]
    return header, rows


def _planning_rows(report: StudyReport) -> tuple[list[str], list[list[str]]]:
    header = ["subset", "items", "half-width now", "items for ±0.05", "method"]
    rows = [
        [
            s.input.key,
            _f(p.get("n_items")),
            _f(p.get("half_width")),
            _f(p.get("n_items_for_target")),
            p.get("method", ""),
        ]
        for s in report.subsets
        if (p := s.planning)
    ]
    return header, rows


def _signed(x: float | None) -> str:
    return "–" if x is None else f"{x:+.3f}"


def _item_rows(items: list[dict[str, Any]], subset: str) -> list[list[Any]]:
    """Item-list rows; where the type shows answers against the item's texts (reranking:
    one line per candidate with gold's and each rater's mark), those lines are the answers."""
    return [
        [
            subset,
            it["item"],
            (it["text"] or "")[:160],
            "marked in each line" if "marks" in it else _f(it["gold"]),
            list(it["marks"])
            if "marks" in it
            else ", ".join(f"{k}: {_f(v)}" for k, v in sorted(it["answers"].items())),
        ]
        for it in items[:MAX_ITEMS_LISTED]
    ]


def _quality(report: StudyReport) -> dict[str, Any]:
    low = [s for s in report.subsets if s.low_agreement]
    dis = [r for s in report.subsets for r in _item_rows(s.disagreements, s.input.key)]
    sus = [r for s in report.subsets for r in _item_rows(s.gold_suspects, s.input.key)]
    return {"low": low, "disagreements": dis, "suspects": sus}


def _summary_lines(report: StudyReport) -> list[str]:
    lines = []
    human = next((r for r in report.rows if r.rater.kind == "human"), None)
    if human is not None:
        rank = "not ranked (incomplete)" if human.rank is None else f"rank {human.rank}"
        lines.append(
            f"Humans: {_pct(human.mean)} % mean over {human.n_subsets} subset(s), {rank} of "
            f"{sum(1 for r in report.rows if r.rank is not None)} ranked raters."
        )
    if report.human_vs_models is not None:
        h = report.human_vs_models.to_dict()
        lines.append(
            f"Humans beat the best model on {h['wins_vs_best']} of {h['n_subsets']} subsets and "
            f"the median model on {h['wins_vs_median']}."
        )
    for name, corr in sorted(report.human_llm_correlation.items()):
        value = corr.get("value")
        lines.append(
            f"Human vs {name} across subsets: Spearman ρ = {_f(value)}"
            + (
                f" (n = {corr.get('n_items')})"
                if value is not None
                else f" ({corr.get('reason', 'undefined')})"
            )
        )
    if report.results_models:
        lines.append(f"Models added from the results folder: {len(report.results_models)}.")
    broken = [c.model_version for c in report.sealing.checks if c.failed] if report.sealing else []
    if broken:
        lines.append(f"Sealing broken for {', '.join(broken)}: see the Sealing section.")
    return lines


def _sealing_rows(report: StudyReport) -> tuple[list[str], list[list[Any]]]:
    """One row per model and LLM: its commitment recomputed now, the verdict, what changed."""
    header = ["model or LLM", "commitment (SHA-256, recomputed)", "answers", "sealing", "details"]
    seal = report.sealing
    rows = [
        [
            c.model_version,
            c.recomputed,
            str(c.n_answers),
            "ok" if not c.problems else c.status,
            list(c.problems) + [f"note: {n}" for n in c.notes] or "–",
        ]
        for c in (seal.checks if seal is not None else [])
    ]
    return header, rows


def _sealing_line(report: StudyReport) -> str:
    seal = report.sealing
    if seal is None or not seal.checks:
        return "No sealed model or LLM answers in this study."
    first = seal.first_annotation_at or "none pulled"
    verdict = (
        "SEALING BROKEN: see the flagged rows"
        if seal.failed
        else "every commitment matches the stored answers"
    )
    return f"Study id {seal.study_id}; first annotation {first}; {verdict}."


# ------------------------------------------------------------------------------------------
# Markdown


def markdown(report: StudyReport) -> str:
    out = [f"# HUME study report: {md_text(report.study)}", "", md_text(_coverage_line(report))]
    out += ["", md_text(names_line(report))]
    out += [""] + [f"- {md_text(line)}" for line in _summary_lines(report)] + [""]
    out += ["## Late and invalid answers", "", md_text(_close_line(report)), ""]
    header, rows = _left_out_rows(report)
    out += _md_table(header, rows) if rows else ["No late or invalid answers.", ""]
    out += ["## Table 1: mean over subsets (%)", "", *_md_table(*_table1(report))]
    out += ["## Per subset", "", *_md_table(*_subset_rows(report))]
    out += ["## Which human, per subset", "", *_md_table(*_panel_rows(report))]
    header, rows = _vs_best_rows(report)
    if rows:
        out += ["## Against the best annotator", "", *_md_table(header, rows)]
    out += ["## Models and LLM annotators against the humans", ""]
    out += _md_table(*_model_rows(report))
    header, rows = _llm_agreement_rows(report)
    if rows:
        out += ["## LLM annotators: agreement with humans (apart from human–human)", ""]
        out += _md_table(header, rows)
    header, rows = _alt_test_rows(report)
    out += ["## Can an LLM replace an annotator? (alternative annotator test)", ""]
    out += _md_table(header, rows) if rows else [NO_LLM_ALT_TEST, ""]
    q = _quality(report)
    out += ["## Dataset quality", ""]
    if q["low"]:
        out.append(
            "Low agreement (κ < 0.4 or ρ < 0.6), candidates for revision: "
            + md_text(
                ", ".join(
                    f"{s.input.key} ({s.headline_agreement.method} "
                    f"{_f(s.headline_agreement.value)})"
                    for s in q["low"]
                    if s.headline_agreement is not None
                )
            )
            + "."
        )
        out.append("")
    item_header = ["subset", "item", "text", "gold", "answers"]
    out += [f"### Items on which annotators disagreed (first {MAX_ITEMS_LISTED} per subset)", ""]
    out += _md_table(item_header, q["disagreements"]) if q["disagreements"] else ["None.", ""]
    out += ["### Candidate gold errors: annotators agree with each other, not with gold", ""]
    out += _md_table(item_header, q["suspects"]) if q["suspects"] else ["None.", ""]
    out += ["## Sample-size planning", "", *_md_table(*_planning_rows(report))]
    out += ["## Sealing", "", md_text(_sealing_line(report)), ""]
    header, rows = _sealing_rows(report)
    out += _md_table(header, rows) if rows else []
    warn = [f"{s.input.key}: {w}" for s in report.subsets for w in s.warnings]
    warn += [
        f"{s.input.key}: {a.method}: {w}"
        for s in report.subsets
        for a in s.agreement
        for w in a.warnings
    ]
    warn += [str(p) for p in report.problems]
    if warn:
        out += ["## Warnings", ""] + [f"- {md_text(w)}" for w in warn] + [""]
    out += ["## Methods", ""] + [f"- **{k}**: {v}" for k, v in methods(report)] + [""]
    return "\n".join(out)


# ------------------------------------------------------------------------------------------
# HTML with inline SVG plots

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1500px;
color:#222;padding:0 1rem}table{border-collapse:collapse;margin:0.5rem 0 1.5rem;font-size:0.85rem}
th,td{border:1px solid #ccc;padding:0.25rem 0.5rem;text-align:left;vertical-align:top}
th{background:#f2f2f2}h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}
.warn{background:#fff4e5;border-left:4px solid #f0a030;padding:0.5rem 1rem}
figure{margin:1rem 0}figcaption{font-size:0.9rem;color:#555}
svg.plot{display:block;height:auto;margin:0 0 1rem}svg text{font-size:13px;fill:#222}
.scroll{overflow-x:auto;max-width:100%}td{overflow-wrap:break-word}
"""


def _h(x: Any) -> str:
    return html_lib.escape(str(x))


def _cell(c: Any) -> str:
    """A table cell: escaped text, or escaped lines (a list) one under the other."""
    return "<br>".join(_h(x) for x in c) if isinstance(c, list) else _h(c)


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{_h(c)}</th>" for c in header)
    body = "".join("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in r) + "</tr>" for r in rows)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="scroll">{table}</div>'


def _subset_plot(index: int, s: SubsetReport) -> str:
    """Humans (with their interval), LLM annotators and models on one subset, best first, on
    the axis of the subset type's main score."""
    t = s.input.task_type
    bars = []
    if s.human is not None:
        iv = s.interval
        bars.append(
            Bar(
                "humans",
                s.human.value,
                "human",
                _f(s.human.value),
                None if iv is None else iv.low,
                None if iv is None else iv.high,
            )
        )
    bars += [Bar(f"LLM {n}", sc.value, "llm", _f(sc.value)) for n, sc in s.llm_scores.items()]
    bars += [Bar(n, v, "model", _f(v)) for n, v in s.input.models.items() if math.isfinite(v)]
    bars.sort(key=lambda b: (-b.value, b.label))
    lows = [b.value for b in bars] + [b.low for b in bars if b.low is not None]
    return plots.bar_chart(
        plot_id=f"plot-subset-{index}",
        title=f"{s.input.key} ({t.name}, {s.input.language})",
        axis_title=f"{t.score_main_label} ({t.score_main_name})",
        bars=bars,
        lo=plots.axis_range(lows),
    )


def _subset_plots(report: StudyReport) -> str:
    """One bar chart per subset, with a caption that names only what the charts hold."""
    charts = [_subset_plot(i, s) for i, s in enumerate(report.subsets, 1)]
    charts = [c for c in charts if c]
    if not charts:
        return "<p>No scores to plot.</p>"
    kinds = {
        "humans (red; the black line is their 95 % interval where there is one)": any(
            s.human is not None for s in report.subsets
        ),
        "LLM annotators (blue)": any(s.llm_scores for s in report.subsets),
        "embedding models (grey)": any(s.input.models for s in report.subsets),
    }
    caption = "Per subset, best first: " + ", ".join(k for k, on in kinds.items() if on) + "."
    return "<figure>" + "".join(charts) + f"<figcaption>{_h(caption)}</figcaption></figure>"


def _agreement_plot(report: StudyReport) -> str:
    """Headline human–human agreement per subset, its statistic named on each bar."""
    headlines = [(s, s.headline_agreement) for s in report.subsets]
    subs = [(s, a) for s, a in headlines if a is not None and math.isfinite(a.value)]
    if not subs:
        return "<p>No subset has two annotators on the same items: no agreement to plot.</p>"
    bars = [
        Bar(
            s.input.key,
            a.value,
            "low" if s.low_agreement else "agreement",
            f"{a.method} {_f(a.value)} ({a.band})",
        )
        for s, a in subs
    ]
    svg = plots.bar_chart(
        plot_id="plot-agreement",
        title="Human–human agreement per subset",
        axis_title="agreement (the type's headline statistic, named on each bar)",
        bars=bars,
        lo=plots.axis_range([b.value for b in bars], step=0.2),
        step=0.2,
    )
    caption = "Headline human–human agreement per subset; green: not low"
    if any(b.kind == "low" for b in bars):
        caption += "; orange: low (κ < 0.4 or ρ < 0.6)"
    return f"<figure>{svg}<figcaption>{_h(caption)}.</figcaption></figure>"


def _llm_plot(report: StudyReport) -> str:
    """Human score (x) against each LLM annotator's score (y), one named point per subset."""
    points = [
        (s.human.value, sc.value, f"{name} · {s.input.key}")
        for s in report.subsets
        if s.human is not None
        for name, sc in s.llm_scores.items()
    ]
    svg = plots.scatter(
        plot_id="plot-human-vs-llm",
        title="Humans against LLM annotators",
        x_title="human score (each subset's main score)",
        y_title="LLM annotator's score",
        points=points,
    )
    return f"<figure>{svg}<figcaption>Human vs LLM score per subset.</figcaption></figure>"


def html(report: StudyReport) -> str:
    q = _quality(report)
    left_out = _left_out_rows(report)
    sections = [
        f"<h1>HUME study report: {_h(report.study)}</h1>",
        f'<p class="{"" if report.complete else "warn"}">'
        f"{_h(_coverage_line(report).replace('**', ''))}</p>",
        f'<p class="names">{_h(names_line(report))}</p>',
        "<ul>" + "".join(f"<li>{_h(line)}</li>" for line in _summary_lines(report)) + "</ul>",
        '<h2 id="late-invalid">Late and invalid answers</h2>',
        f"<p>{_h(_close_line(report))}</p>",
        _html_table(*left_out) if left_out[1] else "<p>No late or invalid answers.</p>",
        "<h2>Table 1: mean over subsets (%)</h2>",
        _html_table(*_table1(report)),
        "<h2>Humans against the models, per subset</h2>",
        _subset_plots(report),
        "<h2>Per subset</h2>",
        _html_table(*_subset_rows(report)),
        "<h2>Which human, per subset</h2>",
        _html_table(*_panel_rows(report)),
        "<h2>Against the best annotator</h2>",
        _html_table(*_vs_best_rows(report)),
        "<h2>Agreement per task</h2>",
        _agreement_plot(report),
        "<h2>Models and LLM annotators against the humans</h2>",
        _html_table(*_model_rows(report)),
    ]
    header, rows = _llm_agreement_rows(report)
    if rows:
        sections += [
            "<h2>LLM annotators: agreement with humans</h2>",
            _html_table(header, rows),
            _llm_plot(report),
        ]
    header, rows = _alt_test_rows(report)
    sections += [
        "<h2>Can an LLM replace an annotator? (alternative annotator test)</h2>",
        _html_table(header, rows) if rows else f"<p>{_h(NO_LLM_ALT_TEST)}</p>",
    ]
    item_header = ["subset", "item", "text", "gold", "answers"]
    sections += [
        "<h2>Dataset quality</h2>",
        "<p>Low agreement: " + (_h(", ".join(s.input.key for s in q["low"])) or "none") + "</p>",
        "<h3>Items on which annotators disagreed</h3>",
        _html_table(item_header, q["disagreements"]) if q["disagreements"] else "<p>None.</p>",
        "<h3>Candidate gold errors</h3>",
        _html_table(item_header, q["suspects"]) if q["suspects"] else "<p>None.</p>",
        "<h2>Sample-size planning</h2>",
        _html_table(*_planning_rows(report)),
        '<h2 id="sealing">Sealing</h2>',
        f'<p class="{"warn" if report.sealing and report.sealing.failed else ""}">'
        f"{_h(_sealing_line(report))}</p>",
        _html_table(*_sealing_rows(report)) if _sealing_rows(report)[1] else "",
        "<h2>Methods</h2><ul>"
        + "".join(f"<li><b>{_h(k)}</b>: {_h(v)}</li>" for k, v in methods(report))
        + "</ul>",
    ]
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>HUME report: {_h(report.study)}</title><style>{_CSS}</style></head><body>"
        + "\n".join(sections)
        + "</body></html>\n"
    )
