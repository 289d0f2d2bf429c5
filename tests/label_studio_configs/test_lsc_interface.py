"""Every registered task type implements the Label Studio interface protocol (TaskInterface).

The type object is what callers hold (``hume_sync.task_types.get``); these tests check that no
protocol method is left abstract, that each type states its own rules (labels shown, item ids)
and that rendering through the type object gives the same bytes as before the protocol existed.
"""

from __future__ import annotations

import hashlib
import inspect

import pytest

from hume_sync import task_types
from label_studio_configs.errors import InvalidContentError
from label_studio_configs.interface import TaskInterface
from tests.task_type_examples import examples
from tests.task_type_examples.classification import LABELS as CLASSIFICATION_LABELS

TYPES = task_types.names()
# Per type (tests/task_type_examples/<type>.py): two stored configs (CONFIG, CONFIG_ALT; a
# clustering label set holds gold labels), an instance (CONTENT), what the type shows and needs
# of them (LS_LABELS, LS_TRANSLATION_KWARGS, LS_ANSWER) and LS_RENDERED, the sha256 (first 16 hex
# digits) of the XML rendered for a stored config; for the first four types the XML that setup
# rendered before the type objects existed (label_studio_configs.get(type).render_config at
# commit fed7b48).


@pytest.mark.parametrize("name", TYPES)
def test_the_fixtures_cover_every_registered_type(name: str) -> None:
    ex = examples(name)
    assert isinstance(ex.CONFIG, dict) and isinstance(ex.CONFIG_ALT, dict)
    assert isinstance(ex.CONTENT, dict) and ex.CONTENT


@pytest.mark.parametrize("name", TYPES)
def test_every_type_implements_the_whole_protocol(name: str) -> None:
    task = task_types.get(name)
    assert isinstance(task, TaskInterface)
    left = {
        m
        for m in TaskInterface.__abstractmethods__
        if getattr(getattr(type(task), m), "__isabstractmethod__", False)
    }
    assert not left, f"{name} leaves {sorted(left)} abstract"
    mixin = next(c for c in type(task).__mro__ if c.__name__.endswith("Interface"))
    assert issubclass(mixin, TaskInterface) and not inspect.isabstract(mixin)
    assert name == task.ls_module.TASK_TYPE


@pytest.mark.parametrize("name", TYPES)
def test_rendering_a_stored_config_keeps_its_bytes(name: str) -> None:
    ex = examples(name)
    assert {index for index, _ in ex.LS_RENDERED} == {0, 1}  # both configs pinned
    got = {
        (index, language): hashlib.sha256(
            task_types.get(name)
            .ls_subset_config((ex.CONFIG, ex.CONFIG_ALT)[index], language=language)
            .encode()
        ).hexdigest()[:16]
        for index, language in ex.LS_RENDERED
    }
    assert got == ex.LS_RENDERED


@pytest.mark.parametrize("name", TYPES)
def test_each_type_shows_the_labels_it_states(name: str) -> None:
    assert task_types.get(name).ls_labels(examples(name).CONFIG) == examples(name).LS_LABELS


def test_only_classification_shows_its_stored_label_set() -> None:
    """A clustering subset's stored label set is gold: it must never reach the interface."""
    shown = {name: task_types.get(name).ls_labels(examples(name).CONFIG) for name in TYPES}
    assert shown["classification"] == CLASSIFICATION_LABELS
    assert {shown[n] for n in ("clustering", "reranking", "sts")} == {None}
    clustering = examples("clustering").CONFIG
    xml = task_types.get("clustering").ls_subset_config(clustering, language="en")
    assert {"cs", "bio", "phys"} <= set(clustering["label_set"])
    assert not {"cs", "bio", "phys"} & set(xml.replace('"', " ").split())


@pytest.mark.parametrize("name", TYPES)
def test_translation_kwargs_name_the_items_a_result_must_cover(name: str) -> None:
    ex = examples(name)
    kwargs = task_types.get(name).ls_translation_kwargs(ex.CONFIG, ex.CONTENT)
    assert kwargs == ex.LS_TRANSLATION_KWARGS


def test_a_reranking_instance_needs_candidates() -> None:
    with pytest.raises(InvalidContentError):
        task_types.get("reranking").ls_item_ids({"query": "q", "candidates": []})


@pytest.mark.parametrize("name", TYPES)
def test_task_data_and_result_round_trip_through_the_type_object(name: str) -> None:
    task, ex = task_types.get(name), examples(name)
    config, content = ex.CONFIG, ex.CONTENT
    data = task.ls_task_data("ref-1", content)
    assert data == task.ls_module.task_data("ref-1", content)
    assert data["hume_ref"] == "ref-1" and "label" not in data and "score" not in data
    kwargs = task.ls_translation_kwargs(config, content)
    answer = ex.LS_ANSWER
    result = task.ls_answer_to_result(answer, **kwargs)
    assert task.ls_result_to_answer(result, **kwargs) == answer


@pytest.mark.parametrize("name", TYPES)
def test_the_position_is_one_more_field_and_says_task_n_of_n(name: str) -> None:
    task, content = task_types.get(name), examples(name).CONTENT
    plain = task.ls_task_data("ref-1", content)
    placed = task.ls_task_data("ref-1", content, position=(3, 9))
    assert "hume_position" not in plain
    assert placed == {**plain, "hume_position": "Task 3 of 9"}
    assert task.ls_task_data("ref-1", content, position=(1, 1))["hume_position"] == "Task 1 of 1"


@pytest.mark.parametrize("position", [(0, 9), (10, 9), (1, 0), (True, 2), (1.0, 2), (1,), "3/9"])
def test_a_position_outside_its_subset_is_refused(position) -> None:
    with pytest.raises(InvalidContentError, match="position must be"):
        task_types.get("classification").ls_task_data("r", {"text": "t"}, position=position)
