"""Pair classification's LLM concern: the prompt gives what annotators are given, and replies are
read strictly into the human answer shape (1 or 0), never defaulted (through the annotator's
shared reader, ``ml_backend.llm.parse_reply``, as ``annotate`` reads them)."""

from __future__ import annotations

import json

import pytest

from hume_sync.task_types.pair_classification import PairClassification
from label_studio_configs import pair_classification as lsc_pair
from label_studio_configs.errors import InvalidContentError
from ml_backend.llm import parse_reply
from ml_backend.llm.prompts import SYSTEM_PROMPT, TaskSpec

TYPE = PairClassification()
CONTENT = {"sentence1": "A dog is running in the park.", "sentence2": "An animal is outside."}


def test_prompt_carries_the_human_instructions_both_texts_and_the_answers() -> None:
    spec = TYPE.llm_spec(language="eng-Latn", instructions=lsc_pair.ENTAILMENT_INSTRUCTIONS)
    assert spec == TaskSpec(
        "pair_classification",
        levels={1: "Yes", 0: "No"},
        language="eng-Latn",
        instructions=lsc_pair.ENTAILMENT_INSTRUCTIONS,
    )
    prompt = TYPE.llm_prompt(spec, CONTENT)
    system, user = prompt.messages
    assert system == {"role": "system", "content": SYSTEM_PROMPT}
    text = user["content"]
    assert text.startswith(lsc_pair.ENTAILMENT_INSTRUCTIONS)
    assert "Language of the texts: English." in text
    assert "1 – Yes\n0 – No" in text
    assert text.index(CONTENT["sentence1"]) < text.index(CONTENT["sentence2"])
    assert text.endswith('Answer with only this JSON object: {"label": <1 or 0>}')
    assert prompt.schema["properties"] == {"label": {"type": "integer", "enum": [1, 0]}}
    assert prompt.response_format("json_schema", "pair")["json_schema"]["strict"] is True
    # nothing else about the pair (no gold) reaches the prompt
    leaky = TYPE.llm_prompt(spec, {**CONTENT, "label": 1, "gold": "ENTAILMENT"})
    assert leaky.messages == prompt.messages


def test_default_and_reworded_prompts() -> None:
    plain = TYPE.llm_prompt(TYPE.llm_spec(), CONTENT).messages[1]["content"]
    assert plain.startswith(lsc_pair.DEFAULT_INSTRUCTIONS) and "Language" not in plain
    spec = TYPE.llm_spec(labels={1: "Duplicate", 0: "Not a duplicate"})
    assert (
        "1 – Duplicate\n0 – Not a duplicate"
        in TYPE.llm_prompt(spec, CONTENT).messages[1]["content"]
    )
    with pytest.raises(InvalidContentError):
        TYPE.llm_spec(labels={1: "Same", 0: "Same"})
    with pytest.raises(ValueError):  # a label list is a classification label set
        TYPE.llm_spec(labels=["Yes", "No"])
    # the spec is made from what the interface shows for a subset (annotate's call)
    config = {"pair_labels": {"1": "Duplicate", "0": "Not a duplicate"}}
    shown = TYPE.llm_spec(**TYPE.llm_params(config))
    assert shown.levels == {1: "Duplicate", 0: "Not a duplicate"}
    with pytest.raises(InvalidContentError):
        TYPE.llm_prompt(TYPE.llm_spec(), {"sentence1": "only one"})


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ('{"label": 1}', 1),
        ('{"label": 0}', 0),
        ('{"label": 1.0}', 1),
        ('{"label": "0"}', 0),
        ('{"label": " 1 "}', 1),
        ('{"label": true}', 1),
        ('{"label": "yes"}', 1),
        ('{"label": "NO"}', 0),
        ('```json\n{"label": 1}\n```', 1),
        ('{"label": 0, "reason": "different subjects"}', 0),
    ],
)
def test_replies_that_name_one_answer(raw: str, answer: int) -> None:
    spec = TYPE.llm_spec()
    outcome = parse_reply(TYPE, spec, TYPE.llm_prompt(spec, CONTENT), raw)
    assert (outcome.status, outcome.answer, outcome.error) == ("ok", answer, None)
    assert isinstance(outcome.answer, int) and not isinstance(outcome.answer, bool)
    # the protocol's call on the reply's JSON object gives the same answer
    if not raw.startswith("`"):
        assert TYPE.llm_answer(spec, TYPE.llm_prompt(spec, CONTENT), json.loads(raw)) == answer


@pytest.mark.parametrize(
    ("raw", "status", "why"),
    [
        ("", "parse_error", "empty"),
        ("Yes.", "parse_error", "not valid JSON"),
        ("[1]", "parse_error", "expected a JSON object"),
        ('{"answer": 1}', "parse_error", 'no "label"'),
        ('{"label": 1, "label": 0}', "parse_error", "appears twice"),
        ('{"label": null}', "parse_error", "must be 1 or 0"),
        ('{"label": [1]}', "parse_error", "must be 1 or 0"),
        ('{"label": 2}', "invalid", "not 1 or 0"),
        ('{"label": 0.5}', "invalid", "not 1 or 0"),
        ('{"label": "maybe"}', "invalid", "not 1 or 0"),
        ('{"label": "Duplicate"}', "invalid", "not 1 or 0"),
    ],
)
def test_replies_that_cannot_be_used_are_never_defaulted(raw: str, status: str, why: str) -> None:
    spec = TYPE.llm_spec()
    outcome = parse_reply(TYPE, spec, TYPE.llm_prompt(spec, CONTENT), raw)
    assert outcome.status == status and outcome.answer is None
    assert why in (outcome.error or "")


def test_reworded_answers_are_accepted_by_their_text() -> None:
    spec = TYPE.llm_spec(labels={1: "Duplicate", 0: "Not a duplicate"})
    prompt = TYPE.llm_prompt(spec, CONTENT)
    assert parse_reply(TYPE, spec, prompt, json.dumps({"label": "not a duplicate"})).answer == 0
    assert parse_reply(TYPE, spec, prompt, json.dumps({"label": "Yes"})).status == "invalid"
    # the parsed answer is exactly what the interface stores for a human
    answer = parse_reply(TYPE, spec, prompt, '{"label": 1}').answer
    assert TYPE.ls_result_to_answer(TYPE.ls_answer_to_result(answer)) == 1
