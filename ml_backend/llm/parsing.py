"""A strict reader of model replies: a reply is an answer, a parse error, or an invalid answer.

Never a default: a reply that cannot be read is recorded as ``parse_error`` with its raw text,
and a readable reply whose value is not allowed (a label outside the set, a missing or unknown
id, a rating off the scale) as ``invalid``. Answers take the exact shape human annotations take
(see ``label_studio_configs``), so scoring treats LLM and human answers alike. What a type
allows is its ``llm_answer`` (:mod:`ml_backend.llm.task`); the helpers here are shared.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .prompts import Prompt, TaskSpec
from .task import LLMTask, ParseStatus, Reject

_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)

__all__ = [
    "ParseOutcome",
    "as_int",
    "check_reply_ids",
    "load_json_object",
    "parse_reply",
    "reply_field",
]


@dataclass(frozen=True)
class ParseOutcome:
    """``answer`` is set only when ``status == "ok"``; ``error`` says why otherwise.

    Attributes:
        status: ``"ok"``, ``"parse_error"`` or ``"invalid"``.
        answer: the answer in the human answer shape, when ``status`` is ``"ok"``.
        error: why the reply is not an answer, otherwise.
    """

    status: ParseStatus
    answer: Any = None
    error: str | None = None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise Reject("parse_error", f"the key {key!r} appears twice")
        out[key] = value
    return out


def load_json_object(raw: str) -> dict[str, Any]:
    """Extract the JSON object of a reply: the whole reply, or the whole of one markdown fence.

    Args:
        raw: the model's reply text.

    Returns:
        The object, with no key given twice.

    Raises:
        Reject: ``parse_error`` for an empty reply, invalid JSON, a repeated key or a value that
            is not an object.
    """
    text = (raw or "").strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        raise Reject("parse_error", "the reply is empty")
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise Reject("parse_error", f"the reply is not valid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise Reject("parse_error", f"expected a JSON object, got {type(value).__name__}")
    return value


def as_int(value: Any) -> int | None:
    """Read an integer given as 3, 3.0 or "3".

    Args:
        value: a value from a reply's JSON object.

    Returns:
        The integer, or None for anything else (booleans included).
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return None


def reply_field(obj: Mapping[str, Any], name: str) -> Any:
    """Read the ``name`` field of a reply object.

    Args:
        obj: the reply's JSON object.
        name: the field the type's prompt asked for.

    Returns:
        The field's value, unchecked.

    Raises:
        Reject: ``parse_error`` when the object has no such field.
    """
    if name not in obj:
        raise Reject("parse_error", f'the JSON object has no "{name}" field')
    return obj[name]


def check_reply_ids(obj: Mapping[str, Any], ids: tuple[str, ...], what: str) -> None:
    """Check that the reply's keys are exactly the instance's ids.

    Args:
        obj: the reply's JSON object, keyed by item id.
        ids: the instance's item ids.
        what: what the ids name, for the error (``"candidate"``, ``"text"``).

    Raises:
        Reject: ``invalid``, naming the missing and unknown ids (the first ten of each).
    """
    unknown = [k for k in obj if k not in set(ids)]
    missing = [i for i in ids if i not in obj]
    problems = []
    if missing:
        problems.append(f"{len(missing)} {what} id(s) missing: {missing[:10]!r}")
    if unknown:
        problems.append(f"unknown id(s): {unknown[:10]!r}")
    if problems:
        raise Reject("invalid", "; ".join(problems))


def parse_reply(task: LLMTask, spec: TaskSpec, prompt: Prompt, raw: str) -> ParseOutcome:
    """Read one reply for the instance ``prompt`` was built for.

    The JSON object is extracted here, the same way for every type, and read by the type's
    ``llm_answer``.

    Args:
        task: the task type, as its LLM annotator.
        spec: the subset's spec.
        prompt: the prompt the reply answers.
        raw: the model's reply text.

    Returns:
        The answer with status ``"ok"``, or the status and error of a rejected reply.
    """
    try:
        answer = task.llm_answer(spec, prompt, load_json_object(raw))
    except Reject as rej:
        return ParseOutcome(rej.status, None, rej.error)
    return ParseOutcome("ok", answer, None)
