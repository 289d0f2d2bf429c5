"""The LLM annotator's protocol (LLMTask): every registered type implements it, its prompts keep
their bytes, and a type the package has never heard of runs through ``annotate`` unchanged."""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Mapping
from typing import Any

import pytest

from hume_sync import task_types
from ml_backend.llm import GenerationSettings, annotate, build_prompt, parse_reply
from ml_backend.llm.client import Completion
from ml_backend.llm.prompts import Prompt, TaskSpec, block, make_prompt, object_schema
from ml_backend.llm.task import LLMTask, Reject
from tests.task_type_examples import STUDY_INSTRUCTIONS, examples

TYPES = task_types.names()
# Each type's subset parameters (LLM_PARAMS), instance (CONTENT) and pinned prompts (LLM_PROMPTS)
# are in tests/task_type_examples/<type>.py. A pin is the sha256 (first 16 hex digits) of
# {"messages", "schema"}; for the first four types as ml_backend.llm.prompts built them from the
# type name (commit fed7b48): the cache key holds the prompt, so a changed byte would send every
# cached instance to the model again.


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
    spec = task.llm_spec(**examples(name).LLM_PARAMS)
    assert [spec.task_type] == [name]


@pytest.mark.parametrize("name", TYPES)
def test_prompts_keep_their_bytes(name: str) -> None:
    task, ex = task_types.get(name), examples(name)
    pinned = ex.LLM_PROMPTS
    assert (None in {i for _, i in pinned}) and (STUDY_INSTRUCTIONS in {i for _, i in pinned})
    got = {}
    for language, instructions in pinned:
        spec = task.llm_spec(language=language, instructions=instructions, **ex.LLM_PARAMS)
        prompt = build_prompt(task, spec, ex.CONTENT)
        text = json.dumps(
            {"messages": prompt.messages, "schema": prompt.schema},
            sort_keys=True,
            ensure_ascii=False,
        )
        got[language, instructions] = hashlib.sha256(text.encode()).hexdigest()[:16]
    assert got == pinned


@pytest.mark.parametrize("name", TYPES)
def test_a_reply_outside_the_protocol_is_rejected_not_guessed(name: str) -> None:
    task, ex = task_types.get(name), examples(name)
    spec = task.llm_spec(**ex.LLM_PARAMS)
    prompt = build_prompt(task, spec, ex.CONTENT)
    for raw, status in (('{"nothing": "here"}', {"parse_error", "invalid"}), ("", {"parse_error"})):
        outcome = parse_reply(task, spec, prompt, raw)
        assert outcome.status in status and outcome.answer is None and outcome.error


@pytest.mark.parametrize("name", TYPES)
def test_a_type_reads_its_own_parameters_and_refuses_the_others(name: str) -> None:
    """Each type names the subset parameters its prompts read (``llm_parameters``); one it
    does not read is refused with the type and the key, never silently dropped."""
    task, ex = task_types.get(name), examples(name)
    assert set(ex.LLM_PARAMS) <= task.llm_parameters
    with pytest.raises(ValueError, match=rf"^{name} LLM annotators take no max_pairs$"):
        task.llm_spec(max_pairs=3, **ex.LLM_PARAMS)
    for other in {"labels", "n_groups"} - task.llm_parameters:
        with pytest.raises(ValueError, match=rf"take no {other}$"):
            task.llm_spec(**{other: None})


@pytest.mark.parametrize("name", TYPES)
def test_a_study_subset_gives_the_llm_what_its_interface_shows(name: str) -> None:
    """``llm_params`` reads the stored subset config (what ``hume-sync predict --llm`` passes):
    only the type's own parameters, and the spec they make is the one the example's
    parameters make (the label set, K or answer wording the annotators were shown)."""
    task, ex = task_types.get(name), examples(name)
    params = task.llm_params(ex.CONFIG)
    assert set(params) <= task.llm_parameters
    assert task.llm_spec(**params) == task.llm_spec(**ex.LLM_PARAMS)


def test_the_parameters_are_read_from_the_config_not_defaulted() -> None:
    """A changed label set, K and answer wording in the config change the spec."""
    cls, clu, pair = (
        task_types.get(n) for n in ("classification", "clustering", "pair_classification")
    )
    assert cls.llm_spec(**cls.llm_params({"label_set": ["x", "y"]})).labels == ("x", "y")
    assert clu.llm_spec(**clu.llm_params({"n_groups": 4})).n_groups == 4
    shown = pair.llm_spec(**pair.llm_params({"pair_labels": {"1": "Same", "0": "Other"}}))
    assert shown.levels == {1: "Same", 0: "Other"}


# -- a type ml_backend.llm has never heard of ---------------------------------------------------


class YesNo(LLMTask):
    """A made-up pair task: does the second text follow from the first? ``{"answer": yes|no}``."""

    name = "yes_no"

    def llm_make_spec(self, *, language: str | None, instructions: str | None) -> TaskSpec:
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
