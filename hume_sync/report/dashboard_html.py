"""The live dashboard as one self-contained HTML page (no script, no external asset).

Why server-side HTML with a meta refresh: the page is small, so reloading it every few seconds
costs nothing, and a page without script needs no JavaScript copy of the rendering and can be
served under a Content-Security-Policy that forbids every external load. Every value from the
data (emails, subset names, error messages, links) goes through
:func:`hume_sync.report.safe_text.html_text`. Each number cell carries the field name of
``status --json`` it shows (``data-k``) and, for durations shown rounded, the exact value
(``data-v``), so a test reads the page and compares it with ``status --json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hume_sync.report.safe_text import html_text as esc
from hume_sync.rules.display import format_duration

_CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:16px 24px;
color:#1d2330;background:#f6f7f9}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:22px 0 8px}
.meta,.note{color:#4a5468;font-size:13px}.err{background:#fde8e8;color:#8a1c1c;padding:8px 12px;
border-radius:6px;font-weight:600}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.card{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:8px 14px;min-width:130px}
.card b{display:block;font-size:20px}.card span{font-size:12px;color:#4a5468}
.wrap{overflow-x:auto;background:#fff;border:1px solid #dde1e8;border-radius:8px}
table{border-collapse:collapse;width:100%}
th,td{padding:5px 8px;border-bottom:1px solid #eceef2;text-align:right;white-space:nowrap}
th{font-size:12px;color:#4a5468;background:#fafbfc;position:sticky;top:0}
td.t,th.t{text-align:left;white-space:normal;overflow-wrap:break-word}
tr.sub td{background:#f0f3f8;font-weight:600;text-align:left}
.bar{display:inline-block;width:90px;height:9px;background:#e4e7ed;border-radius:5px;
vertical-align:middle;overflow:hidden}.bar i{display:block;height:100%;background:#3a7d44}
.warn{color:#9a5b00;font-weight:600}a{color:#1f5fbf}
"""


def _n(key: str, value: Any) -> str:
    """A count cell: the value as ``status --json`` has it."""
    return f'<td data-k="{esc(key)}">{esc("-" if value is None else value)}</td>'


def _d(key: str, seconds: Any) -> str:
    """A duration cell: shown rounded (``format_duration``), exact in ``data-v``."""
    v = "" if seconds is None else repr(float(seconds))
    return f'<td data-k="{esc(key)}" data-v="{esc(v)}">{esc(format_duration(seconds))}</td>'


def _bar(done: int, total: int) -> str:
    pct = 0 if not total else round(100 * done / total)
    return f'<span class="bar" title="{pct} %"><i style="width:{pct}%"></i></span> {pct} %'


def _table(head: Sequence[str], rows: Sequence[str], text: Sequence[int] = (0,)) -> str:
    """A table in a scroll box; the columns in ``text`` are left-aligned text, the others
    numbers."""
    ths = "".join(
        f'<th class="t">{esc(h)}</th>' if i in text else f"<th>{esc(h)}</th>"
        for i, h in enumerate(head)
    )
    return f'<div class="wrap"><table><tr>{ths}</tr>{"".join(rows)}</table></div>'


def _totals(total: Mapping[str, Any]) -> str:
    cards = [
        ("answered", f"{total['answered']} / {total['answers_needed']}", "answers valid"),
        ("to_do", total["to_do"], "to do"),
        ("invalid", total["invalid"], "invalid (to fix)"),
        ("skipped", total["skipped"], "skipped"),
        ("open_seats", total["open_seats"], "open seats"),
        ("eta_s", format_duration(total["eta_s"]), "ETA (slowest annotator)"),
    ]
    out = "".join(
        f'<div class="card" data-total="{esc(k)}"><b>{esc(v)}</b><span>{esc(label)}</span></div>'
        for k, v, label in cards
    )
    done = (
        "<p class='note'>Every seat filled and every task answered: run 'hume-sync close'.</p>"
        if total.get("done")
        else ""
    )
    return f'<div class="cards">{out}</div>{done}'


def _eta(a: Mapping[str, Any]) -> str:
    if a["projects"] and not a["to_do"]:
        return "done"
    if not a["started"]:
        return "not started"
    return format_duration(a["eta_s"])


def _annotators(status: Mapping[str, Any]) -> str:
    rows = []
    for a in status["annotators"]:
        needed = a["answered"] + a["to_do"]
        warn = (
            f'<br><span class="warn">other accounts on this server: '
            f"{esc(', '.join(a['other_accounts']))}</span>"
            if a["other_accounts"]
            else ""
        )
        rows.append(
            f'<tr data-slot="{a["slot"]}"><td class="t">{a["slot"]}</td>'
            f'<td class="t">{esc(a["email"])}{warn}</td>'
            f'<td class="t">{esc(", ".join(a["languages"]))}</td>'
            f"<td>{_bar(a['answered'], needed)}</td>"
            + _n("answered", a["answered"])
            + _n("to_do", a["to_do"])
            + _n("invalid", a["invalid"])
            + _n("skipped", a["skipped"])
            + _d("median_lead_time_s", a["median_lead_time_s"])
            + _d("work_left_s", a["work_left_s"])
            + f'<td data-k="pace_per_hour" data-v="{esc(a["pace_per_hour"] or "")}">'
            + f"{'-' if a['pace_per_hour'] is None else format(a['pace_per_hour'], '.1f')}</td>"
            + f'<td data-k="eta_s" data-v="{esc("" if a["eta_s"] is None else a["eta_s"])}">'
            + f"{esc(_eta(a))}</td></tr>"
        )
    if not rows:
        return "<p class='note'>No annotators yet: 'hume-sync annotators add STUDY_DIR EMAIL'.</p>"
    head = ("slot", "annotator", "languages", "progress", "answered", "still owes", "invalid",
            "skipped", "median / task", "work left", "pace / h", "ETA")  # fmt: skip
    return _table(head, rows, text=(0, 1, 2))


def _signal_cell(key: str, signal: Mapping[str, Any], *, p_value: bool = False) -> str:
    """A quality signal: its number (a share, or a p-value), flagged in orange; exact in
    ``data-v``, the flag in ``data-flag``."""
    value = signal["value"]
    shown = "-" if value is None else (f"p = {value:.3g}" if p_value else f"{value:.0%}")
    flagged = bool(signal["flagged"])
    title = f' title="threshold {signal["threshold"]}; {signal["n"]} answer(s)"'
    return (
        f'<td data-k="{esc(key)}" data-v="{esc("" if value is None else repr(float(value)))}" '
        f'data-flag="{int(flagged)}"{title}>'
        + (f'<span class="warn">{esc(shown)} ⚑</span>' if flagged else esc(shown))
        + "</td>"
    )


def _hours_cell(key: str, hours: Any) -> str:
    v = "" if hours is None else repr(float(hours))
    shown = "-" if hours is None else f"{float(hours):.2f} h"
    return f'<td data-k="{esc(key)}" data-v="{esc(v)}">{esc(shown)}</td>'


def _effort(status: Mapping[str, Any]) -> str:
    """Hours spent and owed, and the quality signals, per annotator (``effort_quality`` of
    ``status --json``)."""
    data = status.get("effort_quality")
    if not data:
        return "<p class='note'>Not computed.</p>"
    rows = []
    for a in data["annotators"]:
        flags = "".join(
            f'<br><span class="warn" data-flag-text="{esc(f["flag"])}">⚑ {esc(f["flag"])}</span>'
            for f in a["flags"]
        )
        rows.append(
            f'<tr data-annotator="{esc(a["annotator"])}">'
            f'<td class="t">{esc("-" if a["slot"] is None else a["slot"])}</td>'
            f'<td class="t">{esc(a["email"] or a["annotator"])}{flags}</td>'
            + _d("median_s", a["median_s"])
            + _hours_cell("hours_so_far", a["hours_so_far"])
            + _hours_cell("hours_owed", a["hours_owed"])
            + _signal_cell("fast", a["fast"])
            + _signal_cell("straight_lining", a["straight_lining"])
            + _signal_cell("position_bias", a["position_bias"], p_value=True)
            + "</tr>"
        )
    t = data["total"]
    note = (
        f"<p class='note'>From the answers pulled at {esc(data['as_of'] or 'no pull yet')} "
        "(never gold). An item's time is its Label Studio lead_time, capped (a task left open "
        f"is not hours of work). Total: <span data-total-k='hours_so_far'>"
        f"{t['hours_so_far']:.2f}</span> h spent, <span data-total-k='hours_owed'>"
        f"{t['hours_owed']:.2f}</span> h still owed.</p>"
    )
    if not rows:
        return note + "<p class='note'>No answers pulled yet.</p>"
    head = ("slot", "annotator", "median / item", "hours so far", "hours owed", "fast answers",
            "same answer", "position bias")  # fmt: skip
    return note + _table(head, rows, text=(0, 1))


def _project_link(p: Mapping[str, Any]) -> str:
    if p["project_id"] is None:
        return "no project yet: run 'hume-sync setup'"
    if p["missing"]:
        return '<span class="warn">deleted in Label Studio</span>'
    link = f'<a href="{esc(p["project_url"])}" rel="noreferrer">project {p["project_id"]}</a>'
    if p["interface_changed"]:
        link += ' <span class="warn">interface changed</span>'
    return link


#: The count columns of a subset/slot row, as ``status --json`` names them.
_PROJECT_COUNTS = ("instances", "tasks", "finished", "answered", "invalid", "skipped", "to_do")


def _projects(status: Mapping[str, Any]) -> str:
    by_subset: dict[str, list[str]] = {}
    for p in status["projects"]:
        by_subset.setdefault(p["subset"], []).append(
            f'<tr data-subset="{esc(p["subset"])}" data-slot="{p["slot"]}">'
            f'<td class="t">slot {p["slot"]} · {esc(p["email"])}</td>'
            f"<td>{_bar(p['answered'], p['instances'])}</td>"
            + "".join(_n(k, p[k]) for k in _PROJECT_COUNTS)
            + _d("median_lead_time_s", p["median_lead_time_s"])
            + f'<td class="t">{_project_link(p)}</td></tr>'
        )
    for s in status["open_seats"]:
        by_subset.setdefault(s["subset"], []).append(
            f'<tr data-subset="{esc(s["subset"])}" data-open-seat="1"><td class="t" colspan="11">'
            f'<span class="warn">open seat</span>: needs an annotator for {esc(s["language"])} '
            f"({s['instances']} tasks); 'hume-sync annotators add'</td></tr>"
        )
    rows = []
    for subset, subset_rows in by_subset.items():
        rows.append(f'<tr class="sub"><td colspan="11">{esc(subset)}</td></tr>')
        rows += subset_rows
    head = ("subset / slot", "progress", "items", "tasks", "finished", "answered", "invalid",
            "skipped", "to do", "median / task", "Label Studio")  # fmt: skip
    return _table(head, rows, text=(0, 10))


def _agreement(model: Mapping[str, Any]) -> str:
    rows = []
    for a in model["agreement"]:
        value = "-" if a["value"] is None else f"{a['value']:.3f}"
        others = ", ".join(
            f"{k} {'-' if v is None else f'{v:.3f}'}" for k, v in a["others"].items()
        )
        rows.append(
            f'<tr data-subset="{esc(a["subset"])}"><td class="t">{esc(a["subset"])}</td>'
            f'<td class="t">{esc(a["statistic"])}</td>'
            f'<td data-k="agreement" data-v="{esc("" if a["value"] is None else a["value"])}">'
            f"{esc(value)}</td>"
            f'<td class="t">{esc(a["band"] or "")}</td>'
            + _n("n_items", a["n_items"])
            + _n("n_raters", a["n_raters"])
            + f'<td class="t">{esc(a["note"] or "")}</td>'
            + f'<td class="t note">{esc(others)}</td></tr>'
        )
    head = ("subset", "statistic", "value", "band", "items", "annotators", "note", "also")
    pulled = model["pulled_at"] or "never (run 'hume-sync pull')"
    return (
        f'<p class="note">From the {esc(model["agreement_source"])}. Last pull: '
        f'<span data-k="pulled_at">{esc(pulled)}</span>.</p>'
        + _table(head, rows, text=(0, 1, 3, 6, 7))
    )


def _invalid(model: Mapping[str, Any]) -> str:
    items = model["invalid_to_fix"]
    if not items:
        return "<p class='note'>None as of the last pull.</p>"
    rows = [
        f'<tr><td class="t">{esc(i["subset"])}</td><td class="t">slot {i["slot"]} · '
        f'{esc(i["email"])}</td><td class="t">{esc(i["error"])}</td>'
        f'<td class="t"><a href="{esc(i["url"])}" rel="noreferrer">task {i["task_id"]}</a></td>'
        "</tr>"
        for i in items
    ]
    return (
        "<p class='note'>As of the last pull; the annotator opens the link and corrects the "
        "answer.</p>"
        + _table(("subset", "annotator", "problem", "open in Label Studio"), rows, range(4))
    )


def _headline(model: Mapping[str, Any]) -> str:
    rows = []
    for h in model["headline"] or []:
        ci = (
            f"[{h['interval'][0]:.3f}, {h['interval'][1]:.3f}] {h['interval_method']}"
            if h["interval"] and None not in h["interval"]
            else (h["interval_note"] or "-")
        )
        human = "-" if h["human"] is None else f"{h['human']:.3f}"
        agree = "-" if h["agreement"] is None else f"{h['agreement']:.3f}"
        rows.append(
            f'<tr data-subset="{esc(h["subset"])}"><td class="t">{esc(h["subset"])}</td>'
            f'<td data-k="human" data-v="{esc("" if h["human"] is None else h["human"])}">'
            f'{esc(human)}</td><td class="t">{esc(h["method"] or "")}</td>'
            f'<td class="t">{esc(ci)}</td>'
            f'<td>{esc(agree)}</td><td class="t">{esc(h["agreement_statistic"])}</td></tr>'
        )
    head = ("subset", "human score", "method", "interval (95 %)", "agreement", "statistic")
    return (
        "<p class='note'>Computed as 'hume-sync export' computes it (valid answers given before "
        "the close).</p>" + _table(head, rows, text=(0, 2, 3, 5))
    )


def render_page(model: Mapping[str, Any]) -> str:
    """The dashboard page for ``model`` (:func:`hume_sync.report.dashboard_model.page_model`)."""
    refresh = int(model["refresh_s"])
    status = model["status"]
    parts = [
        f"<h1>{esc(model['study'])}: annotation progress</h1>",
        f'<p class="meta">Read {esc(model["generated_at"])}; this page reloads every {refresh} s. '
        "Counts: 'hume-sync status --json'.</p>",
    ]
    if model["closed_at"]:
        parts.append(f'<p class="meta">Study closed at {esc(model["closed_at"])}.</p>')
    if model["label_studio_error"]:
        parts.append(f'<p class="err" id="ls-error">{esc(model["label_studio_error"])}</p>')
    if status is not None:
        parts += [
            _totals(status["total"]),
            "<h2>Annotators: what each still owes</h2>",
            _annotators(status),
            "<h2>Per subset and annotator slot</h2>",
            _projects(status),
            "<h2>Effort and quality signals</h2>",
            _effort(status),
        ]
    parts += ["<h2>Invalid answers to fix</h2>", _invalid(model)]
    if model["headline"] is not None:
        parts += ["<h2>Report headline (study closed)</h2>", _headline(model)]
    parts += ["<h2>Agreement so far between annotators</h2>", _agreement(model)]
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="{refresh}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(model['study'])} · hume dashboard</title><style>{_CSS}</style></head>"
        f"<body>{''.join(parts)}</body></html>"
    )
