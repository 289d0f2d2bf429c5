"""Retrieval: a query (and its instruction) with its pooled documents; grade every document.

List + Ranker with one bucket per grade, the highest first, and no default bucket: the pooled
documents start in the unsorted list and an answer counts only once every one is in a grade
(a default bucket would read every document a person skipped as "not relevant", and a pool is
long enough for that to happen unnoticed). Bucket names are ``grade_<i>`` (grade i is the
subset's i-th label, lowest first), so the answer does not depend on the labels' wording.
Task data: ``{"hume_ref": str, "query": str, "instruction": str,
"candidates": [{"id": str, "title": "#1", "body": str}, ...]}``.
Result: ``[{"from_name": "grades", "to_name": "documents", "type": "ranker",
"value": {"ranker": {"grade_2": [ids], "grade_1": [ids], "grade_0": [ids]}}}]``.
Answer: ``{document_id: grade}`` for every document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._common import (
    Result,
    check_item_ids,
    check_items,
    check_labels,
    check_ref,
    check_text,
    direction_style,
    list_items,
    ranker_buckets,
    render_template,
    result_item,
    single_result,
    static_text,
    xml_attr,
)
from .errors import InvalidAnswerError, InvalidContentError

TASK_TYPE = "retrieval"
FROM_NAME = "grades"
TO_NAME = "documents"
RESULT_TYPE = "ranker"
DEFAULT_LABELS = ("not relevant", "partly", "highly")
DEFAULT_INSTRUCTIONS = (
    "Read the query, then grade every document below by how relevant it is to the query: drag "
    "each one into the box of its grade. Every document must be graded; judge each on its own."
)


def bucket(grade: int) -> str:
    """The bucket name of a grade."""
    return f"grade_{grade}"


def render_config(
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
) -> str:
    """The labeling config for the grade labels (lowest first; default three grades)."""
    del n_groups
    names = check_labels(labels if labels is not None else DEFAULT_LABELS, what="grade label")
    buckets = "\n".join(
        f'      <Bucket name="{bucket(g)}" title="{xml_attr(names[g], what="grade label")}"/>'
        for g in reversed(range(len(names)))
    )
    return render_template(
        TASK_TYPE,
        instructions=static_text(instructions or DEFAULT_INSTRUCTIONS, what="instructions"),
        direction=direction_style(language),
        query_title="Query",
        list_title="Documents to grade",
        buckets=buckets,
    )


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: query, instruction, documents and an opaque reference (no grade)."""
    instruction = content.get("instruction") if isinstance(content, Mapping) else None
    if instruction is not None and not isinstance(instruction, str):
        raise InvalidContentError("content['instruction'] must be a string")
    return {
        "hume_ref": check_ref(hume_ref),
        "query": check_text(content, "query"),
        "instruction": instruction or "",
        "candidates": list_items(check_items(content, "candidates")),
    }


def item_ids(content: Mapping[str, Any]) -> list[str]:
    """The document ids of an instance, in order (what `result_to_answer` checks against)."""
    return [it["id"] for it in check_items(content, "candidates")]


def _n_grades(labels: Sequence[str] | None) -> int:
    return len(check_labels(labels if labels is not None else DEFAULT_LABELS, what="grade label"))


def result_to_answer(
    result: list[dict[str, Any]],
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> dict[str, int]:
    """{document_id: grade}; InvalidResultError unless every document is in exactly one grade."""
    del n_groups
    ids = check_item_ids(item_ids, what="document")
    buckets = [bucket(g) for g in range(_n_grades(labels))]
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    placed = ranker_buckets(
        item, from_name=FROM_NAME, buckets=buckets, item_ids=ids, what="document"
    )
    return {i: buckets.index(placed[i]) for i in ids}


def answer_to_result(
    answer: Mapping[str, int],
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result for {document_id: grade} (every document, nothing else)."""
    del n_groups
    if not isinstance(answer, Mapping):
        raise InvalidAnswerError(f"retrieval answer must be a mapping, got {type(answer).__name__}")
    try:
        ids = check_item_ids(item_ids if item_ids is not None else list(answer), what="document")
        n = _n_grades(labels)
    except InvalidContentError as exc:
        raise InvalidAnswerError(str(exc)) from None
    extra = [k for k in answer if k not in set(ids)]
    if extra:
        raise InvalidAnswerError(f"answer has unknown documents: {extra[:10]!r}")
    missing = [i for i in ids if i not in answer]
    if missing:
        raise InvalidAnswerError(f"answer misses documents: {missing[:10]!r}")
    for i in ids:
        grade = answer[i]
        if isinstance(grade, bool) or not isinstance(grade, int) or not 0 <= grade < n:
            raise InvalidAnswerError(
                f"grade of document {i!r} is {grade!r}, expected an integer 0..{n - 1}"
            )
    ranker = {bucket(g): [i for i in ids if answer[i] == g] for g in reversed(range(n))}
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"ranker": ranker})]
