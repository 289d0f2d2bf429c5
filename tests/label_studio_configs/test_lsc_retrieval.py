"""Retrieval's labeling config: every pooled document graded, grades by bucket (no server)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from label_studio_configs import retrieval
from label_studio_configs.errors import InvalidAnswerError, InvalidResultError

IDS = ["1", "2", "3", "4"]
LABELS = ["not relevant", "partly", "highly"]


def _result(ranker: dict[str, list[str]]) -> list[dict[str, object]]:
    return [
        {"from_name": "grades", "to_name": "documents", "type": "ranker",
         "value": {"ranker": ranker}}
    ]  # fmt: skip


def test_one_bucket_per_grade_highest_first_and_no_default() -> None:
    root = ET.fromstring(retrieval.render_config(labels=LABELS))
    buckets = root.findall(".//Ranker/Bucket")
    assert [(b.get("name"), b.get("title")) for b in buckets] == [
        ("grade_2", "highly"),
        ("grade_1", "partly"),
        ("grade_0", "not relevant"),
    ]
    assert all(b.get("default") is None for b in buckets)  # nothing is graded for the person


def test_arabic_renders_right_to_left() -> None:
    xml = retrieval.render_config(labels=LABELS, language="arb_Arab")
    assert "direction: rtl" in xml
    assert "direction: ltr" in retrieval.render_config(labels=LABELS, language="eng-Latn")


def test_task_data_carries_the_instruction_and_no_grade() -> None:
    content = {
        "query": "tides",
        "instruction": "Physics only.",
        "candidates": [{"id": i, "text": f"doc {i}"} for i in IDS],
    }
    data = retrieval.task_data("ref-1", content)
    assert data["instruction"] == "Physics only." and len(data["candidates"]) == 4
    assert retrieval.task_data("r", {**content, "instruction": None})["instruction"] == ""


def test_a_complete_result_is_the_grade_of_every_document() -> None:
    result = _result({"grade_2": ["3"], "grade_1": ["1", "4"], "grade_0": ["2"], "_": []})
    answer = retrieval.result_to_answer(result, labels=LABELS, item_ids=IDS)
    assert answer == {"1": 1, "2": 0, "3": 2, "4": 1}
    back = retrieval.answer_to_result(answer, labels=LABELS, item_ids=IDS)
    assert retrieval.result_to_answer(back, labels=LABELS, item_ids=IDS) == answer


def test_an_ungraded_document_makes_the_answer_invalid() -> None:
    result = _result({"grade_2": ["3"], "grade_1": [], "grade_0": ["2"], "_": ["1", "4"]})
    with pytest.raises(InvalidResultError, match="2 document"):
        retrieval.result_to_answer(result, labels=LABELS, item_ids=IDS)


def test_a_grade_outside_the_labels_is_refused() -> None:
    with pytest.raises(InvalidAnswerError, match=r"expected an integer 0\.\.1"):
        retrieval.answer_to_result({"1": 2}, labels=["no", "yes"], item_ids=["1"])
    with pytest.raises(InvalidResultError, match="unknown bucket 'grade_2'"):
        retrieval.result_to_answer(
            _result({"grade_2": ["1"]}), labels=["no", "yes"], item_ids=["1"]
        )
