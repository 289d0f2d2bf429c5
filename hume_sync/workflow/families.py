"""mteb's text task families, and which of them hume can put a human score beside.

``hume-sync types`` answers a researcher's first question ("can hume measure people on the task
I care about?") from the two sources that decide it: mteb's own task registry (every task whose
only modality is text, counted by ``TaskMetadata.type``: what mteb 2.x calls a family) and
hume's registry of task types (each type names the mteb types it reads, ``study_mteb_types``).
Nothing here lists a family or a count by hand, so the table stays true as either side grows.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from hume_sync import task_types


@dataclass(frozen=True)
class Family:
    """One mteb task type: how many text tasks mteb has of it, hume's type for it, and the
    tasks of it that hume's type refuses (``StudyRules.study_refuses_mteb_task``) with why."""

    mteb_type: str
    tasks: int
    hume_type: str | None
    refused: dict[str, str] = field(default_factory=dict)


def families() -> list[Family]:
    """Every mteb text task type, the largest first, with hume's type where there is one."""
    import mteb  # heavy (a few seconds): only this command needs it

    found = mteb.get_tasks(modalities=["text"], exclusive_modality_filter=True)
    counts = Counter(str(t.metadata.type) for t in found)
    reads = {m: name for name in task_types.names() for m in task_types.get(name).study_mteb_types}
    refused: dict[str, dict[str, str]] = {}
    for t in found:
        name = reads.get(str(t.metadata.type))
        why = None if name is None else task_types.get(name).study_refuses_mteb_task(t.metadata)
        if why is not None:
            refused.setdefault(str(t.metadata.type), {})[t.metadata.name] = why
    return [
        Family(mteb_type, n, reads.get(mteb_type), dict(sorted(refused.get(mteb_type, {}).items())))
        for mteb_type, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def coverage(rows: list[Family]) -> dict[str, Any]:
    """The table as ``--json`` prints it, with the share of families and tasks covered."""
    covered = [r for r in rows if r.hume_type is not None]
    total = sum(r.tasks for r in rows)
    return {
        "families": [asdict(r) for r in rows],
        "covered_families": len(covered),
        "all_families": len(rows),
        "covered_tasks": sum(r.tasks - len(r.refused) for r in covered),
        "all_tasks": total,
    }


def render(rows: list[Family]) -> str:
    """A plain-text table and a line of totals."""
    summary = coverage(rows)
    lines = [f"{'mteb task type':<26} {'text tasks':>10}  hume type"]
    for r in rows:
        lines.append(f"{r.mteb_type:<26} {r.tasks:>10}  {r.hume_type or 'not yet'}")
        for task, why in r.refused.items():
            lines.append(f"{'':<26} {'':>10}    refused: {task} ({why})")
    share = summary["covered_tasks"] / summary["all_tasks"] if summary["all_tasks"] else 0.0
    # rounded down to a tenth of a percent: a share short of all of them never prints as 100 %
    share = math.floor(share * 1000) / 1000
    lines.append("")
    lines.append(
        f"hume covers {summary['covered_families']} of {summary['all_families']} mteb text task "
        f"types: {summary['covered_tasks']} of {summary['all_tasks']} tasks ({share:.1%}). "
        "The docs' Task types pages say, per type, what a person sees, what is scored and what "
        "is not comparable."
    )
    return "\n".join(lines)
