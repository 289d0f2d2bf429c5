"""Bitext mining's Label Studio interface: the sentence and its candidates' texts (never an id,
nor which is gold), each side in its language's direction, and results read back as complete
answers only (one candidate chosen, one of this task's)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from hume_sync.task_types.bitext_mining import BitextMining
from label_studio_configs.errors import InvalidAnswerError, InvalidContentError, InvalidResultError
from tests._bitext import sib_pairs

TYPE = BitextMining()
ROWS = sib_pairs("eng_Latn", "arb_Arab", 4)
CONTENT: dict[str, Any] = {
    "sentence": ROWS[0]["sentence1"],
    "candidates": [{"id": f"t{n}", "text": r["sentence2"]} for n, r in enumerate(ROWS)],
}
CONFIG = {"target_language": "arb-Arab", "candidates": 4}


def result_for(choices: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "from_name": "translation",
            "to_name": "sentence",
            "type": "choices",
            "value": {"choices": choices},
        }
    ]


def test_the_config_lays_out_each_language_in_its_direction() -> None:
    xml = TYPE.ls_subset_config(CONFIG, language="eng-Latn")
    root = ET.fromstring(xml)
    [choices] = root.iter("Choices")
    assert choices.get("value") == "$options" and choices.get("choice") == "single-radio"
    assert choices.get("required") == "true" and not list(choices)  # the task's own choices
    styles = [v.get("style") for v in root.iter("View") if v.get("style")]
    # the sentence (English) left to right, the candidates (Arabic) right to left
    assert "direction: ltr" in styles[0] and "direction: rtl" in styles[1]
    back = TYPE.ls_subset_config({"target_language": "eng-Latn"}, language="arb-Arab")
    styles = [v.get("style") for v in ET.fromstring(back).iter("View") if v.get("style")]
    assert "direction: rtl" in styles[0] and "direction: ltr" in styles[1]


def test_task_data_shows_texts_only() -> None:
    data = TYPE.ls_task_data("ref-1", CONTENT)
    assert set(data) == {"hume_ref", "sentence", "options"}
    assert data["options"] == [{"value": c["text"]} for c in CONTENT["candidates"]]
    assert "t0" not in str(data)  # no candidate id reaches the screen


def test_a_choice_is_read_back_as_the_candidate_s_id() -> None:
    kw = TYPE.ls_translation_kwargs(CONFIG, CONTENT)
    result = TYPE.ls_answer_to_result("t2", **kw)
    assert result[0]["value"]["choices"] == [ROWS[2]["sentence2"]]
    assert TYPE.ls_result_to_answer(result, **kw) == "t2"
    assert TYPE.ls_result_to_answer(result_for([ROWS[3]["sentence2"]]), **kw) == "t3"


@pytest.mark.parametrize(
    ("result", "match"),
    [
        ([], "result is empty"),
        (result_for([]), "single choice but has 0"),
        (result_for([ROWS[0]["sentence2"], ROWS[1]["sentence2"]]), "single choice but has 2"),
        (result_for(["another sentence"]), "is not one of the candidates"),
    ],
)
def test_incomplete_or_foreign_answers_are_refused(result: Any, match: str) -> None:
    kw = TYPE.ls_translation_kwargs(CONFIG, CONTENT)
    with pytest.raises(InvalidResultError, match=match):
        TYPE.ls_result_to_answer(result, **kw)


def test_bad_answers_and_contents_are_one_line_errors() -> None:
    kw = TYPE.ls_translation_kwargs(CONFIG, CONTENT)
    with pytest.raises(InvalidAnswerError, match="not one of the candidates"):
        TYPE.ls_answer_to_result("t9", **kw)
    twice = {"sentence": "s", "candidates": [{"id": "a", "text": "x"}, {"id": "b", "text": "x"}]}
    with pytest.raises(InvalidContentError, match="same text twice"):
        TYPE.ls_task_data("ref", twice)


def test_the_quality_view_is_the_shown_place() -> None:
    view = TYPE.quality_view("t2", CONTENT, CONFIG)
    assert view is not None
    assert (view.choice, view.n_options, view.positions, view.n_shown) == (2, 4, (2,), 4)
    assert TYPE.quality_view("t9", CONTENT, CONFIG) is None
