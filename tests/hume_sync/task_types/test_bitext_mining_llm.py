"""Bitext mining's LLM annotator: the prompt holds the sentence, both languages and every
candidate under its id (never which is gold); a reply is read as one of those ids, anything else
is refused with the reason the run records."""

from __future__ import annotations

import json

import pytest

from hume_sync.task_types.bitext_mining import BitextMining
from ml_backend.llm.prompts import TaskSpec
from ml_backend.llm.task import Reject, build_prompt
from tests._bitext import sib_pairs

TYPE = BitextMining()
ROWS = sib_pairs("eng_Latn", "arb_Arab", 3)
CONTENT = {
    "sentence": ROWS[1]["sentence1"],
    "candidates": [{"id": f"t{n + 4}", "text": r["sentence2"]} for n, r in enumerate(ROWS)],
}


def spec(instructions: str | None = None) -> TaskSpec:
    params = TYPE.llm_params({"target_language": "arb-Arab", "candidates": 3})
    return TYPE.llm_spec(language="eng-Latn", instructions=instructions, **params)


def test_the_prompt_holds_the_sentence_both_languages_and_every_candidate() -> None:
    prompt = build_prompt(TYPE, spec(), CONTENT)
    text = json.dumps(prompt.messages, ensure_ascii=False)
    assert ROWS[1]["sentence1"] in text
    assert "Language of the sentence: English. Language of the candidates: Arabic." in text
    for n, row in enumerate(ROWS):
        assert f"[t{n + 4}] {row['sentence2']}" in text
    assert prompt.item_ids == ("t4", "t5", "t6")
    assert prompt.schema["properties"]["translation"]["enum"] == ["t4", "t5", "t6"]
    assert "gold" not in text.lower()
    own = build_prompt(TYPE, spec("Choose the Arabic translation."), CONTENT)
    assert "Choose the Arabic translation." in json.dumps(own.messages, ensure_ascii=False)


@pytest.mark.parametrize(("value", "expected"), [("t5", "t5"), ("[T5]", "t5"), (" t6 ", "t6")])
def test_a_reply_names_a_candidate(value: str, expected: str) -> None:
    prompt = build_prompt(TYPE, spec(), CONTENT)
    assert TYPE.llm_answer(spec(), prompt, {"translation": value}) == expected


@pytest.mark.parametrize(
    ("reply", "reason"),
    [({"translation": "t9"}, "invalid"), ({"translation": 5}, "parse_error")],
)
def test_other_replies_are_refused(reply: dict[str, object], reason: str) -> None:
    prompt = build_prompt(TYPE, spec(), CONTENT)
    with pytest.raises(Reject) as err:
        TYPE.llm_answer(spec(), prompt, reply)
    assert err.value.status == reason


def test_a_parameter_it_does_not_read_is_refused() -> None:
    with pytest.raises(ValueError, match="take no labels"):
        TYPE.llm_spec(language="eng-Latn", labels=["a", "b"])
