"""`hume-sync status`: what a project manager checks every morning, and acts on.

Per subset and annotator slot (one project each, on the annotator's own Label Studio): the
tasks, how many Label Studio counts as finished (its own rule: a task with a non-skipped
annotation), and how many tasks hold a valid answer, an invalid one (it does not fit the
interface: not done) or only a skip, each annotation checked with the same translation as
``pull`` (``pull.translate``). Per annotator, including those who have not started: what they
have done and what they still owe, the work left at their median time per task, and an ETA at
their pace so far. Seats no registered annotator can take yet are listed with the languages
needed (``eng+ara`` where a reader of both is). Every duration is printed in units that fit it
(s, min, h, d). ``close`` uses the same numbers: a study is done when every seat is filled and
no task is left to do.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from hume_sync.errors import HumeError
from hume_sync.labelstudio import manager, servers
from hume_sync.labelstudio.annotators import other_accounts, plan_seats, seat_languages
from hume_sync.labelstudio.client import LabelStudioClient, LabelStudioNotFoundError
from hume_sync.labelstudio.ml_backends import configured_url
from hume_sync.labelstudio.ml_backends import connection as ml_connection
from hume_sync.progress import progress
from hume_sync.rules.display import format_duration
from hume_sync.store import AnnotatorRow, SlotProject, Store, SubsetRow
from hume_sync.store.sync_state import SyncState
from hume_sync.workflow import changes
from hume_sync.workflow.pull import translate
from hume_sync.workflow.setup import render_subset_config
from scoring.languages import annotator_language as language_code

ClientFor = Callable[[str], LabelStudioClient]

#: What status reads of a project record: its counters, and the interface to compare.
STATUS_FIELDS = ("id", "task_number", "finished_task_number", "label_config", *changes.COUNT_FIELDS)


@dataclass
class ProjectStatus:
    """One subset on one annotator's server. Counts are tasks, not annotations."""

    subset: str
    language: str
    slot: int
    annotator: str
    email: str
    project_id: int | None  # None: setup has not made it yet
    project_url: str | None
    missing: bool  # recorded, but deleted in Label Studio
    instances: int
    tasks: int  # tasks in the Label Studio project
    finished: int  # Label Studio's own count (finished_task_number)
    answered: int  # tasks with a valid answer
    invalid: int  # tasks answered, but no answer fits the interface
    skipped: int  # tasks only skipped
    to_do: int  # instances without a valid answer in this project
    median_lead_time_s: float | None = None
    interface_changed: bool = False  # someone edited the labelling config in Label Studio
    #: the study's ML backend here: connected / missing / unreachable (None: the study has none)
    ml_backend: str | None = None
    ml_backend_reason: str = ""
    retired: bool = False  # the annotator left after finishing it (annotators remove)


@dataclass
class AnnotatorStatus:
    slot: int
    annotator: str
    email: str
    languages: list[str]
    label_studio: str
    projects: int
    answered: int
    invalid: int
    skipped: int
    to_do: int
    started: bool
    median_lead_time_s: float | None = None
    work_left_s: float | None = None
    pace_per_hour: float | None = None
    eta_s: float | None = None
    # accounts on the annotator's server besides theirs and the manager's: they can read the
    # annotator's answers (someone was invited in)
    other_accounts: list[str] = field(default_factory=list)
    retired: bool = False  # annotators remove: answers kept, server stopped


@dataclass(frozen=True)
class OpenSeat:
    subset: str
    language: str  # what it waits for: ``eng``, or ``eng+ara`` when both must be read
    instances: int


@dataclass(frozen=True)
class ManagerProject:
    """One subset's mirror project on the manager's server, as the study's ML backend sees it:
    ``ml_backend`` connected / missing / unreachable, or ``"no project"`` (not mirrored yet)
    and ``"server down"`` (the manager's Label Studio did not answer; ``reason`` says why)."""

    subset: str
    project_id: int | None
    ml_backend: str
    reason: str = ""


@dataclass
class StudyStatus:
    study: str
    projects: list[ProjectStatus] = field(default_factory=list)
    annotators: list[AnnotatorStatus] = field(default_factory=list)
    open_seats: list[OpenSeat] = field(default_factory=list)
    #: the manager's mirror projects, checked only when the study has an ML backend
    manager_projects: list[ManagerProject] = field(default_factory=list)

    @property
    def done(self) -> bool:
        """Every seat filled, every project there, every task with a valid answer."""
        return (
            not self.open_seats
            and not any(a.other_accounts for a in self.annotators)
            and bool(self.projects)
            and all(p.project_id is not None and not p.missing for p in self.projects)
            and all(p.to_do == 0 and not p.interface_changed for p in self.projects)
        )

    def unfinished(self) -> list[str]:
        """One phrase per thing that keeps the study open (for ``close``)."""
        out = [f"{s.subset}: no annotator for {s.language} yet" for s in self.open_seats]
        out += [
            f"{a.email}'s Label Studio has other accounts ({', '.join(a.other_accounts)})"
            for a in self.annotators
            if a.other_accounts
        ]
        for p in self.projects:
            if p.project_id is None:
                out.append(f"{p.subset} ({p.email}): no project yet (run 'hume-sync setup')")
            elif p.missing:
                out.append(f"{p.subset} ({p.email}): project deleted in Label Studio")
            elif p.interface_changed:
                out.append(f"{p.subset} ({p.email}): labelling interface changed in Label Studio")
            elif p.to_do:
                extra = f", {p.invalid} invalid" if p.invalid else ""
                out.append(f"{p.subset} ({p.email}): {p.to_do} task(s) to do{extra}")
        return out


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def project_status(
    client: LabelStudioClient,
    store: Store,
    subset: SubsetRow,
    project: SlotProject,
    annotator: AnnotatorRow,
    instances: int | None = None,
    *,
    full: bool = False,
) -> tuple[ProjectStatus, list[float], Span]:
    """Status of one project, plus its valid answers' lead times and creation times.

    Label Studio's own counters come first (one small request): a project without a single
    annotation or skip needs nothing more. Otherwise the answers are those the last pull stored
    with the tasks changed since read in their place (:func:`_since_pull`), or, without a pull
    to start from, when a change may have escaped that view, or with ``full``, the project's
    annotated tasks streamed once (one export); each answer read from Label Studio is checked
    as pull checks it.
    """
    n = store.instance_count(subset.key) if instances is None else instances
    status = ProjectStatus(
        subset=subset.key,
        language=language_code(subset.language),
        slot=annotator.slot,
        annotator=annotator.key,
        email=annotator.email,
        project_id=project.ls_project_id,
        project_url=f"{annotator.ls_url}/projects/{project.ls_project_id}/data",
        missing=False,
        instances=n,
        tasks=0,
        finished=0,
        answered=0,
        invalid=0,
        skipped=0,
        to_do=n,
    )
    try:
        info = client.get_project(project.ls_project_id, STATUS_FIELDS)
    except LabelStudioNotFoundError:
        status.missing = True
        return status, [], Span()
    status.tasks = int(info.get("task_number") or 0)
    status.finished = int(info.get("finished_task_number") or 0)
    status.interface_changed = (
        str(info.get("label_config") or "").strip() != render_subset_config(subset).strip()
    )
    answers = int(info.get("total_annotations_number") or 0)
    skips = int(info.get("skipped_annotations_number") or 0)
    if not answers and not skips and "total_annotations_number" in info:
        return status, [], Span()  # Label Studio counts nothing done: no export needed
    state = changes.usable(
        store.sync_state(subset.key, annotator.slot), project.ls_project_id, full
    )
    tally = None
    if state is not None:
        tally = _since_pull(
            client, store, subset, annotator, state, changes.label_studio_count(info)
        )
    if tally is None:
        try:
            tally = _exported(client, store, subset, project, annotator)
        except LabelStudioNotFoundError:
            status.missing = True
            return status, [], Span()
    status.answered, status.invalid, status.skipped = tally.answered, tally.invalid, tally.skipped
    status.to_do = n - status.answered
    status.median_lead_time_s = _median(tally.leads)
    return status, tally.leads, tally.span


@dataclass
class Span:
    """When a seat's valid answers were given: how many have a time, the first and the last
    (all that the pace needs, so that no list of times is kept)."""

    n: int = 0
    first: datetime | None = None
    last: datetime | None = None

    def add(self, when: datetime | None, n: int = 1, last: datetime | None = None) -> None:
        if when is None:
            return
        last = when if last is None else last
        self.n += n
        self.first = when if self.first is None else min(self.first, when)
        self.last = last if self.last is None else max(self.last, last)

    def merge(self, other: Span) -> None:
        self.add(other.first, other.n, other.last)


@dataclass
class Tally:
    """What status counts of one project: tasks answered / invalid / only skipped, the valid
    answers' lead times and when they were given, and how many answers it saw."""

    answered: int = 0
    invalid: int = 0
    skipped: int = 0
    leads: list[float] = field(default_factory=list)
    span: Span = field(default_factory=Span)
    answers: int = 0

    def add_task(self, answers: list[tuple[str, Any, Any]]) -> None:
        """One task's answers, each (status, lead time, created at), as pull checks them."""
        self.answers += len(answers)
        kinds = {kind for kind, _, _ in answers}
        for kind, lead, created in answers:
            if kind != "valid":
                continue
            if isinstance(lead, int | float):
                self.leads.append(float(lead))
            self.span.add(_time(created))
        if "valid" in kinds:
            self.answered += 1
        elif "invalid" in kinds:
            self.invalid += 1
        elif "cancelled" in kinds:
            self.skipped += 1


def _answer(subset: SubsetRow, instance: Any, ann: dict[str, Any]) -> tuple[str, Any, Any]:
    _, kind, _ = translate(subset, instance, ann)
    return kind, ann.get("lead_time"), ann.get("created_at")


def _exported(
    client: LabelStudioClient,
    store: Store,
    subset: SubsetRow,
    project: SlotProject,
    annotator: AnnotatorRow,
) -> Tally:
    """The project's answers from one export, each checked as pull checks it; one task's
    answers are held at a time."""
    exported = client.export_annotated_tasks(project.ls_project_id)
    ours = store.project_instances(subset.key, annotator.slot)  # one query, not one per task
    seen = changes.ProjectSeen()
    tally = Tally()
    for task in exported:
        task_id = int(task["id"])
        mine = seen.split(task, changes.ours(ours, task, subset.key), annotator)
        if mine:
            tally.add_task([_answer(subset, ours[task_id], ann) for ann in mine])
    return tally


def _since_pull(
    client: LabelStudioClient,
    store: Store,
    subset: SubsetRow,
    annotator: AnnotatorRow,
    state: SyncState,
    counted: int | None,
) -> Tally | None:
    """The answers as the last pull stored them (counted in the store, :meth:`answer_tally`),
    with the tasks changed since read from Label Studio in their place
    (:mod:`hume_sync.workflow.changes`); None when a change may have escaped that view (the
    caller reads the export). Status writes nothing: the store stays as the last pull left it."""
    tasks = changes.changed_tasks(client, state.ls_project_id, state)
    if tasks is None:
        return None
    ids = [int(t["id"]) for t in tasks]
    seen = changes.ProjectSeen.continuing(state, ids, changes.now_text())
    stored = store.answer_tally(subset.key, annotator.slot, ids)
    tally = Tally(stored.answered, stored.invalid, stored.skipped, stored.leads)
    tally.answers = stored.answers
    tally.span.add(_time(stored.first), stored.times, _time(stored.last))
    instances = store.project_instances(subset.key, annotator.slot, ids)
    for task in tasks:
        task_id = int(task["id"])
        mine = seen.split(task, changes.ours(instances, task, subset.key), annotator)
        if mine:
            tally.add_task([_answer(subset, instances[task_id], ann) for ann in mine])
    return tally if changes.counts_add_up(tally.answers, seen, counted) else None


def study_status(store: Store, client_for: ClientFor, *, full: bool = False) -> StudyStatus:
    """Status of every seat of every subset (see the module docstring); ``full``: read every
    project whole (``status --full``, ``close``) rather than what changed since the last pull."""
    result = StudyStatus(study=store.study_meta().study_name or "")
    annotators = {a.slot: a for a in store.annotators()}
    subsets = {s.key: s for s in store.subsets()}
    made = {(p.subset_key, p.slot): p for p in store.slot_projects()}
    per: dict[int, dict[str, Any]] = {
        slot: {"leads": [], "times": Span(), "projects": []} for slot in annotators
    }
    seats = [(key, slot) for key, slots in plan_seats(store).items() for slot in slots]
    sizes: dict[str, int] = {}
    backend_url = configured_url(store)
    for key, slot in progress(seats, desc="reading progress", total=len(seats)):
        sub = subsets[key]
        n = sizes.setdefault(key, store.instance_count(key))
        if slot is None:
            result.open_seats.append(OpenSeat(key, seat_languages(sub), n))
            continue
        a = annotators[slot]
        project = made.get((key, slot))
        if project is None:
            st = ProjectStatus(
                key, language_code(sub.language), slot, a.key, a.email, None, None, False,
                n, 0, 0, 0, 0, 0, n,
            )  # fmt: skip
        elif a.retired_at is not None:  # a seat they finished before they left (seat_holders)
            st = ProjectStatus(
                key, language_code(sub.language), slot, a.key, a.email, project.ls_project_id,
                None, False, n, n, n, n, 0, 0, 0, retired=True,
            )  # fmt: skip
        else:
            st, leads, given = project_status(
                client_for(a.ls_url), store, sub, project, a, n, full=full
            )
            per[slot]["leads"] += leads
            per[slot]["times"].merge(given)
        if backend_url is not None and st.project_id is not None and not (st.missing or st.retired):
            seen = ml_connection(client_for(a.ls_url), st.project_id)
            st.ml_backend, st.ml_backend_reason = seen.state, seen.reason
        per[slot]["projects"].append(st)
        result.projects.append(st)
    for slot, a in annotators.items():
        projects = per[slot]["projects"]
        times: Span = per[slot]["times"]
        ann = AnnotatorStatus(
            slot=slot,
            annotator=a.key,
            email=a.email,
            languages=list(a.languages),
            label_studio=a.ls_url,
            projects=len(projects),
            answered=sum(p.answered for p in projects),
            invalid=sum(p.invalid for p in projects),
            skipped=sum(p.skipped for p in projects),
            to_do=sum(p.to_do for p in projects),
            started=bool(times.n) or any(p.invalid or p.skipped for p in projects),
            median_lead_time_s=_median(per[slot]["leads"]),
            other_accounts=[] if a.retired_at else other_accounts(client_for(a.ls_url), a.email),
            retired=a.retired_at is not None,
        )
        if ann.median_lead_time_s is not None:
            ann.work_left_s = ann.to_do * ann.median_lead_time_s
        if times.n >= 2 and times.first is not None and times.last is not None:
            span_h = (times.last - times.first).total_seconds() / 3600
            if span_h > 0:
                ann.pace_per_hour = (times.n - 1) / span_h
                # calendar time to finish: at their pace, and never less than the work itself
                ann.eta_s = max(ann.to_do / ann.pace_per_hour * 3600, ann.work_left_s or 0.0)
        result.annotators.append(ann)
    if backend_url is not None:
        result.manager_projects = manager_backend(store, list(subsets))
    return result


def manager_backend(store: Store, subset_keys: list[str]) -> list[ManagerProject]:
    """The ML backend on each of the manager's mirror projects (none without a manager's
    server). The server is asked, not started: status changes nothing."""
    url = manager.configured_url()
    if url is None:
        return []
    try:
        ls = servers.client_for(url)
        found = manager.mirror_projects(ls, store.study_uid(), subset_keys)
        out = []
        for key in subset_keys:
            if key not in found:
                out.append(ManagerProject(key, None, "no project"))
                continue
            seen = ml_connection(ls, found[key])
            out.append(ManagerProject(key, found[key], seen.state, seen.reason))
        return out
    except HumeError as exc:
        return [ManagerProject("", None, "server down", str(exc).splitlines()[0][:200])]


def totals(status: StudyStatus) -> dict[str, Any]:
    p = status.projects
    etas = [a.eta_s for a in status.annotators if a.to_do and a.eta_s is not None]
    return {
        "seats": len(p) + len(status.open_seats),
        "open_seats": len(status.open_seats),
        "answers_needed": sum(x.instances for x in p) + sum(s.instances for s in status.open_seats),
        "answered": sum(x.answered for x in p),
        "invalid": sum(x.invalid for x in p),
        "skipped": sum(x.skipped for x in p),
        "to_do": sum(x.to_do for x in p) + sum(s.instances for s in status.open_seats),
        "finished_in_label_studio": sum(x.finished for x in p),
        "tasks_in_label_studio": sum(x.tasks for x in p),
        # annotators work side by side: the study ends with the slowest of them
        "eta_s": max(etas) if etas else None,
        "done": status.done,
    }


def to_json(status: StudyStatus) -> dict[str, Any]:
    """What ``status --json`` prints (the dashboard shows exactly this)."""
    return {
        "study": status.study,
        "projects": [asdict(p) for p in status.projects],
        "annotators": [asdict(a) for a in status.annotators],
        "open_seats": [asdict(s) for s in status.open_seats],
        "manager_projects": [asdict(m) for m in status.manager_projects],
        "total": totals(status),
    }


def status_json(
    store: Store,
    client_for: ClientFor,
    *,
    full: bool = False,
    effort: Callable[[Store], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The dict ``hume-sync status --json`` prints: progress read from Label Studio now, and
    the effort and quality signals of the answers the last pull stored (``effort_quality``;
    ``effort``: how to get them, the dashboard's cache, else computed now)."""
    from hume_sync.workflow.status_effort import effort_json

    out = to_json(study_status(store, client_for, full=full))
    out["effort_quality"] = (effort or effort_json)(store)
    return out


LEGEND = (
    "tasks, finished: Label Studio's own counts (finished = the task has a non-skipped "
    "annotation); answered / invalid / skipped: tasks whose answer fits the interface / does "
    "not (not done) / was skipped; to do: tasks without a valid answer; median: median time "
    "per answered task; work left: to do × median; ETA: to do at the annotator's pace so far "
    "(never less than the work left)."
)


def backend_lines(status: StudyStatus) -> list[str]:
    """A warning per project where the study's ML backend is missing or unreachable."""
    out = []
    for p in status.projects:
        if p.ml_backend == "missing":
            out.append(
                f"warning: {p.subset} (slot {p.slot}, {p.email}): ML backend not connected to "
                f"project {p.project_id}; 'hume-sync setup' connects it"
            )
        elif p.ml_backend == "unreachable":
            out.append(
                f"warning: {p.subset} (slot {p.slot}, {p.email}): Label Studio cannot use the "
                f"ML backend of project {p.project_id}: {p.ml_backend_reason}"
            )
    for m in status.manager_projects:
        where = f"{m.subset} (manager's project {m.project_id})"
        if m.ml_backend == "missing":
            out.append(f"warning: {where}: ML backend not connected; 'hume-sync pull' connects it")
        elif m.ml_backend == "unreachable":
            out.append(f"warning: {where}: Label Studio cannot use the ML backend: {m.reason}")
        elif m.ml_backend == "no project":
            out.append(
                f"warning: {m.subset}: not mirrored to the manager's Label Studio yet; "
                "'hume-sync pull' mirrors it"
            )
        elif m.ml_backend == "server down":
            out.append(
                f"warning: the manager's Label Studio did not answer ({m.reason}); "
                "'hume-sync manager up' starts the embedded one"
            )
    return out


def render(status: StudyStatus) -> str:
    """Plain-text tables with labelled columns: per subset and slot, then per annotator."""
    head = (
        f"{'subset / slot':<44} {'tasks':>5} {'finished':>8} {'answered':>8} {'invalid':>7} "
        f"{'skipped':>7} {'to do':>5} {'median':>7}  project"
    )
    lines = [head]
    rows: dict[str, list[str]] = {}
    for p in status.projects:
        who = f"  slot {p.slot} {p.email}"[:44]
        if p.project_id is None:
            rows.setdefault(p.subset, []).append(f"{who:<44} no project yet: run 'hume-sync setup'")
            continue
        where = (
            "retired (finished; server stopped, answers kept in the store)"
            if p.retired
            else "DELETED in Label Studio: 'hume-sync setup --recreate-missing'"
            if p.missing
            else f"{p.project_url}  INTERFACE CHANGED: 'hume-sync setup' restores it"
            if p.interface_changed
            else p.project_url
        )
        rows.setdefault(p.subset, []).append(
            f"{who:<44} {p.tasks:>5} {p.finished:>8} {p.answered:>8} {p.invalid:>7} "
            f"{p.skipped:>7} {p.to_do:>5} {format_duration(p.median_lead_time_s):>7}  {where}"
        )
    for s in status.open_seats:
        rows.setdefault(s.subset, []).append(
            f"  open seat: needs an annotator for {s.language} ({s.instances} tasks); "
            "'hume-sync annotators add'"
        )
    for subset, subset_rows in rows.items():
        lines.append(subset)
        lines.extend(subset_rows)
    lines.append("")
    lines.append(
        f"{'slot':>4}  {'annotator':<30} {'answered':>8} {'invalid':>7} {'skipped':>7} "
        f"{'to do':>5} {'median':>7} {'work left':>9} {'ETA':>11}"
    )
    for a in status.annotators:
        eta = (
            "retired"
            if a.retired
            else "done"
            if a.projects and not a.to_do
            else "not started"
            if not a.started
            else format_duration(a.eta_s)
        )
        lines.append(
            f"{a.slot:>4}  {a.email[:30]:<30} {a.answered:>8} {a.invalid:>7} {a.skipped:>7} "
            f"{a.to_do:>5} {format_duration(a.median_lead_time_s):>7} "
            f"{format_duration(a.work_left_s):>9} {eta:>11}"
        )
    if not status.annotators:
        lines.append("      no annotators yet: 'hume-sync annotators add STUDY_DIR EMAIL'")
    lines += backend_lines(status)
    for a in status.annotators:
        if a.other_accounts:
            lines.append(
                f"warning: {a.email}'s Label Studio also has accounts for "
                f"{', '.join(a.other_accounts)}: they can read {a.email}'s answers"
            )
    t = totals(status)
    lines.append("")
    lines.append(
        f"Total: {t['answered']}/{t['answers_needed']} answers valid, {t['to_do']} to do "
        f"({t['invalid']} invalid, {t['skipped']} skipped); {t['open_seats']} open seat(s); "
        f"Label Studio: {t['finished_in_label_studio']}/{t['tasks_in_label_studio']} tasks "
        f"finished; ETA {format_duration(t['eta_s'])}"
        + ("; study complete: 'hume-sync close'" if t["done"] else "")
    )
    lines.append(LEGEND)
    return "\n".join(lines)
