"""Bitext mining: a sentence and its candidate translations; pick the one that translates it.

The candidates are the task's own (dynamic Choices, ``value="$options"``), shown by their text
only: a candidate's id, and which source produced it (gold, a model's near miss, a random
filler), never reach the screen. The sentence is laid out in the subset's language's direction,
the candidates in the target language's (English to Arabic: the choices right to left).

Task data: ``{"hume_ref": str, "sentence": str, "options": [{"value": <candidate text>}, ...]}``.
Result: ``[{"from_name": "translation", "to_name": "sentence", "type": "choices",
"value": {"choices": [<candidate text>]}}]``. Answer: the chosen candidate's id. The
translation between the two needs the instance's candidates, which the task type passes as
``labels`` (``[{"id", "text"}]``, see ``BitextMiningInterface.ls_translation_kwargs``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._common import (
    Result,
    check_items,
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

TASK_TYPE = "bitext_mining"
FROM_NAME = "translation"
TO_NAME = "sentence"
RESULT_TYPE = "choices"
DEFAULT_INSTRUCTIONS = (
    "Read the sentence, then pick the one candidate that is its translation: the same meaning, "
    "nothing added or left out. Several candidates may look alike; compare names, numbers and "
    "details."
)


def render_config(
    *,
    labels: Any = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
    target_language: str | None = None,
) -> str:
    """The labeling config: ``language`` sets the sentence's direction, ``target_language``
    (default: the same) the candidates'; ``labels`` and ``n_groups`` are ignored."""
    del labels, n_groups
    return render_template(
        TASK_TYPE,
        instructions=static_text(instructions or DEFAULT_INSTRUCTIONS, what="instructions"),
        direction=direction_style(language),
        target_direction=direction_style(target_language or language),
        sentence_title="Sentence",
        candidates_title="Which one is its translation?",
    )


def candidates(content: Mapping[str, Any]) -> list[dict[str, str]]:
    """The instance's candidates ``[{id, text}]``, checked: ids unique, texts distinct."""
    items = check_items(content, "candidates")
    texts = [it["text"] for it in items]
    if len(set(texts)) != len(texts):
        raise InvalidContentError("content['candidates'] has the same text twice")
    if len(items) < 2:
        raise InvalidContentError("content['candidates'] must hold at least two candidates")
    return items


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: the sentence and the candidates' texts (never an id or gold)."""
    return {
        "hume_ref": check_ref(hume_ref),
        "sentence": check_text(content, "sentence"),
        "options": [{"value": it["text"]} for it in candidates(content)],
    }


def _candidates(labels: Any) -> list[dict[str, str]]:
    if not isinstance(labels, list | tuple):
        raise InvalidContentError("the instance's candidates ([{id, text}]) are required")
    return candidates({"candidates": list(labels)})


def result_to_answer(
    result: list[dict[str, Any]],
    *,
    labels: Any = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> str:
    """The chosen candidate's id; InvalidResultError unless exactly one candidate was chosen."""
    del n_groups, item_ids
    by_text = {it["text"]: it["id"] for it in _candidates(labels)}
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    choices = choice_list(item, from_name=FROM_NAME)
    if len(choices) != 1:
        raise InvalidResultError(
            f"control {FROM_NAME!r} is single choice but has {len(choices)} choices"
        )
    if choices[0] not in by_text:
        raise InvalidResultError(f"the choice {choices[0][:60]!r} is not one of the candidates")
    return by_text[choices[0]]


def answer_to_result(
    answer: Any,
    *,
    labels: Any = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result choosing the candidate ``answer`` (an id)."""
    del n_groups, item_ids
    try:
        by_id = {it["id"]: it["text"] for it in _candidates(labels)}
    except InvalidContentError as exc:
        raise InvalidAnswerError(str(exc)) from None
    if not isinstance(answer, str) or answer not in by_id:
        raise InvalidAnswerError(f"answer {answer!r} is not one of the candidates {list(by_id)}")
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"choices": [by_id[answer]]})]
