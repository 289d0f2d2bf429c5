"""Regression's interface and LLM annotator: the Number box bounded by the subset's scale and
required with no default (an untouched box is no answer), right to left for Arabic; results
outside the bounds or not numbers refused; the prompt names the bounds and the parser reads a
number within them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from hume_sync.task_types.regression import Regression
from label_studio_configs.errors import InvalidContentError, InvalidResultError
from ml_backend.llm.prompts import Prompt
from ml_backend.llm.task import Reject, build_prompt

TYPE = Regression()
CONFIG = {"value_range": [2007, 2023], "step": 1, "instructions": "Give the year."}


def _number(xml: str) -> ET.Element:
    (number,) = ET.fromstring(xml).iter("Number")
    return number


def test_the_number_box_takes_the_subset_s_scale_and_is_required() -> None:
    number = _number(TYPE.ls_subset_config(CONFIG, language="eng-Latn"))
    assert (number.get("min"), number.get("max"), number.get("step")) == ("2007", "2023", "1")
    assert number.get("required") == "true" and number.get("defaultValue") is None
    assert number.get("toName") == "text"
    sick = _number(TYPE.ls_subset_config({"value_range": [1, 5], "step": 0.1}, language="en"))
    assert (sick.get("min"), sick.get("max"), sick.get("step")) == ("1", "5", "0.1")


def test_arabic_text_runs_right_to_left() -> None:
    xml = TYPE.ls_subset_config(CONFIG, language="arb-Arab")
    assert "direction: rtl" in xml
    assert "direction: ltr" in TYPE.ls_subset_config(CONFIG, language="rus-Cyrl")


def test_results_round_trip_and_bad_ones_are_refused() -> None:
    kwargs = TYPE.ls_translation_kwargs(CONFIG, {"text": "x"})
    result = TYPE.ls_answer_to_result(2015.0, **kwargs)
    assert result[0]["value"] == {"number": 2015.0}
    assert TYPE.ls_result_to_answer(result, **kwargs) == 2015.0
    as_text = [{**result[0], "value": {"number": "2012"}}]
    assert TYPE.ls_result_to_answer(as_text, **kwargs) == 2012.0
    for value, match in [(1999, "outside the bounds"), (None, "finite number"),
                         ("soon", "not a number"), (float("inf"), "finite number")]:  # fmt: skip
        bad = [{**result[0], "value": {"number": value}}]
        with pytest.raises(InvalidResultError, match=match):
            TYPE.ls_result_to_answer(bad, **kwargs)
    with pytest.raises(InvalidResultError, match="result is empty"):
        TYPE.ls_result_to_answer([], **kwargs)
    # a model's prediction beyond the bounds is shown at the bound
    assert TYPE.ls_answer_to_result(2031.4, **kwargs)[0]["value"] == {"number": 2023.0}
    with pytest.raises(InvalidContentError, match="min 5 is above its max 1"):
        TYPE.ls_subset_config({"value_range": [5, 1], "step": 1}, language="en")


def test_the_prompt_names_the_bounds_and_the_reply_is_read_within_them() -> None:
    spec = TYPE.llm_spec(language="eng-Latn", instructions=None, **TYPE.llm_params(CONFIG))
    prompt: Prompt = build_prompt(TYPE, spec, {"text": "An abstract about graphs."})
    text = "\n".join(m["content"] for m in prompt.messages)
    assert "between 2007 and 2023, in steps of 1" in text and "An abstract about graphs." in text
    assert prompt.schema is not None
    assert TYPE.llm_answer(spec, prompt, {"value": 2016}) == 2016.0
    assert TYPE.llm_answer(spec, prompt, {"value": " 2011.5 "}) == 2011.5
    with pytest.raises(Reject) as out:
        TYPE.llm_answer(spec, prompt, {"value": 1850})
    assert out.value.status == "invalid"
    for reply in ({"value": "recent"}, {"value": True}, {"value": [2015]}):
        with pytest.raises(Reject) as out:
            TYPE.llm_answer(spec, prompt, reply)
        assert out.value.status == "parse_error"
    with pytest.raises(ValueError, match="take no labels"):
        TYPE.llm_spec(language=None, instructions=None, labels=["a"])
