"""Summarization's Label Studio interface: one box per rating (5 first) and no default box,
the references only where the subset shows them, every summary rated or the result refused,
right to left where the language is, and a model's similarities revealed as ratings by rank."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from hume_sync.task_types.summarization import Summarization
from hume_sync.task_types.summarization.interface import spread_ratings
from label_studio_configs import summarization as config
from label_studio_configs.errors import InvalidAnswerError, InvalidResultError

TYPE = Summarization()
CONTENT = {
    "text": "Two dogs are wrestling and hugging",
    "candidates": [{"id": "1", "text": "Dogs play"}, {"id": "2", "text": "A cat sleeps"}],
    "references": ["Two dogs wrestle", "Dogs hug"],
}


def test_one_box_per_rating_highest_first_and_no_default() -> None:
    root = ET.fromstring(TYPE.ls_subset_config({"show_references": False}, language="en"))
    buckets = list(root.iter("Bucket"))
    assert [b.get("name") for b in buckets] == [f"rating_{r}" for r in (5, 4, 3, 2, 1)]
    assert buckets[0].get("title") == "5 – highly relevant"
    assert not any(b.get("default") for b in buckets)
    assert {t.get("name") for t in root.iter("Text")} == {"text"}


def test_the_references_show_only_where_the_subset_says_so() -> None:
    shown = ET.fromstring(TYPE.ls_subset_config({"show_references": True}, language="en"))
    assert {t.get("name"): t.get("value") for t in shown.iter("Text")} == {
        "text": "$text",
        "references": "$references",
    }
    data = TYPE.ls_task_data("ref-1", CONTENT)
    assert data["references"] == "Two dogs wrestle\n\nDogs hug"
    assert [s["body"] for s in data["summaries"]] == ["Dogs play", "A cat sleeps"]
    assert "gold" not in data and "relevance" not in data


def test_arabic_lays_the_text_and_the_ratings_out_right_to_left() -> None:
    xml = TYPE.ls_subset_config({"show_references": True}, language="arb-Arab")
    assert "direction: rtl" in xml


def test_a_result_rates_every_summary_or_is_refused() -> None:
    kw = TYPE.ls_translation_kwargs({}, CONTENT)
    result = TYPE.ls_answer_to_result({"1": 4, "2": 1}, **kw)
    assert result[0]["value"]["ranker"]["rating_4"] == ["1"]
    assert TYPE.ls_result_to_answer(result, **kw) == {"1": 4, "2": 1}
    partial = [dict(result[0], value={"ranker": {"rating_4": ["1"], "_": ["2"]}})]
    with pytest.raises(InvalidResultError, match="1 summary\\(s\\) left unsorted"):
        TYPE.ls_result_to_answer(partial, **kw)
    missing = [dict(result[0], value={"ranker": {"rating_4": ["1"]}})]
    with pytest.raises(InvalidResultError, match="missing from the result"):
        TYPE.ls_result_to_answer(missing, **kw)
    for bad in ({"1": 4}, {"1": 4, "2": 0}, {"1": 4, "2": True}):
        with pytest.raises(InvalidAnswerError):
            TYPE.ls_answer_to_result(bad, **kw)


def test_a_model_is_revealed_as_ratings_by_rank() -> None:
    assert spread_ratings({"a": 0.2, "b": 0.9}) == {"a": 1, "b": 5}
    # five summaries, one tie: ranks 0, 1.5, 1.5, 3, 4 of 4 -> 1, 2.5→3, 3, 4, 5
    got = spread_ratings({"a": 0.1, "b": 0.3, "c": 0.3, "d": 0.5, "e": 0.8})
    assert got == {"a": 1, "b": 3, "c": 3, "d": 4, "e": 5}
    assert TYPE.ls_shown_item_ids(["a", "b"], {"a": 0.2, "b": 0.9}) == ["b", "a"]
    assert config.RATINGS[1] == "1 – not relevant"
