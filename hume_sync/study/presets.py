"""Built-in study presets, kept as plain data so the spec parser validates them like user input.

``hume-v1`` is the HUME(v1) benchmark (arXiv 2510.10062): 16 MTEB tasks, 26 task-language subsets
(French excluded), with the instance counts and ``samples_per_label`` of the paper, built from
the one HUME(v1) table in :mod:`scoring.hume_v1`. The MTEB
datasets of these tasks *are* the annotated HUME samples, so the preset takes every instance
(``sampling: all``) instead of re-sampling; ``size`` is what the paper annotated and is checked
against the loaded data (a mismatch is reported, not fatal).
"""

from __future__ import annotations

import copy
from typing import Any

from hume_sync.errors import SpecError
from scoring.hume_v1 import HUME_V1 as BENCHMARK_HUME_V1
from scoring.hume_v1 import BenchmarkTask


def _entry(task: BenchmarkTask) -> dict[str, Any]:
    """A benchmark task as a spec entry: MTEB source, every instance taken, the paper's sizes
    shared by every subset."""
    sizing = {k: list(v) if isinstance(v, tuple) else v for k, v in task.sizing.items()}
    return {
        "name": task.name,
        "type": task.task_type,
        "source": {"mteb": task.name},
        "sampling": "all",
        **sizing,
        "subsets": [
            {"name": hf_subset, "language": language} for hf_subset, language in task.subsets
        ],
    }


#: HUME(v1) as spec entries, in the paper's order (the table itself: :mod:`scoring.hume_v1`).
HUME_V1: tuple[dict[str, Any], ...] = tuple(_entry(task) for task in BENCHMARK_HUME_V1)

PRESETS: dict[str, tuple[dict[str, Any], ...]] = {"hume-v1": HUME_V1}


def preset_tasks(
    preset: str, only: list[str] | None = None, *, file: str = "<spec>"
) -> list[dict[str, Any]]:
    """Raw task entries of a preset (deep copies), optionally restricted to the names in ``only``.

    Raises SpecError for an unknown preset or a name in ``only`` that the preset does not hold, so a
    typo never silently drops a task from a study.
    """
    if preset not in PRESETS:
        known = ", ".join(sorted(PRESETS))
        raise SpecError(file, f"unknown preset {preset!r} (known: {known})", field="preset")
    table = PRESETS[preset]
    if only is None:
        return copy.deepcopy(list(table))
    names = [entry["name"] for entry in table]
    for name in only:
        if name not in names:
            raise SpecError(
                file,
                f"unknown preset task {name!r} in preset {preset!r}",
                task=name,
                field="only",
            )
    return [copy.deepcopy(entry) for entry in table if entry["name"] in only]
