"""Summarization's LLM annotator: the prompt holds the text and every summary under its id
(never an expert score), the references only where the subset shows them to people; a reply
must rate every summary on the 1–5 scale, anything else is refused with its reason."""

from __future__ import annotations

import json

import pytest

from hume_sync.task_types.summarization import Summarization
from ml_backend.llm.prompts import TaskSpec
from ml_backend.llm.task import Reject, build_prompt

TYPE = Summarization()
CONTENT = {
    "text": "A man is playing a guitar on a stage in front of a crowd",
    "candidates": [
        {"id": "1", "text": "A man is playing a guitar"},
        {"id": "2", "text": "A woman is slicing an onion"},
        {"id": "3", "text": "Someone plays music for people"},
    ],
    "references": ["A guitarist performs for a crowd"],
}


def spec(show: bool = False) -> TaskSpec:
    params = TYPE.llm_params({"show_references": show, "rating_scale": [1, 5]})
    return TYPE.llm_spec(language="eng-Latn", instructions=None, **params)


def text_of(show: bool) -> str:
    return json.dumps(build_prompt(TYPE, spec(show), CONTENT).messages, ensure_ascii=False)


def test_the_prompt_holds_the_text_and_every_summary_and_the_references_when_shown() -> None:
    hidden, shown = text_of(False), text_of(True)
    for s in CONTENT["candidates"]:
        assert f"[{s['id']}] {s['text']}" in hidden
    assert CONTENT["text"] in hidden and "5 – highly relevant" in hidden
    assert "A guitarist performs" not in hidden and "A guitarist performs" in shown
    prompt = build_prompt(TYPE, spec(), CONTENT)
    assert prompt.item_ids == ("1", "2", "3")
    assert prompt.schema["properties"]["2"]["enum"] == [1, 2, 3, 4, 5]


def test_a_reply_rates_every_summary() -> None:
    prompt = build_prompt(TYPE, spec(), CONTENT)
    assert TYPE.llm_answer(spec(), prompt, {"1": 5, "2": "1", "3": 4.0}) == {"1": 5, "2": 1, "3": 4}


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ({"1": 5, "2": 1, "3": 6}, "invalid"),
        ({"1": 5, "2": 1, "3": True}, "invalid"),
        ({"1": 5, "2": 1}, None),
        ({"1": 5, "2": 1, "3": 2, "9": 3}, None),
    ],
)
def test_other_replies_are_refused(reply: dict[str, object], reason: str | None) -> None:
    prompt = build_prompt(TYPE, spec(), CONTENT)
    with pytest.raises(Reject) as err:
        TYPE.llm_answer(spec(), prompt, reply)
    assert reason is None or err.value.status == reason
    assert err.value.error and "\n" not in err.value.error
