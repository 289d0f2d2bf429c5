"""How the commands and the report show durations and link to tasks, so that ``status``, the
dashboard and the report say the same thing the same way."""

from __future__ import annotations


def format_duration(seconds: float | None) -> str:
    """20 → '20 s', 600 → '10 min', 9000 → '2.5 h', 3 days → '3.0 d'; None → '-'."""
    if seconds is None:
        return "-"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


def task_url(base_url: str, project_id: int, task_id: int) -> str:
    """The Label Studio page that opens one task of a project (Data Manager with the task's
    labelling view, as Label Studio 1.23 links it)."""
    return f"{base_url.rstrip('/')}/projects/{int(project_id)}/data?task={int(task_id)}"
