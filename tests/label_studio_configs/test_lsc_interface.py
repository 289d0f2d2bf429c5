"""Every registered task type implements the Label Studio interface protocol (TaskInterface).

The type object is what callers hold (``hume_sync.task_types.get``); these tests check that no
protocol method is left abstract, that each type states its own rules (labels shown, item ids)
and that rendering through the type object gives the same bytes as before the protocol existed.
"""

from __future__ import annotations

import hashlib
import inspect
from typing import Any

import pytest

from hume_sync import task_types
from label_studio_configs.errors import InvalidContentError
from label_studio_configs.interface import TaskInterface

TYPES = task_types.names()
LABELS = ["joy", "anger", "fear & <x>", 'say "hi"']
ITEMS = [{"id": f"t{n}", "text": f"text number {n}", "label": "g"} for n in range(6)]
CANDIDATES = [{"id": f"d{n}", "text": f"passage {n}"} for n in range(7)]
# Two stored configs per type; a clustering label set holds gold labels.
CONFIGS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "classification": (
        {"label_set": LABELS},
        {"label_set": LABELS, "instructions": "Pick one $text <b>", "n_groups": 4},
    ),
    "clustering": (
        {"label_set": ["cs", "bio", "phys"], "n_groups": 3},
        {"label_set": ["cs"], "n_groups": 2, "instructions": "Sort into {n_groups} piles"},
    ),
    "reranking": ({}, {"instructions": "Mark $relevant"}),
    "sts": ({}, {"instructions": "Rate 0-5"}),
}
CONTENT: dict[str, dict[str, Any]] = {
    "classification": {"text": "The match ended.", "label": "joy"},
    "clustering": {"items": ITEMS, "gold": {}},
    "reranking": {"query": "what is a bomb", "candidates": CANDIDATES},
    "sts": {"sentence1": "A cat sits.", "sentence2": "A cat.", "score": 4.2},
}
# sha256 (first 16 hex digits) of the XML that setup rendered for these stored configs before
# the type objects existed (label_studio_configs.get(type).render_config at commit fed7b48).
RENDERED = {
    ("classification", 0, "en"): "2e1814d213e8990d",
    ("classification", 1, "arb_Arab"): "0ebeadf770713661",
    ("clustering", 0, "en"): "3919217d254152b0",
    ("clustering", 1, "arb_Arab"): "15d83556de11457b",
    ("reranking", 0, "en"): "e5e2a2f19b6bb4ac",
    ("reranking", 1, "arb_Arab"): "6fc782da28826f46",
    ("sts", 0, "en"): "ca1ffd92521001e1",
    ("sts", 1, "arb_Arab"): "27ba7253e2fe56ed",
}


def test_the_fixtures_cover_every_registered_type() -> None:
    assert set(TYPES) == set(CONFIGS) == set(CONTENT)


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


@pytest.mark.parametrize(("name", "index", "language"), sorted(RENDERED))
def test_rendering_a_stored_config_keeps_its_bytes(name: str, index: int, language: str) -> None:
    xml = task_types.get(name).ls_subset_config(CONFIGS[name][index], language=language)
    assert hashlib.sha256(xml.encode()).hexdigest()[:16] == RENDERED[name, index, language]


def test_only_classification_shows_its_stored_label_set() -> None:
    """A clustering subset's stored label set is gold: it must never reach the interface."""
    shown = {name: task_types.get(name).ls_labels(CONFIGS[name][0]) for name in TYPES}
    assert shown == {"classification": LABELS, "clustering": None, "reranking": None, "sts": None}
    xml = task_types.get("clustering").ls_subset_config(CONFIGS["clustering"][0], language="en")
    assert not {"cs", "bio", "phys"} & set(xml.replace('"', " ").split())


def test_translation_kwargs_name_the_items_a_result_must_cover() -> None:
    kwargs = {
        name: task_types.get(name).ls_translation_kwargs(CONFIGS[name][0], CONTENT[name])
        for name in TYPES
    }
    assert kwargs == {
        "classification": {"labels": LABELS, "n_groups": None, "item_ids": None},
        "clustering": {"labels": None, "n_groups": 3, "item_ids": [f"t{n}" for n in range(6)]},
        "reranking": {"labels": None, "n_groups": None, "item_ids": [f"d{n}" for n in range(7)]},
        "sts": {"labels": None, "n_groups": None, "item_ids": None},
    }
    with pytest.raises(InvalidContentError):
        task_types.get("reranking").ls_item_ids({"query": "q", "candidates": []})


@pytest.mark.parametrize("name", TYPES)
def test_task_data_and_result_round_trip_through_the_type_object(name: str) -> None:
    task = task_types.get(name)
    config, content = CONFIGS[name][0], CONTENT[name]
    data = task.ls_task_data("ref-1", content)
    assert data == task.ls_module.task_data("ref-1", content)
    assert data["hume_ref"] == "ref-1" and "label" not in data and "score" not in data
    kwargs = task.ls_translation_kwargs(config, content)
    answer = {
        "classification": "anger",
        "clustering": {f"t{n}": f"group_{n % 3 + 1}" for n in range(6)},
        "reranking": {f"d{n}": int(n < 2) for n in range(7)},
        "sts": 4,
    }[name]
    result = task.ls_answer_to_result(answer, **kwargs)
    assert task.ls_result_to_answer(result, **kwargs) == answer
