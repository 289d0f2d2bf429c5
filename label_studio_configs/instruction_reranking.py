"""Instruction reranking: a query, the instruction that defines relevance, and its candidates;
mark each Relevant or Not relevant (FollowIR's p-MRR design, one instruction per annotator).

The marking is reranking's (List + Ranker with two buckets, every candidate starting in "Not
relevant"), so the result and the answer are reranking's and are translated by its functions;
what is this module's own is the screen, which shows the instruction apart from the query, and
the task data that carries it. Which instruction a task shows (the original or the changed one)
is decided by the subset (its arm); the task data never says which.
Task data: ``{"hume_ref": str, "query": str, "instruction": str,
"candidates": [{"id": str, "title": "#1", "body": str}, ...]}``.
Answer: ``{candidate_id: 1 | 0}`` for every candidate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._common import (
    check_items,
    check_ref,
    check_text,
    list_items,
)
from .reranking import (
    FROM_NAME,
    RESULT_TYPE,
    TO_NAME,
    answer_to_result,
    item_ids,
    render_marks,
    result_to_answer,
)

__all__ = [
    "FROM_NAME",
    "RESULT_TYPE",
    "TO_NAME",
    "answer_to_result",
    "item_ids",
    "render_config",
    "result_to_answer",
    "task_data",
]

TASK_TYPE = "instruction_reranking"
DEFAULT_INSTRUCTIONS = (
    "Read the query and the instruction below it: the instruction says what makes a document "
    "relevant. Then mark each candidate as Relevant or Not relevant by that instruction: drag "
    "the relevant ones into 'Relevant'; the ones left in 'Not relevant' count as not relevant. "
    "Judge every candidate on its own."
)


def render_config(
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
) -> str:
    """The labeling config; `labels` and `n_groups` are ignored (accepted for uniform calls)."""
    del labels, n_groups
    instructions = instructions or DEFAULT_INSTRUCTIONS
    return render_marks(TASK_TYPE, instructions, language, instruction_title="Instruction")


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: query, instruction, candidates and an opaque reference."""
    return {
        "hume_ref": check_ref(hume_ref),
        "query": check_text(content, "query"),
        "instruction": check_text(content, "instruction"),
        "candidates": list_items(check_items(content, "candidates")),
    }
