"""Classification: one text per task, the annotator picks the one label that fits.

Task data: ``{"hume_ref": str, "text": str}``.
Result: ``[{"from_name": "label", "to_name": "text", "type": "choices",
"value": {"choices": [<label>]}}]``. Answer: the label string.
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
from .errors import InvalidAnswerError, InvalidResultError

TASK_TYPE = "classification"
FROM_NAME = "label"
TO_NAME = "text"
RESULT_TYPE = "choices"
DEFAULT_INSTRUCTIONS = (
    "Read the text and pick the one label that fits it best. "
    "If several seem to fit, choose the one that fits most; if none fits well, choose the closest."
)


def render_config(
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
) -> str:
    """The labeling config for a label set (required); `n_groups` is ignored (uniform calls)."""
    del n_groups
    label_list = check_labels(labels)
    choices = "\n".join(
        f'    <Choice value="{xml_attr(label, what="label")}"/>' for label in label_list
    )
    return render_template(
        TASK_TYPE,
        instructions=static_text(instructions or DEFAULT_INSTRUCTIONS, what="instructions"),
        direction=direction_style(language),
        choices=choices,
    )


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: the text and an opaque reference only (never the gold label)."""
    return {"hume_ref": check_ref(hume_ref), "text": check_text(content, "text")}


def result_to_answer(
    result: list[dict[str, Any]],
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> str:
    """The chosen label; InvalidResultError unless exactly one known label was chosen."""
    del n_groups, item_ids
    label_list = check_labels(labels)
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    choices = choice_list(item, from_name=FROM_NAME)
    if not choices:
        raise InvalidResultError(f"control {FROM_NAME!r} has no choice")
    if len(choices) > 1:
        raise InvalidResultError(
            f"control {FROM_NAME!r} is single choice but has {len(choices)} choices: {choices!r}"
        )
    if choices[0] not in label_list:
        raise InvalidResultError(f"unknown choice {choices[0]!r}; expected one of {label_list!r}")
    return choices[0]


def answer_to_result(
    answer: str,
    *,
    labels: Sequence[str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result for a label (for annotations and predictions)."""
    del n_groups, item_ids
    label_list = check_labels(labels)
    if not isinstance(answer, str) or answer not in label_list:
        raise InvalidAnswerError(f"answer {answer!r} is not one of the labels {label_list!r}")
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"choices": [answer]})]
