"""Clustering: one task holds a whole set of texts (HUME: 30) to sort into K groups by topic.

List + Ranker with K buckets "group_1".."group_K" (buckets are static XML, so the config is
rendered per K). No bucket is the default: texts start in the list's own column ("_" in results)
and a result that leaves any text there is rejected, so "did not sort" never reads as a group.
Task data: ``{"hume_ref": str, "items": [{"id": str, "title": "#1", "body": str}, ...]}``.
Result: ``[{"from_name": "groups", "to_name": "items", "type": "ranker",
"value": {"ranker": {"group_1": [ids], ..., "group_K": [ids], "_": []}}}]``.
Answer: ``{item_id: "group_k"}`` covering every item.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._common import (
    Result,
    check_item_ids,
    check_items,
    check_n_groups,
    check_ref,
    direction_style,
    list_items,
    ranker_buckets,
    render_template,
    result_item,
    single_result,
    static_text,
)
from .errors import InvalidAnswerError, InvalidContentError

TASK_TYPE = "clustering"
FROM_NAME = "groups"
TO_NAME = "items"
RESULT_TYPE = "ranker"
UNSORTED = "_"  # Label Studio's key for items still in the List's own column
DEFAULT_INSTRUCTIONS = (
    "Sort the texts into {n_groups} groups by topic: drag every text from 'Texts to sort' into "
    "one of the groups so that texts on the same topic share a group. Group numbers carry no "
    "meaning. Every text must be placed before you submit. A text in a group shows its first "
    "lines: point at it to read it whole."
)


def group_names(n_groups: int | None) -> list[str]:
    """The bucket names (and answer values) for K groups: "group_1".."group_K"."""
    return [f"group_{k}" for k in range(1, check_n_groups(n_groups) + 1)]


def render_config(
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
) -> str:
    """The labeling config for K = `n_groups` groups (required); `labels` is ignored.

    `{n_groups}` in the instructions is replaced by K.
    """
    del labels
    names = group_names(n_groups)
    text = (instructions or DEFAULT_INSTRUCTIONS).replace("{n_groups}", str(len(names)))
    buckets = "\n".join(
        f'      <Bucket name="{name}" title="Group {k}"/>' for k, name in enumerate(names, 1)
    )
    return render_template(
        TASK_TYPE,
        instructions=static_text(text, what="instructions"),
        direction=direction_style(language),
        list_title="Texts to sort",
        buckets=buckets,
    )


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: the texts and an opaque reference only (never the gold clusters)."""
    items = check_items(content, "items")
    return {"hume_ref": check_ref(hume_ref), "items": list_items(items)}


def item_ids(content: Mapping[str, Any]) -> list[str]:
    """The item ids of an instance, in order (what `result_to_answer` checks against)."""
    return [it["id"] for it in check_items(content, "items")]


def result_to_answer(
    result: list[dict[str, Any]],
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> dict[str, str]:
    """{item_id: group}; InvalidResultError unless every item sits in exactly one group."""
    del labels
    names = group_names(n_groups)
    ids = check_item_ids(item_ids)
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    placed = ranker_buckets(item, from_name=FROM_NAME, buckets=names, item_ids=ids, what="item")
    return {i: placed[i] for i in ids}


def answer_to_result(
    answer: Mapping[str, str],
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result for {item_id: group} (every item, groups "group_1".."group_K")."""
    del labels
    names = group_names(n_groups)
    if not isinstance(answer, Mapping):
        raise InvalidAnswerError(
            f"clustering answer must be a mapping, got {type(answer).__name__}"
        )
    try:
        ids = check_item_ids(item_ids if item_ids is not None else list(answer))
    except InvalidContentError as exc:
        raise InvalidAnswerError(str(exc)) from None
    known = set(ids)
    extra = [k for k in answer if k not in known]
    if extra:
        raise InvalidAnswerError(f"answer has unknown items: {extra[:10]!r}")
    missing = [i for i in ids if i not in answer]
    if missing:
        raise InvalidAnswerError(f"answer misses items: {missing[:10]!r}")
    bad = {i: g for i, g in answer.items() if g not in names}
    if bad:
        first = next(iter(bad.items()))
        raise InvalidAnswerError(
            f"item {first[0]!r} is in unknown group {first[1]!r}; groups are {names!r}"
        )
    ranker: dict[str, list[str]] = {name: [i for i in ids if answer[i] == name] for name in names}
    ranker[UNSORTED] = []
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"ranker": ranker})]
