"""answer <-> Label Studio result translation, and rejection of results that do not fit."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hume_sync import task_types
from label_studio_configs import classification, clustering, reranking, sts
from label_studio_configs.errors import InvalidAnswerError, InvalidResultError
from tests.task_type_examples import examples

SETTINGS = settings(max_examples=60, deadline=None)

label_text = st.text(min_size=1, max_size=20).filter(
    lambda s: s.strip() and "$" not in s and all(ord(c) >= 32 for c in s)
)
item_id = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12)


# -- round trips ---------------------------------------------------------------------------


@SETTINGS
@given(labels=st.lists(label_text, min_size=2, max_size=8, unique=True), data=st.data())
def test_classification_round_trip(labels: list[str], data: st.DataObject) -> None:
    answer = data.draw(st.sampled_from(labels))
    result = classification.answer_to_result(answer, labels=labels)
    assert result[0]["value"] == {"choices": [answer]}
    assert classification.result_to_answer(result, labels=labels) == answer


@SETTINGS
@given(answer=st.integers(0, 5) | st.sampled_from([0.0, 5.0, 3.0]))
def test_sts_round_trip(answer: float) -> None:
    result = sts.answer_to_result(answer)
    back = sts.result_to_answer(result)
    assert back == answer and isinstance(back, int)


@SETTINGS
@given(ids=st.lists(item_id, min_size=1, max_size=10, unique=True), data=st.data())
def test_reranking_round_trip(ids: list[str], data: st.DataObject) -> None:
    answer = {i: data.draw(st.sampled_from([0, 1])) for i in ids}
    result = reranking.answer_to_result(answer, item_ids=ids)
    ranker = result[0]["value"]["ranker"]
    assert set(ranker) == {"relevant", "not_relevant"}
    assert reranking.result_to_answer(result, item_ids=ids) == answer


@SETTINGS
@given(
    ids=st.lists(item_id, min_size=1, max_size=40, unique=True),
    k=st.integers(2, 8),
    data=st.data(),
)
def test_clustering_round_trip(ids: list[str], k: int, data: st.DataObject) -> None:
    groups = clustering.group_names(k)
    answer = {i: data.draw(st.sampled_from(groups)) for i in ids}
    result = clustering.answer_to_result(answer, n_groups=k, item_ids=ids)
    ranker = result[0]["value"]["ranker"]
    assert set(ranker) == {*groups, "_"} and ranker["_"] == []
    assert clustering.result_to_answer(result, n_groups=k, item_ids=ids) == answer


def test_results_from_label_studio_with_extra_keys_are_accepted() -> None:
    """Stored results carry id/origin and other keys; only the checked ones matter."""
    result = classification.answer_to_result("b", labels=["a", "b"])
    result[0] |= {"id": "Xy12", "origin": "manual", "readonly": False}
    assert classification.result_to_answer(result, labels=["a", "b"]) == "b"
    # A Ranker without a default bucket stores the unsorted column "_", empty when all are placed.
    ids = ["x", "y"]
    result = clustering.answer_to_result({"x": "group_2", "y": "group_2"}, n_groups=2, item_ids=ids)
    del result[0]["value"]["ranker"]["_"]
    assert clustering.result_to_answer(result, n_groups=2, item_ids=ids) == {
        "x": "group_2",
        "y": "group_2",
    }


def test_result_shapes() -> None:
    assert classification.answer_to_result("joy", labels=["joy"]) == [
        {
            "id": "hume-label",
            "from_name": "label",
            "to_name": "text",
            "type": "choices",
            "value": {"choices": ["joy"]},
        }
    ]
    assert sts.answer_to_result(0)[0] | {"id": None} == {
        "id": None,
        "from_name": "similarity",
        "to_name": "sentence1",
        "type": "choices",
        "value": {"choices": ["0"]},
    }
    rr = reranking.answer_to_result({"a": 1, "b": 0, "c": 1}, item_ids=["a", "b", "c"])[0]
    assert (rr["from_name"], rr["to_name"], rr["type"]) == ("relevance", "candidates", "ranker")
    assert rr["value"] == {"ranker": {"relevant": ["a", "c"], "not_relevant": ["b"]}}
    cl = clustering.answer_to_result(
        {"a": "group_2", "b": "group_1"}, n_groups=3, item_ids=["a", "b"]
    )[0]
    assert (cl["from_name"], cl["to_name"], cl["type"]) == ("groups", "items", "ranker")
    assert cl["value"] == {"ranker": {"group_1": ["b"], "group_2": ["a"], "group_3": [], "_": []}}


# -- rejected results ----------------------------------------------------------------------

LABELS = ["joy", "anger", "fear"]
IDS = ["d1", "d2", "d3"]


def case(task_type: str) -> tuple[Any, dict[str, Any], Any]:
    """The type's config module, keywords and a good answer (its LS_RESULT_CASE)."""
    kw, answer = examples(task_type).LS_RESULT_CASE
    return task_types.get(task_type).ls_module, kw, answer


def good(task_type: str) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    module, kw, answer = case(task_type)
    return module, kw, module.answer_to_result(answer, **kw)


@pytest.mark.parametrize("task_type", task_types.names())
@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: "not a list", "must be a list"),
        (lambda r: [], "empty"),
        (lambda r: ["x"], "not a mapping"),
        (lambda r: [r[0] | {"from_name": "other"}], "control 'other'"),
        (lambda r: [r[0] | {"to_name": "elsewhere"}], "points to 'elsewhere'"),
        (lambda r: [r[0] | {"type": "textarea"}], "result type 'textarea'"),
        (lambda r: [r[0] | {"value": None}], "no value"),
        (lambda r: [r[0], copy.deepcopy(r[0])], "2 result items"),
        (lambda r: [*r, {"from_name": "extra", "to_name": "t", "type": "choices"}], "'extra'"),
    ],
)
def test_structural_faults_rejected(task_type: str, mutate, message: str) -> None:
    module, kw, result = good(task_type)
    with pytest.raises(InvalidResultError, match=message):
        module.result_to_answer(mutate(copy.deepcopy(result)), **kw)


def set_choices(result: list[dict[str, Any]], choices: Any) -> list[dict[str, Any]]:
    result[0]["value"] = {"choices": choices}
    return result


@pytest.mark.parametrize(
    ("choices", "message"),
    [
        (["surprise"], "unknown choice 'surprise'"),
        (["joy", "fear"], "single choice but has 2 choices"),
        ([], "no choice"),
        ("joy", "no list of choices"),
        ([1], "no list of choices"),
    ],
)
def test_classification_bad_choices_rejected(choices: Any, message: str) -> None:
    module, kw, result = good("classification")
    with pytest.raises(InvalidResultError, match=message):
        module.result_to_answer(set_choices(result, choices), **kw)


@pytest.mark.parametrize(
    ("choices", "message"),
    [
        (["6"], "unknown level '6'"),
        (["2.5"], "unknown level"),
        (["0 – completely dissimilar"], "unknown level"),
        (["1", "2"], "exactly one level, got 2"),
        ([], "exactly one level, got 0"),
        ([3], "no list of choices"),
    ],
)
def test_sts_bad_levels_rejected(choices: Any, message: str) -> None:
    module, kw, result = good("sts")
    with pytest.raises(InvalidResultError, match=message):
        module.result_to_answer(set_choices(result, choices), **kw)


def test_sts_zero_is_recorded() -> None:
    assert sts.result_to_answer(sts.answer_to_result(0)) == 0


def set_ranker(result: list[dict[str, Any]], ranker: Any) -> list[dict[str, Any]]:
    result[0]["value"] = {"ranker": ranker}
    return result


@pytest.mark.parametrize(
    ("ranker", "message"),
    [
        ({"relevant": ["d1"], "not_relevant": ["d2"]}, r"1 candidate\(s\) missing.*'d3'"),
        ({"relevant": ["d1", "d4"], "not_relevant": ["d2", "d3"]}, "unknown candidate id 'd4'"),
        ({"relevant": ["d1"], "not_relevant": ["d1", "d2", "d3"]}, "'d1' is in two buckets"),
        ({"relevant": ["d1", "d1"], "not_relevant": ["d2", "d3"]}, "appears twice"),
        ({"relevant": ["d1"], "maybe": ["d2"], "not_relevant": ["d3"]}, "unknown bucket 'maybe'"),
        ({"relevant": "d1", "not_relevant": ["d2", "d3"]}, "not a list of ids"),
        ({"relevant": [], "not_relevant": ["d2", "d3"], "_": ["d1"]}, "left unsorted.*'d1'"),
        (["d1", "d2", "d3"], "no 'ranker' mapping"),
    ],
)
def test_reranking_bad_buckets_rejected(ranker: Any, message: str) -> None:
    module, kw, result = good("reranking")
    with pytest.raises(InvalidResultError, match=message):
        module.result_to_answer(set_ranker(result, ranker), **kw)


@pytest.mark.parametrize(
    ("ranker", "message"),
    [
        ({"group_1": ["d1"], "group_2": ["d2"], "_": ["d3"]}, r"1 item\(s\) left unsorted.*'d3'"),
        ({"group_1": ["d1"], "group_2": ["d2"]}, r"1 item\(s\) missing.*'d3'"),
        ({"group_1": ["d1", "d3"], "group_2": ["d2", "x9"]}, "unknown item id 'x9'"),
        ({"group_1": ["d1", "d3"], "group_2": ["d2", "d3"]}, "'d3' is in two buckets"),
        ({"group_1": ["d1", "d3"], "group_3": ["d2"]}, "unknown bucket 'group_3'"),
        ({"group_1": ["d1", "d3"], "group_2": ["d2"], "_": ["zz"]}, "unknown item ids"),
    ],
)
def test_clustering_bad_groups_rejected(ranker: Any, message: str) -> None:
    module, kw, result = good("clustering")
    with pytest.raises(InvalidResultError, match=message):
        module.result_to_answer(set_ranker(result, ranker), **kw)


def test_invalid_result_error_is_a_value_error() -> None:
    assert issubclass(InvalidResultError, ValueError)
    assert issubclass(InvalidAnswerError, ValueError)


# -- rejected answers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task_type", "answer", "kw", "message"),
    [
        ("classification", "surprise", {"labels": LABELS}, "not one of the labels"),
        ("classification", 1, {"labels": LABELS}, "not one of the labels"),
        ("sts", 6, {}, "not one of the levels"),
        ("sts", -1, {}, "not one of the levels"),
        ("sts", 2.5, {}, "not one of the levels"),
        ("sts", float("nan"), {}, "not one of the levels"),
        ("sts", "3", {}, "not a number"),
        ("sts", True, {}, "not a number"),
        ("reranking", {"d1": 1, "d2": 0}, {"item_ids": IDS}, "misses candidates"),
        ("reranking", {"d1": 1, "d2": 0, "d3": 0, "d9": 1}, {"item_ids": IDS}, "unknown"),
        ("reranking", {"d1": 2, "d2": 0, "d3": 0}, {"item_ids": IDS}, "expected 1 or 0"),
        ("reranking", {"d1": 0.5, "d2": 0, "d3": 0}, {"item_ids": IDS}, "expected 1 or 0"),
        ("reranking", [1, 0, 0], {"item_ids": IDS}, "must be a mapping"),
        ("clustering", {"d1": "group_1"}, {"n_groups": 2, "item_ids": IDS}, "misses items"),
        (
            "clustering",
            {"d1": "group_1", "d2": "group_3", "d3": "group_1"},
            {"n_groups": 2, "item_ids": IDS},
            "unknown group 'group_3'",
        ),
        (
            "clustering",
            {"d1": "group_1", "d2": "group_1", "d3": "group_1", "x": "group_2"},
            {"n_groups": 2, "item_ids": IDS},
            "unknown items",
        ),
    ],
)
def test_bad_answers_rejected(
    task_type: str, answer: Any, kw: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidAnswerError, match=message):
        task_types.get(task_type).ls_answer_to_result(answer, **kw)


@pytest.mark.parametrize("task_type", task_types.names())
def test_uniform_keywords_work_for_every_type(task_type: str) -> None:
    """Callers can pass the same keyword set to any type (unused ones are ignored)."""
    module, kw, answer = case(task_type)
    full = {"labels": None, "n_groups": None, "item_ids": None, **kw}
    result = module.answer_to_result(answer, **full)
    assert module.result_to_answer(result, **full) == answer


def test_missing_parameters_are_reported() -> None:
    _, _, result = good("clustering")
    with pytest.raises(ValueError, match="item ids"):
        clustering.result_to_answer(result, n_groups=2)
    with pytest.raises(ValueError, match="n_groups"):
        clustering.result_to_answer(result, item_ids=IDS)
    _, _, result = good("classification")
    with pytest.raises(ValueError, match="label set"):
        classification.result_to_answer(result)
