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


@dataclass(frozen=True)
class ParseOutcome:
    """``answer`` is set only when ``status == "ok"``; ``error`` says why otherwise."""

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
    """The JSON object of a reply: the whole reply, or the whole of one markdown code fence."""
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
    """An integer given as 3, 3.0 or "3"; None for anything else (booleans included)."""
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
    """The ``name`` field of a reply object; a ``parse_error`` when it has none."""
    if name not in obj:
        raise Reject("parse_error", f'the JSON object has no "{name}" field')
    return obj[name]


def check_reply_ids(obj: Mapping[str, Any], ids: tuple[str, ...], what: str) -> None:
    """``invalid`` unless the reply's keys are exactly the instance's ids (``what`` names them)."""
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

    ``task`` is the type object: the JSON object is extracted here, the same way for every
    type, and read by the type's ``llm_answer``.
    """
    try:
        answer = task.llm_answer(spec, prompt, load_json_object(raw))
    except Reject as rej:
        return ParseOutcome(rej.status, None, rej.error)
    return ParseOutcome("ok", answer, None)
