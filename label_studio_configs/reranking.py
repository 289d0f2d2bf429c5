"""Reranking: a query and its candidates (HUME: 7); mark each Relevant or Not relevant.

List + Ranker with two buckets; every candidate starts in "Not relevant" (the default bucket),
so a submitted result always places every candidate.
Task data: ``{"hume_ref": str, "query": str,
"candidates": [{"id": str, "title": "#1", "body": str}, ...]}``.
Result: ``[{"from_name": "relevance", "to_name": "candidates", "type": "ranker",
"value": {"ranker": {"relevant": [ids], "not_relevant": [ids]}}}]``.
Answer: ``{candidate_id: 1 | 0}`` for every candidate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._common import (
    Result,
    check_item_ids,
    check_items,
    check_ref,
    check_text,
    direction_style,
    list_items,
    ranker_buckets,
    render_template,
    result_item,
    single_result,
    static_text,
)
from .errors import InvalidAnswerError, InvalidContentError

TASK_TYPE = "reranking"
FROM_NAME = "relevance"
TO_NAME = "candidates"
RESULT_TYPE = "ranker"
RELEVANT = "relevant"
NOT_RELEVANT = "not_relevant"
BUCKETS = (RELEVANT, NOT_RELEVANT)
DEFAULT_INSTRUCTIONS = (
    "Read the query, then mark each candidate document as Relevant or Not relevant to it: "
    "drag the relevant ones into 'Relevant'; the ones left in 'Not relevant' count as not "
    "relevant. Judge every candidate on its own."
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
    return render_marks(TASK_TYPE, instructions or DEFAULT_INSTRUCTIONS, language)


def render_marks(template: str, instructions: str, language: str | None, **titles: str) -> str:
    """A screen of candidates marked in reranking's two boxes (``template``: this type's or one
    built on it that shows more, named by ``titles``)."""
    return render_template(
        template,
        instructions=static_text(instructions, what="instructions"),
        direction=direction_style(language),
        query_title="Query",
        list_title="Candidates",
        relevant_title="Relevant",
        not_relevant_title="Not relevant",
        **titles,
    )


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: query, candidates and an opaque reference (never the relevance)."""
    return {
        "hume_ref": check_ref(hume_ref),
        "query": check_text(content, "query"),
        "candidates": list_items(check_items(content, "candidates")),
    }


def item_ids(content: Mapping[str, Any]) -> list[str]:
    """The candidate ids of an instance, in order (what `result_to_answer` checks against)."""
    return [it["id"] for it in check_items(content, "candidates")]


def result_to_answer(
    result: list[dict[str, Any]],
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> dict[str, int]:
    """{candidate_id: 1|0}; InvalidResultError unless every candidate is in exactly one bucket."""
    del labels, n_groups
    ids = check_item_ids(item_ids, what="candidate")
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    placed = ranker_buckets(
        item, from_name=FROM_NAME, buckets=BUCKETS, item_ids=ids, what="candidate"
    )
    return {i: int(placed[i] == RELEVANT) for i in ids}


def answer_to_result(
    answer: Mapping[str, int],
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result for {candidate_id: 1|0} (every candidate, nothing else)."""
    del labels, n_groups
    if not isinstance(answer, Mapping):
        raise InvalidAnswerError(f"reranking answer must be a mapping, got {type(answer).__name__}")
    try:
        ids = check_item_ids(item_ids if item_ids is not None else list(answer), what="candidate")
    except InvalidContentError as exc:
        raise InvalidAnswerError(str(exc)) from None
    known = set(ids)
    extra = [k for k in answer if k not in known]
    if extra:
        raise InvalidAnswerError(f"answer has unknown candidates: {extra[:10]!r}")
    missing = [i for i in ids if i not in answer]
    if missing:
        raise InvalidAnswerError(f"answer misses candidates: {missing[:10]!r}")
    for i in ids:
        mark = answer[i]
        if mark not in (0, 1) or not isinstance(mark, int):
            raise InvalidAnswerError(f"mark for candidate {i!r} is {mark!r}, expected 1 or 0")
    ranker = {
        RELEVANT: [i for i in ids if answer[i] == 1],
        NOT_RELEVANT: [i for i in ids if answer[i] == 0],
    }
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"ranker": ranker})]
