"""Regression: read a text, give the number it calls for, within the data's bounds.

A Number control (an input box, no default value: an untouched box is no answer, and
``required`` stops the submit), its ``min``, ``max`` and ``step`` the subset's scale (the task
type passes it as ``labels``: ``{"min", "max", "step"}``; the data's bounds and precision unless
the spec sets them). Task data: ``{"hume_ref": str, "text": str}``. Result:
``[{"from_name": "value", "to_name": "text", "type": "number", "value": {"number": <n>}}]``.
Answer: the number as a float. A number outside the bounds, or not a finite number, is refused:
Label Studio does not check a result against its config.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ._common import (
    Result,
    check_ref,
    check_text,
    direction_style,
    render_template,
    result_item,
    single_result,
    static_text,
)
from .errors import InvalidAnswerError, InvalidContentError, InvalidResultError

TASK_TYPE = "regression"
FROM_NAME = "value"
TO_NAME = "text"
RESULT_TYPE = "number"
DEFAULT_INSTRUCTIONS = (
    "Read the text, then give the number it calls for, as closely as you can judge it. "
    "Give your best estimate even when you are unsure."
)
#: The scale when none is given (a config rendered without a subset).
DEFAULT_SCALE: dict[str, float] = {"min": 0.0, "max": 5.0, "step": 0.1}


def scale(labels: Mapping[str, Any] | None = None) -> dict[str, float]:
    """The answer's scale ``{"min", "max", "step"}``, checked (the default when None)."""
    if labels is None:
        return dict(DEFAULT_SCALE)
    if not isinstance(labels, Mapping):
        raise InvalidContentError("a regression scale must be a mapping {min, max, step}")
    out: dict[str, float] = {}
    for key in ("min", "max", "step"):
        value = labels.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidContentError(f"the scale's {key!r} must be a number, got {value!r}")
        if not math.isfinite(value):
            raise InvalidContentError(f"the scale's {key!r} must be finite, got {value!r}")
        out[key] = float(value)
    if out["min"] > out["max"]:
        raise InvalidContentError(f"the scale's min {out['min']:g} is above its max {out['max']:g}")
    if out["step"] <= 0:
        raise InvalidContentError(f"the scale's step must be > 0, got {out['step']:g}")
    return out


def _number_text(value: float) -> str:
    """A number as the config writes it: no trailing ``.0`` (``2015``, ``0.1``, ``4.5``)."""
    return f"{value:.10g}"


def render_config(
    *,
    labels: Mapping[str, Any] | None = None,
    n_groups: int | None = None,
    instructions: str | None = None,
    language: str | None = "en",
) -> str:
    """The labeling config; ``labels`` is the scale ``{"min", "max", "step"}``."""
    del n_groups
    s = scale(labels)
    return render_template(
        TASK_TYPE,
        instructions=static_text(instructions or DEFAULT_INSTRUCTIONS, what="instructions"),
        direction=direction_style(language),
        answer_title=static_text(
            f"Your number (from {_number_text(s['min'])} to {_number_text(s['max'])})",
            what="title",
        ),
        min=_number_text(s["min"]),
        max=_number_text(s["max"]),
        step=_number_text(s["step"]),
    )


def task_data(hume_ref: str, content: Mapping[str, Any]) -> dict[str, Any]:
    """Label Studio task data: the text and an opaque reference (never the gold number)."""
    return {"hume_ref": check_ref(hume_ref), "text": check_text(content, "text")}


def _in_scale(number: float, s: Mapping[str, float]) -> bool:
    return s["min"] <= number <= s["max"]


def result_to_answer(
    result: list[dict[str, Any]],
    *,
    labels: Mapping[str, Any] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> float:
    """The number given; InvalidResultError unless one finite number within the bounds."""
    del n_groups, item_ids
    s = scale(labels)
    item = single_result(result, from_name=FROM_NAME, to_name=TO_NAME, type_=RESULT_TYPE)
    value = item["value"].get("number")
    if isinstance(value, str):  # an input box may hand its text over
        try:
            value = float(value)
        except ValueError:
            raise InvalidResultError(
                f"control {FROM_NAME!r} holds {value!r}, not a number"
            ) from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidResultError(f"control {FROM_NAME!r} needs a finite number, got {value!r}")
    if not _in_scale(float(value), s):
        raise InvalidResultError(
            f"{value!r} is outside the bounds {_number_text(s['min'])}–{_number_text(s['max'])}"
        )
    return float(value)


def answer_to_result(
    answer: Any,
    *,
    labels: Mapping[str, Any] | None = None,
    n_groups: int | None = None,
    item_ids: Sequence[str] | None = None,
) -> Result:
    """The Label Studio result for a number, shown at the nearest bound when outside them (a
    linear regression's prediction may fall outside the data's range; the stored answer keeps
    the number itself)."""
    del n_groups, item_ids
    s = scale(labels)
    if isinstance(answer, bool) or not isinstance(answer, int | float) or not math.isfinite(answer):
        raise InvalidAnswerError(f"a regression answer must be a finite number, got {answer!r}")
    shown = min(max(float(answer), s["min"]), s["max"])
    return [result_item(FROM_NAME, TO_NAME, RESULT_TYPE, {"number": shown})]
