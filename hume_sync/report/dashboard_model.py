"""The live dashboard's page model: what `hume-sync dashboard` shows, as plain JSON-able data.

Why a model apart from the server and the HTML: the page must show exactly the numbers
``hume-sync status --json`` gives, so it carries that dict untouched (computed by
:func:`hume_sync.workflow.status.status_json`, never a second way) and adds only what status
does not have, each read from the study store as of the last pull (``pulled_at``, shown on the
page):

- **agreement so far** per subset, between the subset's annotators on the items every one of
  them answered validly; the statistic is the task type's own headline agreement
  (``score_headline_agreement`` among ``score_agreements``, from the registry). Only the human
  answers are read: no gold (the type's agreement rules get an empty gold mapping) and no model
  or LLM answers while the study is open;
- **invalid answers to fix**: tasks whose only answers do not fit the interface, each with the
  link that opens the task in the annotator's Label Studio
  (:func:`hume_sync.rules.display.task_url`);
- **after close, the report's headline**: per subset the human score with its interval and the
  headline agreement, computed by the code ``export`` runs
  (:func:`hume_sync.report.model.subset_inputs` then :func:`scoring.subset_report.evaluate_subset`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

from hume_sync import task_types
from hume_sync.report.model import human_answers, subset_inputs
from hume_sync.rules.display import task_url
from hume_sync.rules.late_answers import closed_at
from hume_sync.store import CLOSED_AT, PULLED_AT, Store, SubsetRow, annotator_key, is_closed
from scoring.errors import ScoringError
from scoring.records import Agreement
from scoring.subset_report import evaluate_subset

#: Where the agreement so far comes from (shown on the page beside the pull time).
AGREEMENT_SOURCE = (
    "valid human answers in the study store as of the last pull, on the items every annotator "
    "of the subset answered; no gold, no model answers"
)


def _number(value: Any) -> float | None:
    """A finite float for JSON, or None (NaN and infinities have no JSON form)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _raters(store: Store, sub: SubsetRow) -> list[str]:
    """The annotator keys of the subset's seats that have a project (who should answer)."""
    return [annotator_key(p.slot) for p in store.slot_projects(sub.key)]


def agreement_so_far(
    sub: SubsetRow, raters: list[str], humans: Mapping[str, Mapping[Hashable, Any]]
) -> dict[str, Any]:
    """The subset type's headline agreement among ``raters`` on the items all of them answered.

    ``humans`` maps an annotator key to ``{hume_id: answer}`` (valid answers only). With fewer
    than two raters, or no item answered by all, there is no value and ``note`` says why.
    """
    ttype = task_types.get(sub.task_type)
    out: dict[str, Any] = {
        "subset": sub.key,
        "task_type": sub.task_type,
        "statistic": ttype.score_headline_agreement,
        "value": None,
        "band": None,
        "n_raters": len(raters),
        "n_items": 0,
        "others": {},
        "note": None,
    }
    if len(raters) < 2:
        who = "one annotator" if raters else "no annotator yet"
        out["note"] = f"{who}: no agreement to measure"
        return out
    common = set.intersection(*(set(humans.get(r, {})) for r in raters))
    out["n_items"] = len(common)
    if not common:
        out["note"] = f"no item answered by all {len(raters)} annotators yet"
        return out
    answers: dict[str, dict[Hashable, Any]] = {
        r: {i: humans[r][i] for i in sorted(common, key=str)}
        for r in raters  # ids are str
    }
    try:
        # An empty gold mapping: agreement compares annotators with each other only.
        found: list[Agreement] = ttype.score_agreements({}, answers)
    except ScoringError as exc:
        out["note"] = f"not computable yet: {exc}"
        return out
    head = next((a for a in found if a.method == ttype.score_headline_agreement), None)
    out["others"] = {a.method: _number(a.value) for a in found if a is not head}
    if head is None:
        out["note"] = "the type's headline statistic was not computed"
        return out
    out["value"] = _number(head.value)
    out["band"] = head.band
    notes = list(head.warnings)
    if out["value"] is None:
        notes.insert(0, "undefined on these items")
    out["note"] = "; ".join(notes) or None
    return out


def invalid_to_fix(store: Store) -> list[dict[str, Any]]:
    """Tasks whose annotator gave only invalid answers (as of the last pull), with links."""
    annotators = {a.slot: a for a in store.annotators()}
    projects = {(p.subset_key, p.slot): p.ls_project_id for p in store.slot_projects()}
    out: list[dict[str, Any]] = []
    for sub in store.subsets():
        rows = store.annotations(sub.key)
        valid = {(r.slot, r.hume_id) for r in rows if r.status == "valid"}
        seen: set[tuple[int, int]] = set()
        for r in rows:
            if r.status != "invalid" or (r.slot, r.hume_id) in valid:
                continue
            a, pid = annotators.get(r.slot), projects.get((sub.key, r.slot))
            if a is None or pid is None or (r.slot, r.ls_task_id) in seen:
                continue
            seen.add((r.slot, r.ls_task_id))
            out.append(
                {
                    "subset": sub.key,
                    "slot": r.slot,
                    "email": a.email,
                    "task_id": r.ls_task_id,
                    "error": r.error or "does not fit the interface",
                    "url": task_url(a.ls_url, pid, r.ls_task_id),
                }
            )
    return out


def headline(store: Store) -> list[dict[str, Any]]:
    """The report's headline per subset (only call once the study is closed: reads gold)."""
    out = []
    for inp in subset_inputs(store):
        rep = evaluate_subset(inp)
        head = rep.headline_agreement
        out.append(
            {
                "subset": inp.key,
                "task_type": inp.task_type.name,
                "human": None if rep.human is None else _number(rep.human.value),
                "method": None if rep.human is None else rep.human.method,
                "n_items": None if rep.human is None else rep.human.n_items,
                "interval": None
                if rep.interval is None
                else [_number(rep.interval.low), _number(rep.interval.high)],
                "interval_method": None if rep.interval is None else rep.interval.method,
                "interval_note": rep.interval_note,
                "agreement": None if head is None else _number(head.value),
                "agreement_statistic": inp.task_type.score_headline_agreement,
                "complete": bool(rep.coverage.get("complete")),
            }
        )
    return out


def store_part(store: Store, *, with_headline: bool = True) -> dict[str, Any]:
    """Everything the page shows that comes from the store (see the module docstring)."""
    meta = store.meta()
    closed = closed_at(store)
    agreement = []
    for sub in store.subsets():
        humans, *_ = human_answers(store, sub, closed, False, {})  # keyed annotator-<slot>
        agreement.append(agreement_so_far(sub, _raters(store, sub), humans))
    return {
        "pulled_at": meta.get(PULLED_AT),
        "closed_at": meta.get(CLOSED_AT),
        "agreement_source": AGREEMENT_SOURCE,
        "agreement": agreement,
        "invalid_to_fix": invalid_to_fix(store),
        "headline": headline(store) if with_headline and is_closed(store) else None,
    }


def page_model(
    study: str,
    status: Mapping[str, Any] | None,
    label_studio_error: str | None,
    stored: Mapping[str, Any],
    *,
    generated_at: str,
    refresh_s: int,
) -> dict[str, Any]:
    """The whole page as data (the dashboard's ``/data.json``): ``status`` is exactly the dict
    ``status --json`` prints, or None with ``label_studio_error`` when Label Studio was down."""
    return {
        "study": study,
        "generated_at": generated_at,
        "refresh_s": refresh_s,
        "label_studio_error": label_studio_error,
        "status": None if status is None else dict(status),
        **stored,
    }
