"""The LLM annotator's protocol (LLMTask): every registered type implements it, its prompts keep
their bytes, and a type the package has never heard of runs through ``annotate`` unchanged."""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from hume_sync import task_types
from ml_backend.llm import GenerationSettings, annotate, build_prompt, parse_reply
from ml_backend.llm.client import Completion
from ml_backend.llm.prompts import Prompt, TaskSpec, block, make_prompt, object_schema
from ml_backend.llm.task import LLMTask, Reject

TYPES = task_types.names()
LABELS = ["joy", "anger", "fear & <x>", 'say "hi"']
PARAMS: dict[str, dict[str, Any]] = {
    "classification": {"labels": LABELS},
    "clustering": {"n_groups": 3},
    "reranking": {},
    "sts": {},
}
CONTENT: dict[str, dict[str, Any]] = {
    "classification": {"text": "The match ended.", "label": "joy"},
    "clustering": {
        "items": [{"id": f"t{n}", "text": f"text number {n}", "label": "g"} for n in range(6)],
        "gold": {},
    },
    "reranking": {
        "query": "what is a bomb",
        "candidates": [{"id": f"d{n}", "text": f"passage {n}"} for n in range(7)],
    },
    "sts": {"sentence1": "A cat sits.", "sentence2": "A cat.", "score": 4.2},
}
STUDY_INSTRUCTIONS = "Do the {n_groups} thing $x"
# sha256 (first 16 hex digits) of {"messages", "schema"} as ml_backend.llm.prompts built them
# from the type name (commit fed7b48): the cache key holds the prompt, so a changed byte would
# send every cached instance to the model again.
PROMPTS = {
    ("classification", "eng-Latn", None): "840ab85eb9ef86e3",
    ("classification", "arb_Arab", STUDY_INSTRUCTIONS): "df3b5a4cff8a6e86",
    ("clustering", "eng-Latn", None): "a64196a58f0548e5",
    ("clustering", "arb_Arab", STUDY_INSTRUCTIONS): "0ed070b67532abb3",
    ("reranking", "eng-Latn", None): "3487094e1621d86e",
    ("reranking", "arb_Arab", STUDY_INSTRUCTIONS): "2aa75cc05f8df3e8",
    ("sts", "eng-Latn", None): "2cb770fbf8555760",
    ("sts", "arb_Arab", STUDY_INSTRUCTIONS): "15e34391c62abfb2",
}


@pytest.mark.parametrize("name", TYPES)
def test_every_type_implements_the_llm_protocol(name: str) -> None:
    task = task_types.get(name)
    assert isinstance(task, LLMTask)
    left = {
        m
        for m in LLMTask.__abstractmethods__
        if getattr(getattr(type(task), m), "__isabstractmethod__", False)
    }
    assert not left, f"{name} leaves {sorted(left)} abstract"
    mixin = next(c for c in type(task).__mro__ if c.__name__.endswith("LLM"))
    assert issubclass(mixin, LLMTask) and not inspect.isabstract(mixin)
    spec = task.llm_spec(**PARAMS[name])
    assert spec.task_type == name


@pytest.mark.parametrize(("name", "language", "instructions"), sorted(PROMPTS, key=str))
def test_prompts_keep_their_bytes(name: str, language: str, instructions: str | None) -> None:
    task = task_types.get(name)
    spec = task.llm_spec(language=language, instructions=instructions, **PARAMS[name])
    prompt = build_prompt(task, spec, CONTENT[name])
    text = json.dumps(
        {"messages": prompt.messages, "schema": prompt.schema}, sort_keys=True, ensure_ascii=False
    )
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == PROMPTS[name, language, instructions]


@pytest.mark.parametrize("name", TYPES)
def test_a_reply_outside_the_protocol_is_rejected_not_guessed(name: str) -> None:
    task = task_types.get(name)
    spec = task.llm_spec(**PARAMS[name])
    prompt = build_prompt(task, spec, CONTENT[name])
    for raw, status in (('{"nothing": "here"}', {"parse_error", "invalid"}), ("", {"parse_error"})):
        outcome = parse_reply(task, spec, prompt, raw)
        assert outcome.status in status and outcome.answer is None and outcome.error


# -- a type ml_backend.llm has never heard of ---------------------------------------------------


class YesNo(LLMTask):
    """A made-up pair task: does the second text follow from the first? ``{"answer": yes|no}``."""

    name = "yes_no"

    def llm_spec(
        self,
        *,
        labels: Sequence[str] | Mapping[int, str] | None = None,
        n_groups: int | None = None,
        language: str | None = None,
        instructions: str | None = None,
    ) -> TaskSpec:
        return TaskSpec(self.name, labels=("yes", "no"), language=language)

    def llm_prompt(self, spec: TaskSpec, content: Mapping[str, Any]) -> Prompt:
        fmt = 'Answer with only {"answer": "yes" | "no"}'
        parts = ["Does B follow from A?", block("a", content["a"]), block("b", content["b"]), fmt]
        schema = object_schema({"answer": {"type": "string", "enum": list(spec.labels)}})
        return make_prompt(parts, schema=schema, answer_format=fmt)

    def llm_answer(self, spec: TaskSpec, prompt: Prompt, reply: dict[str, Any]) -> int:
        if reply.get("answer") not in spec.labels:
            raise Reject("invalid", f"{reply.get('answer')!r} is neither yes nor no")
        return int(reply["answer"] == "yes")


class Scripted:
    """A ChatBackend that replies from a list and keeps what it was sent."""

    name, endpoint = "scripted", "test:scripted"

    def __init__(self, *replies: str) -> None:
        self.settings = GenerationSettings(model="scripted")
        self.replies = list(replies)
        self.sent: list[tuple[Any, Any]] = []

    def complete(self, messages: Any, *, response_format: Any = None) -> Completion:
        self.sent.append((messages, response_format))
        return Completion(text=self.replies.pop(0))


def test_a_new_type_needs_no_change_in_the_annotator() -> None:
    backend = Scripted('{"answer": "yes"}', '{"answer": "maybe"}', '{"answer": "no"}')
    instances = [
        {"hume_id": "p1", "content": {"a": "It rains.", "b": "The street is wet."}},
        {"hume_id": "p2", "content": {"a": "It is sunny.", "b": "It rains."}},
    ]
    records = annotate(instances, YesNo(), client=backend, concurrency=1, progress=False)
    assert [(r["status"], r["answer"], r["task_type"]) for r in records] == [
        ("ok", 1, "yes_no"),
        ("ok", 0, "yes_no"),  # after one reminder naming what was wrong
    ]
    assert records[1]["calls"] == 2 and "neither yes nor no" in backend.sent[2][0][-1]["content"]
    assert backend.sent[0][1]["json_schema"]["name"] == "hume_yes_no"


def test_a_type_name_is_not_a_type() -> None:
    with pytest.raises(TypeError, match="task type object"):
        annotate([], "classification", client=Scripted(), progress=False)  # type: ignore[arg-type]
