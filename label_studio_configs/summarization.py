"""Summarization: a text and its machine summaries; rate every summary's relevance 1–5.

List + Ranker with one bucket per rating, 5 first, and no default bucket (as retrieval): the
summaries start in the unsorted list and an answer counts only once every one is rated, so a
summary a person skipped is never read as a rating. The scale is SummEval's relevance scale
(1–5), the one its experts used. The text's reference summaries are shown above the machine
summaries only where the subset says so (``show_references``).
Task data: ``{"hume_ref": str, "text": str, "references": str,
"summaries": [{"id": str, "title": "#1", "body": str}, ...]}``.
Result: ``[{"from_name": "ratings", "to_name": "summaries", "type": "ranker",
"value": {"ranker": {"rating_5": [ids], ..., "rating_1": [ids]}}}]``.
Answer: ``{summary_id: rating}`` for every summary. An instance's content lists its summaries
under ``candidates`` (the store's key for listed items) beside ``text`` and ``references``.
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

TASK_TYPE = "summarization"
FROM_NAME = "ratings"
TO_NAME = "summaries"
RESULT_TYPE = "ranker"
#: The ratings, lowest first, with what each means (SummEval's relevance, in words).
RATINGS: dict[int, str] = {
    1: "1 – not relevant",
    2: "2 – barely relevant",
    3: "3 – partly relevant",
    4: "4 – mostly relevant",
    5: "5 – highly relevant",
}
DEFAULT_INSTRUCTIONS = (
    "Read the text, then rate every summary below for relevance: does it keep the text's "
    "important content, and only that? Drag each summary into the box of its rating, from "
    "5 (highly relevant) to 1 (not relevant). Every summary must be rated; judge each on its own."
)
#: A reference summary's separator in the task data's ``references`` text.
REFERENCE_SEPARATOR = "\n\n"


def bucket(rating: int) -> str:
    """The bucket name of a rating."""
    return f"rating_{rating}"


def render_config(
    *,
    labels: Any = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
    show_references: bool = False,
) -> str:
    """The labeling config; ``show_references`` adds the references above the summaries;
    ``labels`` and ``n_groups`` are ignored (accepted for uniform calls)."""
    del labels, n_groups
    buckets = "\n".join(
        f'      <Bucket name="{bucket(r)}" title="{static_text(title, what="rating")}"/>'
        for r, title in sorted(RATINGS.items(), reverse=True)
    )
    references = (
        '    <View className="hume-title"><Header value="Reference summaries" size="6"/></View>\n'
        '    <Text name="references" value="$references"/>'
        if show_references
        else ""
    )
    return render_template(
        TASK_TYPE,
        instructions=static_text(instructions or DEFAULT_INSTRUCTIONS, what="instructions"),
        direction=direction_style(language),
        text_title="Text",
        list_title="Summaries to rate",
        references=references,
        buckets=buckets,
    )


def _references(content: Mapping[str, Any]) -> list[str]:
    refs = content.get("references") if isinstance(content, Mapping) else None
    if not isinstance(refs, list) or not refs or not all(isinstance(r, str) for r in refs):
        raise InvalidContentError("content['references'] must be a non-empty list of strings")
    return refs


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: the text, its references, its summaries (never a score)."""
    return {
        "hume_ref": check_ref(hume_ref),
        "text": check_text(content, "text"),
        "references": REFERENCE_SEPARATOR.join(_references(content)),
        "summaries": list_items(check_items(content, "candidates")),
    }


def item_ids(content: Mapping[str, Any]) -> list[str]:
    """The summary ids of an instance, in order (what `result_to_answer` checks against)."""
    return [it["id"] for it in check_items(content, "candidates")]


def result_to_answer(
    result: list[dict[str, Any]],
    *,
    labels: Any = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> dict[str, int]:
    """{summary_id: rating}; InvalidResultError unless every summary has exactly one rating."""
    del labels, n_groups
    ids = check_item_ids(item_ids, what="summary")
    buckets = [bucket(r) for r in RATINGS]
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    placed = ranker_buckets(
        item, from_name=FROM_NAME, buckets=buckets, item_ids=ids, what="summary"
    )
    return {i: int(placed[i].rsplit("_", 1)[1]) for i in ids}


def answer_to_result(
    answer: Mapping[str, int],
    *,
    labels: Any = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result for {summary_id: rating} (every summary, nothing else)."""
    del labels, n_groups
    if not isinstance(answer, Mapping):
        raise InvalidAnswerError(
            f"summarization answer must be a mapping, got {type(answer).__name__}"
        )
    try:
        ids = check_item_ids(item_ids if item_ids is not None else list(answer), what="summary")
    except InvalidContentError as exc:
        raise InvalidAnswerError(str(exc)) from None
    extra = [k for k in answer if k not in set(ids)]
    if extra:
        raise InvalidAnswerError(f"answer has unknown summaries: {extra[:10]!r}")
    missing = [i for i in ids if i not in answer]
    if missing:
        raise InvalidAnswerError(f"answer misses summaries: {missing[:10]!r}")
    for i in ids:
        rating = answer[i]
        if isinstance(rating, bool) or not isinstance(rating, int) or rating not in RATINGS:
            raise InvalidAnswerError(
                f"rating of summary {i!r} is {rating!r}, expected an integer "
                f"{min(RATINGS)}..{max(RATINGS)}"
            )
    ranker = {bucket(r): [i for i in ids if answer[i] == r] for r in sorted(RATINGS, reverse=True)}
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"ranker": ranker})]
