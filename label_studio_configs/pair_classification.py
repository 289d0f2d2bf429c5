"""Pair classification: two texts per task, the annotator answers one yes/no question about them.

MTEB's ``PairClassification`` tasks (paraphrase, duplicate question, entailment) label each pair
1 (the relation holds) or 0. The interface shows both texts and two choices, "Yes" (1) and "No"
(0), in that fixed order for every task, so neither the order nor anything else in the task
encodes gold. Each choice's ``alias`` is the bare label, so Label Studio stores "1" or "0"
whatever the shown wording (as the STS config stores bare levels). The question itself is the
instructions: a study about entailment passes :data:`ENTAILMENT_INSTRUCTIONS`.

Task data: ``{"hume_ref": str, "sentence1": str, "sentence2": str}``.
Result: ``[{"from_name": "decision", "to_name": "sentence1", "type": "choices",
"value": {"choices": ["1" | "0"]}}]``. Answer: the label as an int, 1 or 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Integral
from typing import Any

from ._common import (
    Result,
    check_ref,
    check_text,
    choice_list,
    direction_style,
    render_template,
    result_item,
    single_result,
    static_text,
)
from .errors import InvalidAnswerError, InvalidContentError, InvalidResultError

TASK_TYPE = "pair_classification"
FROM_NAME = "decision"
# Attached to the first text only, as in the STS config: comma-separated toName results confuse
# the SDK's and the server's config-compatibility checks; the decision is still about the pair.
TO_NAME = "sentence1"
RESULT_TYPE = "choices"
#: The two answers and how they are shown, positive first (MTEB's labels: 1 = the relation holds).
DEFAULT_LABELS: dict[int, str] = {1: "Yes", 0: "No"}
DEFAULT_INSTRUCTIONS = (
    "Read both texts and decide whether they mean the same thing: is one a paraphrase or a "
    "duplicate of the other? Choose Yes or No; if you are unsure, choose the closer answer."
)
ENTAILMENT_INSTRUCTIONS = (
    "Read both sentences and decide whether the first one entails the second: if the first is "
    "true, must the second be true as well? Choose Yes or No."
)


def labels_of(labels: Mapping[int, str] | None = None) -> dict[int, str]:
    """The two answers {1: shown text, 0: shown text}, positive first; defaults to Yes / No.

    Exactly the keys 1 and 0 (MTEB's pair labels), each with a non-blank, distinct text: a
    custom wording (e.g. "Duplicate" / "Not a duplicate") may not change what is stored.
    """
    if labels is None:
        return dict(DEFAULT_LABELS)
    if not isinstance(labels, Mapping):
        raise InvalidContentError("pair labels must be a mapping {1: text, 0: text}")
    keys = list(labels)
    if any(isinstance(k, bool) or not isinstance(k, int) for k in keys) or set(keys) != {0, 1}:
        raise InvalidContentError(f"pair labels need exactly the keys 1 and 0, got {keys!r}")
    texts = [labels[1], labels[0]]
    for text in texts:
        if not isinstance(text, str) or not text.strip():
            raise InvalidContentError(f"pair label text {text!r} is not a non-blank string")
    if texts[0].strip() == texts[1].strip():
        raise InvalidContentError(f"the two pair labels read the same: {texts[0]!r}")
    return {1: labels[1], 0: labels[0]}


def render_config(
    *,
    labels: Mapping[int, str] | None = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
) -> str:
    """The labeling config; `labels` may reword the two answers ({1: text, 0: text})."""
    del n_groups
    shown = labels_of(labels)
    choices = "\n".join(
        f'    <Choice value="{static_text(text, what="pair label")}" alias="{label}"/>'
        for label, text in shown.items()
    )
    return render_template(
        TASK_TYPE,
        instructions=static_text(instructions or DEFAULT_INSTRUCTIONS, what="instructions"),
        direction=direction_style(language),
        sentence1_title="Text 1",
        sentence2_title="Text 2",
        choices=choices,
    )


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: the two texts and an opaque reference (never the gold label)."""
    return {
        "hume_ref": check_ref(hume_ref),
        "sentence1": check_text(content, "sentence1"),
        "sentence2": check_text(content, "sentence2"),
    }


def result_to_answer(
    result: list[dict[str, Any]],
    *,
    labels: Mapping[int, str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> int:
    """The chosen label, 1 or 0; InvalidResultError unless exactly one of them was chosen."""
    del n_groups, item_ids
    labels_of(labels)  # a bad wording is a config error even when reading results
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    choices = choice_list(item, from_name=FROM_NAME)
    if len(choices) != 1:
        raise InvalidResultError(
            f"control {FROM_NAME!r} needs exactly one answer, got {len(choices)}: {choices!r}"
        )
    if choices[0] not in ("1", "0"):
        raise InvalidResultError(f"unknown answer {choices[0]!r}; expected '1' or '0'")
    return int(choices[0])


def answer_to_result(
    answer: int,
    *,
    labels: Mapping[int, str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result for an answer 1 or 0 (any integer type; True/False are refused,
    since a boolean usually means a caller passed a comparison, not a label)."""
    del n_groups, item_ids
    labels_of(labels)
    if isinstance(answer, bool) or not isinstance(answer, Integral) or answer not in (0, 1):
        raise InvalidAnswerError(f"pair classification answer {answer!r} is not 1 or 0")
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"choices": [str(int(answer))]})]
