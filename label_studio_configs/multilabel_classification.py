"""Multilabel classification: one text per task, the annotator ticks every label that applies.

Task data: ``{"hume_ref": str, "text": str}``.
Result: ``[{"from_name": "labels", "to_name": "text", "type": "choices",
"value": {"choices": [<label>, ...]}}]``. Answer: the ticked labels, sorted (a list).

An empty set is an answer only where the subset's labels end with :data:`NONE_CHOICE` (the
study adds it when its data has items with no label): ticking it alone answers "no label
applies", and it cannot be ticked with a label. Without it, at least one label is required, so
an untouched screen is never read as "none applies".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._common import (
    Result,
    check_labels,
    check_ref,
    check_text,
    choice_list,
    direction_style,
    render_template,
    result_item,
    single_result,
    static_text,
    xml_attr,
)
from .errors import InvalidAnswerError, InvalidContentError, InvalidResultError

TASK_TYPE = "multilabel_classification"
FROM_NAME = "labels"
TO_NAME = "text"
RESULT_TYPE = "choices"
#: The choice that answers "no label applies" (an empty set), last in the list when offered.
NONE_CHOICE = "None of these labels applies"
DEFAULT_INSTRUCTIONS = (
    "Read the text and tick every label that applies to it: one, several or all of them. "
    "Leave a label unticked when it does not apply."
)


def split_labels(labels: Sequence[str] | None) -> tuple[list[str], bool]:
    """The real labels, and whether the none choice is offered (it must come last).

    Args:
        labels: the interface's labels, :data:`NONE_CHOICE` last where an empty set is allowed.

    Returns:
        The labels without the none choice, and whether it was there.
    """
    label_list = check_labels(labels)
    if NONE_CHOICE in label_list[:-1]:
        raise InvalidContentError(f"{NONE_CHOICE!r} must be the last label")
    has_none = label_list[-1] == NONE_CHOICE
    real = label_list[:-1] if has_none else label_list
    if not real:
        raise InvalidContentError("the label set has no label besides the none choice")
    return real, has_none


def render_config(
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
) -> str:
    """The labeling config for a label set (required); `n_groups` is ignored (uniform calls)."""
    del n_groups
    real, has_none = split_labels(labels)
    lines = [f'    <Choice value="{xml_attr(label, what="label")}"/>' for label in real]
    if has_none:
        lines.append(
            f'    <Choice value="{xml_attr(NONE_CHOICE, what="label")}" '
            'style="margin-top: 0.75em; font-style: italic;"/>'
        )
    hint = f" (or “{NONE_CHOICE}”)" if has_none else ""
    return render_template(
        TASK_TYPE,
        instructions=static_text(instructions or DEFAULT_INSTRUCTIONS, what="instructions"),
        direction=direction_style(language),
        choices="\n".join(lines),
        none_hint=xml_attr(hint, what="hint"),
    )


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: the text and an opaque reference only (never the gold labels)."""
    return {"hume_ref": check_ref(hume_ref), "text": check_text(content, "text")}


def result_to_answer(
    result: list[dict[str, Any]],
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> list[str]:
    """The ticked labels, sorted; ``[]`` for the none choice ticked alone.

    InvalidResultError for no tick, an unknown or repeated label, or the none choice with a
    label (a contradiction, not an answer).
    """
    del n_groups, item_ids
    real, has_none = split_labels(labels)
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    choices = choice_list(item, from_name=FROM_NAME)
    if not choices:
        raise InvalidResultError(f"control {FROM_NAME!r} has no choice")
    if len(set(choices)) != len(choices):
        raise InvalidResultError(f"control {FROM_NAME!r} repeats a choice: {choices!r}")
    if has_none and NONE_CHOICE in choices:
        if len(choices) > 1:
            raise InvalidResultError(f"{NONE_CHOICE!r} cannot be ticked with a label: {choices!r}")
        return []
    unknown = [c for c in choices if c not in real]
    if unknown:
        raise InvalidResultError(f"unknown choice {unknown[0]!r}; expected labels of {real!r}")
    return sorted(choices)


def answer_to_result(
    answer: Sequence[str],
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result for a set of labels (for annotations and predictions)."""
    del n_groups, item_ids
    real, has_none = split_labels(labels)
    if isinstance(answer, str) or not isinstance(answer, list | tuple):
        raise InvalidAnswerError(f"answer {answer!r} is not a list of labels")
    bad = [a for a in answer if not isinstance(a, str) or a not in real]
    if bad:
        raise InvalidAnswerError(f"answer label {bad[0]!r} is not one of the labels {real!r}")
    if not answer:
        if not has_none:
            raise InvalidAnswerError("an empty answer needs the none choice, which is not offered")
        return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"choices": [NONE_CHOICE]})]
    chosen = sorted(set(answer))
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"choices": chosen})]
