"""Pair classification: the LLM concern (the prompt an LLM annotator gets, and reading its reply).

Written to the LLM protocol of issue 12 (``ml_backend.llm.task.LLMTask``: ``llm_spec``,
``llm_prompt``, ``llm_answer``, which arrives with the LLM concern's conversion): registering the
type means adding that base. ``llm_answer`` raises the protocol's ``Reject`` (imported where used,
so this module loads before it exists); :meth:`PairClassificationLLM.llm_parse` reads a whole raw
reply the same way without it.

The LLM is given what a human annotator is given (:mod:`label_studio_configs.pair_classification`:
the same instructions, the same two texts, the same two answers) and asked for one JSON object
``{"label": 1 | 0}``. Replies are read strictly, in the style of :mod:`ml_backend.llm.parsing`:
an answer, a ``parse_error`` (not a JSON object, no ``label``, a value of the wrong kind) or
``invalid`` (readable but not an allowed answer, e.g. 2 or "maybe"); never a default. Accepted
spellings of an answer: 1/0 (int, 1.0/0.0, "1"/"0"), JSON true/false, and the shown answer texts
("Yes"/"No", any case and outer spacing), since each of them names one answer unambiguously.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from label_studio_configs import pair_classification as lsc_pair
from label_studio_configs._common import check_text
from ml_backend.llm.parsing import ParseOutcome
from ml_backend.llm.prompts import SYSTEM_PROMPT, Prompt, TaskSpec, language_name

#: Bumped whenever the wording below changes (recorded with every answer).
PROMPT_VERSION = "hume-llm-prompts/pair_classification/1"

_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)


class _Reject(Exception):
    def __init__(self, status: str, error: str) -> None:
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


def _json_object(raw: str) -> dict[str, Any]:
    """The reply's JSON object: the whole reply, or the whole of one markdown code fence."""
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


def _answer(spec: TaskSpec, value: Any) -> int:
    """1 or 0 from the ``label`` value (see the module docstring for accepted spellings)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        if value in (0, 1):
            return int(value)
        raise _Reject("invalid", f"label {value!r} is not 1 or 0")
    if isinstance(value, str):
        text = value.strip()
        if text in ("0", "1"):
            return int(text)
        named = [lab for lab, shown in spec.levels.items() if shown.casefold() == text.casefold()]
        if len(named) == 1:
            return named[0]
        raise _Reject("invalid", f"label {value!r} is not 1 or 0")
    raise _Reject("parse_error", f'"label" must be 1 or 0, got {type(value).__name__}')


def build_pair_prompt(spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
    """The prompt for one pair (``content``: the study store's ``{"sentence1", "sentence2"}``)."""
    s1, s2 = check_text(content, "sentence1"), check_text(content, "sentence2")
    labels = lsc_pair.labels_of(dict(spec.levels))
    lang = language_name(spec.language)
    answers = "\n".join(f"{label} – {text}" for label, text in labels.items())
    answer_format = 'Answer with only this JSON object: {"label": <1 or 0>}'
    schema = {
        "type": "object",
        "properties": {"label": {"type": "integer", "enum": [1, 0]}},
        "required": ["label"],
        "additionalProperties": False,
    }
    parts = [
        spec.instructions or lsc_pair.DEFAULT_INSTRUCTIONS,
        f"Language of the texts: {lang}." if lang else "",
        f"Answers (choose exactly one):\n{answers}",
        f"Text 1:\n<text1>\n{s1.strip()}\n</text1>",
        f"Text 2:\n<text2>\n{s2.strip()}\n</text2>",
        answer_format,
    ]
    user = "\n\n".join(p for p in parts if p)
    return Prompt(
        messages=({"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}),
        schema=schema,
        answer_format=answer_format,
    )


def parse_pair_reply(spec: TaskSpec, prompt: Prompt, raw: str) -> ParseOutcome:
    """Read one reply: ``ok`` with 1 or 0, ``parse_error`` or ``invalid`` with the reason."""
    del prompt  # a pair has no inner ids to check the reply against
    try:
        obj = _json_object(raw)
        if "label" not in obj:
            raise _Reject("parse_error", 'the JSON object has no "label" field')
        answer = _answer(spec, obj["label"])
    except _Reject as rej:
        return ParseOutcome(rej.status, None, rej.error)  # type: ignore[arg-type]
    return ParseOutcome("ok", answer, None)


class PairClassificationLLM:
    """Pair classification's LLM behaviour (the ``LLMTask`` protocol): spec, prompt, answer.

    The spec's ``levels`` hold the two answers' wording ({1: text, 0: text}, Yes / No by
    default), what the interface's ``ls_labels`` gives for the subset.
    """

    llm_prompt_version: str = PROMPT_VERSION
    llm_default_instructions: str = lsc_pair.DEFAULT_INSTRUCTIONS

    def llm_spec(
        self,
        *,
        labels: Any = None,
        n_groups: int | None = None,
        language: str | None = None,
        instructions: str | None = None,
    ) -> TaskSpec:
        """Check the subset's parameters once, before any call is made (``n_groups`` unused;
        a label *list* is refused: a pair's answers are {1: text, 0: text})."""
        del n_groups
        return TaskSpec(
            getattr(self, "name", "pair_classification"),
            levels=lsc_pair.labels_of(labels),
            language=language,
            instructions=instructions,
        )

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        """The messages for one pair, the answer's JSON schema and its format line."""
        return build_pair_prompt(spec, content)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> int:
        """1 or 0 from the reply's JSON object; the protocol's ``Reject`` otherwise."""
        del prompt
        try:
            if "label" not in reply:
                raise _Reject("parse_error", 'the JSON object has no "label" field')
            return _answer(spec, reply["label"])
        except _Reject as rej:
            from ml_backend.llm.task import Reject

            raise Reject(rej.status, rej.error) from None  # type: ignore[arg-type]

    def llm_parse(self, spec: TaskSpec, prompt: Prompt, raw: str) -> ParseOutcome:
        """A whole raw reply read into the human answer shape (1 or 0), or why it cannot be."""
        return parse_pair_reply(spec, prompt, raw)
