"""Semantic textual similarity: rate a sentence pair from 0 to 5.

Choices "0".."5" (not Rating: it cannot record 0), each shown with its meaning from the STS
annotation guidelines (SemEval STS 2012-2017); the choice's alias keeps the stored value the bare
level. Task data: ``{"hume_ref": str, "sentence1": str, "sentence2": str}``.
Result: ``[{"from_name": "similarity", "to_name": "sentence1", "type": "choices",
"value": {"choices": ["<level>"]}}]``. Answer: the level as an int.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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

TASK_TYPE = "sts"
FROM_NAME = "similarity"
# Attached to the first sentence only: comma-separated toName results confuse the SDK's and
# the server's config-compatibility checks; the rating is still about the pair.
TO_NAME = "sentence1"
RESULT_TYPE = "choices"
# The six levels of the STS annotation guidelines (Agirre et al., SemEval STS tasks).
STS_LEVELS: dict[int, str] = {
    0: "completely dissimilar: the two sentences are on different topics",
    1: "not equivalent, but on the same topic",
    2: "not equivalent, but share some details",
    3: "roughly equivalent, but some important information differs or is missing",
    4: "mostly equivalent, but some unimportant details differ",
    5: "completely equivalent: the two sentences mean the same thing",
}
DEFAULT_INSTRUCTIONS = (
    "Read both sentences and rate how similar they are in meaning, from 0 (completely "
    "dissimilar) to 5 (completely equivalent). Pick the level whose description fits best."
)


def levels(labels: Mapping[int, str] | None = None) -> dict[int, str]:
    """The rating levels {level: meaning}: `labels` if given, else the six STS levels 0-5."""
    if labels is None:
        return dict(STS_LEVELS)
    if not isinstance(labels, Mapping) or not labels:
        raise InvalidContentError("STS labels must be a non-empty mapping {level: meaning}")
    out: dict[int, str] = {}
    for level, meaning in labels.items():
        if isinstance(level, bool) or not isinstance(level, int):
            raise InvalidContentError(f"STS level {level!r} is not an integer")
        if not isinstance(meaning, str) or not meaning.strip():
            raise InvalidContentError(f"STS level {level} has no meaning text")
        out[level] = meaning
    return dict(sorted(out.items()))


def render_config(
    *,
    labels: Mapping[int, str] | None = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
) -> str:
    """The labeling config; `labels` may replace the levels ({level: meaning})."""
    del n_groups
    scale = levels(labels)
    choices = "\n".join(
        f'    <Choice value="{static_text(f"{level} – {meaning}", what="level")}" '
        f'alias="{level}" hint="{static_text(meaning, what="level")}"/>'
        for level, meaning in sorted(scale.items(), reverse=True)
    )
    return render_template(
        TASK_TYPE,
        instructions=static_text(instructions or DEFAULT_INSTRUCTIONS, what="instructions"),
        direction=direction_style(language),
        sentence1_title="Sentence 1",
        sentence2_title="Sentence 2",
        choices=choices,
    )


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: the two sentences and an opaque reference (never the gold score)."""
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
    """The chosen level; InvalidResultError unless exactly one known level was chosen."""
    del n_groups, item_ids
    scale = levels(labels)
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    choices = choice_list(item, from_name=FROM_NAME)
    if len(choices) != 1:
        raise InvalidResultError(
            f"control {FROM_NAME!r} needs exactly one level, got {len(choices)}: {choices!r}"
        )
    allowed = {str(level): level for level in scale}
    if choices[0] not in allowed:
        raise InvalidResultError(f"unknown level {choices[0]!r}; expected one of {list(allowed)!r}")
    return allowed[choices[0]]


def answer_to_result(
    answer: int | float,
    *,
    labels: Mapping[int, str] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result for a level (an int, or a float with an integer value)."""
    del n_groups, item_ids
    scale = levels(labels)
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        raise InvalidAnswerError(f"STS answer {answer!r} is not a number")
    if isinstance(answer, float) and not answer.is_integer():
        raise InvalidAnswerError(f"STS answer {answer!r} is not one of the levels {list(scale)!r}")
    level = int(answer)
    if level not in scale:
        raise InvalidAnswerError(f"STS answer {answer!r} is not one of the levels {list(scale)!r}")
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"choices": [str(level)]})]
