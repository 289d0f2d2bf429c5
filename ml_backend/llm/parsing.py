"""A strict reader of model replies: a reply is an answer, a parse error, or an invalid answer.

Never a default: a reply that cannot be read is recorded as ``parse_error`` with its raw text,
and a readable reply whose value is not allowed (a label outside the set, a missing or unknown
id, a rating off the scale) as ``invalid``. Answers take the exact shape human annotations take
(see ``label_studio_configs``), so scoring treats LLM and human answers alike.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from label_studio_configs import clustering as ls_clustering

from .prompts import Prompt, TaskSpec

ParseStatus = Literal["ok", "parse_error", "invalid"]

_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)


@dataclass(frozen=True)
class ParseOutcome:
    """``answer`` is set only when ``status == "ok"``; ``error`` says why otherwise."""

    status: ParseStatus
    answer: Any = None
    error: str | None = None


class _Reject(Exception):
    def __init__(self, status: ParseStatus, error: str) -> None:
        super().__init__(error)
        self.status = status
        self.error = error


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Reject("parse_error", f"the key {key!r} appears twice")
        out[key] = value
    return out


def load_json_object(raw: str) -> dict[str, Any]:
    """The JSON object of a reply: the whole reply, or the whole of one markdown code fence."""
    text = (raw or "").strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        raise _Reject("parse_error", "the reply is empty")
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise _Reject("parse_error", f"the reply is not valid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise _Reject("parse_error", f"expected a JSON object, got {type(value).__name__}")
    return value


def _as_int(value: Any) -> int | None:
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


def _field(obj: dict[str, Any], name: str) -> Any:
    if name not in obj:
        raise _Reject("parse_error", f'the JSON object has no "{name}" field')
    return obj[name]


def _classification(spec: TaskSpec, obj: dict[str, Any]) -> str:
    value = _field(obj, "label")
    if not isinstance(value, str):
        raise _Reject("parse_error", f'"label" must be a string, got {type(value).__name__}')
    if value in spec.labels:
        return value
    # The same label written with other case or spacing is that label, not a guess.
    folded = [lab for lab in spec.labels if lab.casefold() == value.strip().casefold()]
    if len(folded) == 1:
        return folded[0]
    raise _Reject("invalid", f"{value!r} is not one of the labels {list(spec.labels)!r}")


def _sts(spec: TaskSpec, obj: dict[str, Any]) -> int:
    value = _field(obj, "rating")
    level = _as_int(value)
    if level is None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            raise _Reject(
                "invalid", f"rating {value!r} is not one of the levels {sorted(spec.levels)!r}"
            )
        raise _Reject("parse_error", f'"rating" must be an integer, got {value!r}')
    if level not in spec.levels:
        raise _Reject("invalid", f"rating {level} is not one of the levels {sorted(spec.levels)!r}")
    return level


def _check_ids(obj: dict[str, Any], ids: tuple[str, ...], what: str) -> None:
    unknown = [k for k in obj if k not in set(ids)]
    missing = [i for i in ids if i not in obj]
    problems = []
    if missing:
        problems.append(f"{len(missing)} {what} id(s) missing: {missing[:10]!r}")
    if unknown:
        problems.append(f"unknown id(s): {unknown[:10]!r}")
    if problems:
        raise _Reject("invalid", "; ".join(problems))


def _clustering(spec: TaskSpec, prompt: Prompt, obj: dict[str, Any]) -> dict[str, str]:
    names = ls_clustering.group_names(spec.n_groups)
    _check_ids(obj, prompt.item_ids, "text")
    out: dict[str, str] = {}
    for item_id in prompt.item_ids:
        group = _as_int(obj[item_id])
        if group is None or not 1 <= group <= len(names):
            raise _Reject(
                "invalid",
                f"text {item_id!r} has group {obj[item_id]!r}; expected an "
                f"integer from 1 to {len(names)}",
            )
        out[item_id] = names[group - 1]
    return out


def _reranking(prompt: Prompt, obj: dict[str, Any]) -> dict[str, int]:
    _check_ids(obj, prompt.item_ids, "candidate")
    out: dict[str, int] = {}
    for item_id in prompt.item_ids:
        value = obj[item_id]
        mark = int(value) if isinstance(value, bool) else _as_int(value)
        if mark not in (0, 1):
            raise _Reject(
                "invalid",
                f"candidate {item_id!r} is marked {value!r}; expected 1 "
                "(Relevant) or 0 (Not relevant)",
            )
        out[item_id] = int(mark)
    return out


def parse_reply(spec: TaskSpec, prompt: Prompt, raw: str) -> ParseOutcome:
    """Read one reply for the instance ``prompt`` was built for."""
    try:
        obj = load_json_object(raw)
        if spec.task_type == "classification":
            answer: Any = _classification(spec, obj)
        elif spec.task_type == "sts":
            answer = _sts(spec, obj)
        elif spec.task_type == "clustering":
            answer = _clustering(spec, prompt, obj)
        else:
            answer = _reranking(prompt, obj)
    except _Reject as rej:
        return ParseOutcome(rej.status, None, rej.error)
    return ParseOutcome("ok", answer, None)
