"""Task metadata the scoring core needs: task type per task, languages, the HUME(v1) subset list.

Kept as data so the leaderboard can classify any MTEB result file: the HUME(v1) tasks are named
in :mod:`scoring.hume_v1` (the one HUME(v1) table); any other task's type is inferred from the
metric names in its score block, by asking the known task types
(:class:`scoring.rules.ScoringRules`) which metrics identify them. Language codes come from
:mod:`scoring.languages` (re-exported for the callers that always imported them from here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scoring.errors import InvalidInputError
from scoring.hume_v1 import HUME_V1_TASKS
from scoring.languages import language_code as language_code  # re-exported
from scoring.languages import normalise_language as normalise_language  # re-exported
from scoring.rules import ScoringRules

__all__ = [
    "EXCLUDED_LANGUAGES_V1",
    "task_type",
]

#: Languages whose subsets the HUME(v1) benchmark leaves out of every mean.
EXCLUDED_LANGUAGES_V1 = frozenset({"fra"})


def task_type(
    task_name: str,
    score_block: Mapping[str, Any] | None,
    types: Sequence[ScoringRules],
) -> ScoringRules:
    """Type of ``task_name`` among ``types``.

    From the HUME table, else the type that has the most of its
    :attr:`~scoring.rules.ScoringRules.score_metric_keys` in the block (the first in the order
    given among equals).

    Args:
        task_name: the MTEB task name.
        score_block: one score block of its result file, if any.
        types: the known task types.

    Returns:
        The task's type.

    Raises:
        InvalidInputError: a HUME task whose type is not among ``types``, or a task no type
            claims.
    """
    by_name = {t.name: t for t in types}
    if task_name in HUME_V1_TASKS:
        name = HUME_V1_TASKS[task_name]
        if name not in by_name:
            raise InvalidInputError(f"{task_name!r} is a {name} task, not a known task type")
        return by_name[name]
    if score_block:
        # The type whose identifying keys the block holds most of; a tie goes to the type
        # registered first. Two types may share a main score (mteb's multilabel tasks report
        # ``accuracy`` as single-label ones do), and then the block's other keys tell them apart.
        held = [sum(key in score_block for key in t.score_metric_keys) for t in types]
        best = max(held, default=0)
        if best > 0:
            return types[held.index(best)]
    raise InvalidInputError(f"cannot tell the task type of {task_name!r}")
