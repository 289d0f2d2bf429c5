"""Multilabel classification's interface: a text and a tick per label (right to left beside an
Arabic text), complete answers only (at least one tick, or the none choice alone where the
subset offers it), results read back as sorted label lists, and the LLM annotator's prompt and
parser."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hume_sync.task_types.multilabel_classification import MultilabelClassification
from label_studio_configs.errors import InvalidAnswerError, InvalidContentError, InvalidResultError
from label_studio_configs.multilabel_classification import NONE_CHOICE
from ml_backend.llm.task import Reject, build_prompt

TYPE = MultilabelClassification()
LABELS = ["health", "politics", "sports"]
PLAIN = {"label_set": LABELS, "none_choice": False}
WITH_NONE = {"label_set": LABELS, "none_choice": True}


def result(*choices: str) -> list[dict[str, Any]]:
    value = {"choices": list(choices)}
    return [{"from_name": "labels", "to_name": "text", "type": "choices", "value": value}]


def read(config: dict[str, Any], res: Any) -> Any:
    return TYPE.ls_result_to_answer(res, **TYPE.ls_translation_kwargs(config, {"text": "x"}))


def test_the_config_ticks_many_and_lays_out_arabic_right_to_left() -> None:
    xml = TYPE.ls_subset_config(PLAIN, language="arb-Arab")
    assert 'choice="multiple"' in xml and 'required="true"' in xml
    assert "direction: rtl" in xml and NONE_CHOICE not in xml
    assert [x for x in LABELS if f'<Choice value="{x}"/>' in xml] == LABELS
    english = TYPE.ls_subset_config(WITH_NONE, language="eng-Latn")
    assert "direction: ltr" in english and f'<Choice value="{NONE_CHOICE}"' in english
    assert english.index('value="sports"') < english.index(f'<Choice value="{NONE_CHOICE}"')


def test_task_data_is_the_text_only() -> None:
    data = TYPE.ls_task_data("ref-1", {"text": "A text."})
    assert data == {"hume_ref": "ref-1", "text": "A text."}


def test_ticks_are_read_back_as_a_sorted_list() -> None:
    assert read(PLAIN, result("sports", "health")) == ["health", "sports"]
    assert read(WITH_NONE, result(NONE_CHOICE)) == []
    kwargs = TYPE.ls_translation_kwargs(WITH_NONE, {"text": "x"})
    assert TYPE.ls_answer_to_result([], **kwargs)[0]["value"] == {"choices": [NONE_CHOICE]}
    back = TYPE.ls_answer_to_result(["sports", "health"], **kwargs)
    assert back[0]["value"] == {"choices": ["health", "sports"]}


@pytest.mark.parametrize(
    ("config", "res", "match"),
    [
        (PLAIN, result(), "has no choice"),
        (PLAIN, [], "result is empty"),
        (PLAIN, result("cooking"), "unknown choice 'cooking'"),
        (PLAIN, result("health", "health"), "repeats a choice"),
        (PLAIN, result(NONE_CHOICE), "unknown choice"),
        (WITH_NONE, result(NONE_CHOICE, "health"), "cannot be ticked with a label"),
    ],
)
def test_incomplete_or_contradictory_answers_are_refused(config: Any, res: Any, match: str) -> None:
    with pytest.raises(InvalidResultError, match=match) as err:
        read(config, res)
    assert "\n" not in str(err.value)


def test_bad_answers_and_label_sets_are_one_line_errors() -> None:
    kwargs = TYPE.ls_translation_kwargs(PLAIN, {"text": "x"})
    with pytest.raises(InvalidAnswerError, match="needs the none choice"):
        TYPE.ls_answer_to_result([], **kwargs)
    with pytest.raises(InvalidAnswerError, match="not a list of labels"):
        TYPE.ls_answer_to_result("health", **kwargs)
    with pytest.raises(InvalidContentError, match="must be the last label"):
        TYPE.ls_render_config(labels=[NONE_CHOICE, "health"])
    assert TYPE.ls_shown_embedding_answer(["sports", "health"], rule="gap") == ["health", "sports"]


def test_the_quality_view_is_the_ticked_set() -> None:
    view = TYPE.quality_view(["sports", "health"], {"text": "x"}, PLAIN)
    assert view is not None and view.choice == "health|sports" and view.n_options == 3


# ------------------------------------------------------------------------------ LLM annotator


def spec(config: dict[str, Any], instructions: str | None = None) -> Any:
    return TYPE.llm_spec(language="arb-Arab", instructions=instructions, **TYPE.llm_params(config))


def test_the_prompt_holds_the_text_and_every_label() -> None:
    prompt = build_prompt(TYPE, spec(PLAIN), {"text": "نص قصير"})
    text = json.dumps(prompt.messages, ensure_ascii=False)
    assert "نص قصير" in text and "Arabic" in text and "at least one" in text
    assert all(f"- {lab}" in text for lab in LABELS)
    assert prompt.schema["properties"]["labels"]["minItems"] == 1
    relaxed = build_prompt(TYPE, spec(WITH_NONE), {"text": "x"})
    assert relaxed.schema["properties"]["labels"]["minItems"] == 0


@pytest.mark.parametrize(
    ("config", "reply", "expected"),
    [
        (PLAIN, {"labels": ["sports", "health"]}, ["health", "sports"]),
        (PLAIN, {"labels": [" Sports ", "sports"]}, ["sports"]),
        (WITH_NONE, {"labels": []}, []),
    ],
)
def test_a_reply_is_read_as_labels(config: Any, reply: Any, expected: list[str]) -> None:
    prompt = build_prompt(TYPE, spec(config), {"text": "x"})
    assert TYPE.llm_answer(spec(config), prompt, reply) == expected


@pytest.mark.parametrize(
    ("config", "reply", "reason"),
    [
        (PLAIN, {"labels": []}, "invalid"),
        (PLAIN, {"labels": ["cooking"]}, "invalid"),
        (PLAIN, {"labels": "sports"}, "parse_error"),
        (PLAIN, {"labels": [3]}, "invalid"),
    ],
)
def test_other_replies_are_refused(config: Any, reply: Any, reason: str) -> None:
    prompt = build_prompt(TYPE, spec(config), {"text": "x"})
    with pytest.raises(Reject) as err:
        TYPE.llm_answer(spec(config), prompt, reply)
    assert err.value.status == reason
