"""Task metadata the scoring core needs: task type per task, languages, the HUME(v1) subset list.

Kept as data so the leaderboard can classify any MTEB result file: the HUME(v1) tasks are named
in :mod:`scoring.hume_v1` (the one HUME(v1) table); any other task's type is inferred from the
metric names in its score block. Language codes come from :mod:`scoring.languages` (re-exported
here for the callers that always imported them from this module).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring.errors import InvalidInputError
from scoring.hume_v1 import HUME_V1_TASKS
from scoring.languages import language_code as language_code  # re-exported
from scoring.languages import normalise_language as normalise_language  # re-exported

TASK_TYPES = ("classification", "clustering", "reranking", "sts")

#: Languages whose subsets the HUME(v1) benchmark leaves out of every mean.
EXCLUDED_LANGUAGES_V1 = frozenset({"fra"})

#: Which metric key identifies a task type when the task is not one of ours (first match wins).
_TYPE_BY_METRIC = (
    ("accuracy", "classification"),
    ("v_measure", "clustering"),
    ("map", "reranking"),
    ("map_at_1000", "reranking"),
    ("cosine_spearman", "sts"),
    ("spearman", "sts"),
)


def task_type(task_name: str, score_block: Mapping[str, Any] | None = None) -> str:
    """Type of ``task_name``: from the HUME table, else inferred from the metrics it reports."""
    if task_name in HUME_V1_TASKS:
        return HUME_V1_TASKS[task_name]
    if score_block:
        for key, kind in _TYPE_BY_METRIC:
            if key in score_block:
                return kind
    raise InvalidInputError(f"cannot tell the task type of {task_name!r}")
