"""`hume-sync status`: what a project manager checks every morning.

Per project: tasks, finished tasks, annotations, skipped (cancelled) annotations; per annotator:
annotations and the median time per task (Label Studio's ``lead_time``); and two ways to see the
end: remaining annotations at the pace seen so far (calendar time), and the remaining work at
the median time per task (annotator hours). Counts come from the tasks themselves, since Label
Studio Community has no per-annotator statistics (an Enterprise feature).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from hume_sync.ls_client import LabelStudioClient
from hume_sync.progress import progress
from hume_sync.pull import annotator_id
from hume_sync.store import Store


@dataclass
class AnnotatorStatus:
    annotator: str
    annotations: int
    skipped: int
    median_lead_time_s: float | None
    email: str | None = None


@dataclass
class ProjectStatus:
    subset: str
    project_id: int | None
    overlap: int
    tasks: int
    finished_tasks: int
    annotations: int
    skipped: int
    remaining_annotations: int
    annotators: list[AnnotatorStatus] = field(default_factory=list)
    median_lead_time_s: float | None = None
    pace_per_hour: float | None = None
    eta_hours: float | None = None
    remaining_work_hours: float | None = None


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def project_status(
    client: LabelStudioClient | None,
    subset_key: str,
    project_id: int | None,
    overlap: int,
    n_instances: int,
) -> ProjectStatus:
    """Status of one project, computed from its tasks and their annotations."""
    if client is None or project_id is None:
        return ProjectStatus(
            subset_key, project_id, overlap, n_instances, 0, 0, 0, n_instances * overlap
        )
    tasks = client.list_tasks(project_id)
    per_annotator: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"n": 0, "skipped": 0, "lead": []}
    )
    times: list[datetime] = []
    finished = done = skipped = remaining = 0
    leads: list[float] = []
    for task in tasks:
        anns = task.get("annotations") or []
        valid = [a for a in anns if not a.get("was_cancelled")]
        skipped_here = len(anns) - len(valid)
        skipped += skipped_here
        done += len(valid)
        # Label Studio counts skipped annotations towards a task's overlap as well.
        finished += int(len(anns) >= overlap)
        remaining += max(0, overlap - len(anns))
        for a in anns:
            rec = per_annotator[annotator_id(a)]
            if a.get("was_cancelled"):
                rec["skipped"] += 1
                continue
            rec["n"] += 1
            if isinstance(a.get("lead_time"), int | float):
                rec["lead"].append(float(a["lead_time"]))
                leads.append(float(a["lead_time"]))
            t = _parse_time(a.get("created_at"))
            if t is not None:
                times.append(t)
    status = ProjectStatus(
        subset=subset_key,
        project_id=project_id,
        overlap=overlap,
        tasks=len(tasks),
        finished_tasks=finished,
        annotations=done,
        skipped=skipped,
        remaining_annotations=remaining,
        median_lead_time_s=_median(leads),
    )
    status.annotators = [
        AnnotatorStatus(name, v["n"], v["skipped"], _median(v["lead"]))
        for name, v in sorted(per_annotator.items())
    ]
    if len(times) >= 2:
        span_h = (max(times) - min(times)).total_seconds() / 3600
        if span_h > 0:
            status.pace_per_hour = (len(times) - 1) / span_h
            status.eta_hours = remaining / status.pace_per_hour
    if status.median_lead_time_s is not None:
        status.remaining_work_hours = remaining * status.median_lead_time_s / 3600
    return status


def study_status(client: LabelStudioClient | None, store: Store) -> list[ProjectStatus]:
    """Status of every subset; subsets without a project yet show all work as remaining.

    Annotators are shown by their Label Studio email where the server lists its users (the
    store and the report keep the anonymous ``ls-user-<id>`` keys).
    """
    subsets = store.subsets()
    statuses = [
        project_status(client, s.key, s.ls_project_id, s.overlap, len(store.instances(s.key)))
        for s in progress(subsets, desc="reading progress", total=len(subsets))
    ]
    if client is not None:
        names = _annotator_names(client)
        for st in statuses:
            for a in st.annotators:
                a.email = names.get(a.annotator)
    return statuses


def _annotator_names(client: LabelStudioClient) -> dict[str, str]:
    from hume_sync.ls_client import LabelStudioError

    try:
        return {f"ls-user-{uid}": email for uid, email in client.user_emails().items() if email}
    except LabelStudioError:  # a token that may not list users: keep the ids
        return {}


def to_json(statuses: list[ProjectStatus]) -> dict[str, Any]:
    projects = [asdict(s) for s in statuses]
    total = {
        k: sum(s[k] for s in projects)
        for k in ("tasks", "finished_tasks", "annotations", "skipped", "remaining_annotations")
    }
    return {"projects": projects, "total": total}


def _fmt_hours(h: float | None) -> str:
    if h is None:
        return "-"
    return f"{h:.1f} h" if h < 48 else f"{h / 24:.1f} d"


def render(statuses: list[ProjectStatus]) -> str:
    """A plain-text table per project, with per-annotator lines below each."""
    lines = [
        f"{'subset':<48} {'tasks':>5} {'done':>5} {'annot.':>6} {'skip':>4} {'left':>5} "
        f"{'median s':>8} {'ETA (pace)':>10} {'work left':>9}"
    ]
    for s in statuses:
        med = "-" if s.median_lead_time_s is None else f"{s.median_lead_time_s:.1f}"
        project = "(no project yet)" if s.project_id is None else ""
        lines.append(
            f"{s.subset[:48]:<48} {s.tasks:>5} {s.finished_tasks:>5} {s.annotations:>6} "
            f"{s.skipped:>4} {s.remaining_annotations:>5} {med:>8} {_fmt_hours(s.eta_hours):>10} "
            f"{_fmt_hours(s.remaining_work_hours):>9} {project}".rstrip()
        )
        for a in s.annotators:
            amed = "-" if a.median_lead_time_s is None else f"{a.median_lead_time_s:.1f}"
            lines.append(
                f"    {(a.email or a.annotator)[:44]:<44} {'':>5} {'':>5} {a.annotations:>6} "
                f"{a.skipped:>4} "
                f"{'':>5} {amed:>8}"
            )
    total = to_json(statuses)["total"]
    lines.append(
        f"Total: {total['finished_tasks']}/{total['tasks']} tasks finished, "
        f"{total['annotations']} annotations, {total['skipped']} skipped, "
        f"{total['remaining_annotations']} annotations to go."
    )
    return "\n".join(lines)
