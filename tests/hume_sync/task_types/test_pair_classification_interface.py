"""Pair classification's interface: the Label Studio config (both texts, a binary choice, blind),
task data, result <-> answer translation, and how stored answers are shown."""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pytest

from hume_sync.task_types.pair_classification import PairClassification
from label_studio_configs import pair_classification as lsc_pair
from label_studio_configs.errors import (
    InvalidAnswerError,
    InvalidContentError,
    InvalidResultError,
)

TYPE = PairClassification()
CONTENT = {"sentence1": "A man is playing a guitar.", "sentence2": "A person plays an instrument."}


def choices_of(xml: str) -> list[tuple[str | None, str | None]]:
    return [(c.get("value"), c.get("alias")) for c in ET.fromstring(xml).iter("Choice")]


def test_config_shows_both_texts_and_one_binary_choice() -> None:
    xml = TYPE.ls_subset_config({}, language="en")
    assert xml == TYPE.ls_render_config()
    root = ET.fromstring(xml)
    texts = [t.get("value") for t in root.iter("Text")]
    assert texts == ["$sentence1", "$sentence2"]
    [control] = list(root.iter("Choices"))
    assert control.get("name") == TYPE.ls_module.FROM_NAME == "decision"
    assert control.get("toName") == TYPE.ls_module.TO_NAME == "sentence1"
    assert control.get("choice") == "single-radio" and control.get("required") == "true"
    # Yes first, then No, for every task: the order carries nothing; the alias is what is stored
    assert choices_of(xml) == [("Yes", "1"), ("No", "0")]
    names = [e.get("name") for e in root.iter() if e.get("name")]
    assert len(names) == len(set(names))
    assert lsc_pair.DEFAULT_INSTRUCTIONS in [h.get("value") for h in root.iter("Header")]


def test_sdk_label_interface_accepts_config() -> None:
    interface = pytest.importorskip("label_studio_sdk.label_interface")
    li = interface.LabelInterface(TYPE.ls_render_config())
    assert li.get_control(lsc_pair.FROM_NAME).to_name == [lsc_pair.TO_NAME]


def test_reworded_answers_instructions_and_direction() -> None:
    config = {
        "pair_labels": {"1": 'Same "question"', "0": "Different & $other"},
        "instructions": "Is the first a duplicate of the second?",
    }
    xml = TYPE.ls_subset_config(config, language="arb_Arab")
    # escaped, "$" made harmless (Label Studio would read "$other" as task data), aliases kept
    assert choices_of(xml) == [('Same "question"', "1"), ("Different & \uff04other", "0")]
    root = ET.fromstring(xml)
    assert any("direction: rtl" in (v.get("style") or "") for v in root.iter("View"))
    assert TYPE.ls_labels(config) == {1: 'Same "question"', 0: "Different & $other"}
    assert TYPE.ls_labels({}) is None  # the module's own Yes / No
    headers = [h.get("value") for h in root.iter("Header")]
    assert "Is the first a duplicate of the second?" in headers


@pytest.mark.parametrize(
    "labels",
    [
        {1: "Yes", 2: "No"},
        {1: "Yes"},
        {True: "Yes", False: "No"},
        {1: "Same", 0: " Same "},
        {1: "", 0: "No"},
        ["Yes", "No"],
    ],
)
def test_bad_wordings_are_refused(labels: Any) -> None:
    with pytest.raises(InvalidContentError):
        lsc_pair.render_config(labels=labels)


def test_task_data_is_blind() -> None:
    content = {**CONTENT, "label": 1, "gold": 1, "score": 4.9, "source_id": "SICK-10"}
    data = TYPE.ls_task_data("hume-7f3a", content)
    assert data == {"hume_ref": "hume-7f3a", **CONTENT}
    assert TYPE.ls_item_ids(content) is None
    with pytest.raises(InvalidContentError):
        TYPE.ls_task_data("hume-1", {"sentence1": "only one"})
    with pytest.raises(InvalidContentError):
        TYPE.ls_task_data("", CONTENT)


@pytest.mark.parametrize("answer", [0, 1])
def test_answer_result_round_trip(answer: int) -> None:
    kw = TYPE.ls_translation_kwargs({"pair_labels": {"1": "Duplicate", "0": "Not"}}, CONTENT)
    result = TYPE.ls_answer_to_result(answer, **kw)
    assert result == [
        {
            "id": "hume-decision",
            "from_name": "decision",
            "to_name": "sentence1",
            "type": "choices",
            "value": {"choices": [str(answer)]},
        }
    ]
    assert kw == {"labels": {1: "Duplicate", 0: "Not"}, "n_groups": None, "item_ids": None}
    assert TYPE.ls_result_to_answer(result, **kw) == answer
    assert TYPE.ls_answer_to_result(np.int64(answer)) == result


@pytest.mark.parametrize("answer", [True, False, 2, -1, "1", 1.0, None])
def test_answer_to_result_refuses_non_labels(answer: Any) -> None:
    with pytest.raises(InvalidAnswerError):
        TYPE.ls_answer_to_result(answer)


def _result(**over: Any) -> list[dict[str, Any]]:
    item = {
        "from_name": "decision",
        "to_name": "sentence1",
        "type": "choices",
        "value": {"choices": ["1"]},
    }
    return [{**item, **over}]


@pytest.mark.parametrize(
    "result",
    [
        [],
        _result(value={"choices": ["1", "0"]}),
        _result(value={"choices": []}),
        _result(value={"choices": ["Yes"]}),  # the shown text, not the stored alias
        _result(value={"choices": ["2"]}),
        _result(from_name="similarity"),
        _result(to_name="sentence2"),
        _result(type="textarea"),
        _result() + _result(),
    ],
)
def test_result_to_answer_refuses_what_does_not_fit(result: Any) -> None:
    with pytest.raises(InvalidResultError):
        TYPE.ls_result_to_answer(result)


def test_embedding_answers_are_shown_as_their_decision() -> None:
    # the model concern stores an embedding model's 1/0 decision (its cosine is the score)
    assert TYPE.ls_shown_embedding_answer(1, rule="gap") == 1
    assert TYPE.ls_shown_embedding_answer(0, rule="top1") == 0
    for raw in (0.83, True, None):
        with pytest.raises(InvalidAnswerError, match="decision"):
            TYPE.ls_shown_embedding_answer(raw, rule="gap")
    assert TYPE.ls_shown_item_ids(None, 1) is None


@pytest.mark.labelstudio
@pytest.mark.parametrize("answer", [1, 0])
def test_config_accepted_and_annotation_round_trips_on_a_real_server(ls_server, answer) -> None:
    client = ls_server.client()
    config = {"pair_labels": {"1": "Entails", "0": "Does not entail"}}
    xml = TYPE.ls_subset_config(
        {**config, "instructions": lsc_pair.ENTAILMENT_INSTRUCTIONS}, language="en"
    )
    project = client.create_project(f"pair-{uuid.uuid4().hex[:8]}", xml, maximum_annotations=2)
    data = TYPE.ls_task_data("hume-pair-1", {**CONTENT, "label": answer})
    [task_id] = client.import_tasks(project["id"], [{"data": data}])
    kw = TYPE.ls_translation_kwargs(config, CONTENT)
    client.create_annotation(task_id, TYPE.ls_answer_to_result(answer, **kw), lead_time=4.0)
    [task] = client.list_tasks(project["id"])
    assert task["data"] == data and "label" not in task["data"]
    [annotation] = task["annotations"]
    assert TYPE.ls_result_to_answer(annotation["result"], **kw) == answer
    client.delete_project(project["id"])
