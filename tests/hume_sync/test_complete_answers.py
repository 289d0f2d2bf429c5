"""Complete answers only: `pull.translate` (what `pull` and `status` classify with) calls an
incomplete or foreign answer ``invalid``, for every task type.

The Ranker results below are the shapes Label Studio 1.23.2 stores: its Ranker tag, on submit,
puts every item it still holds in the list's own column ``_`` (no default bucket: clustering) or
in the default bucket (reranking), see ``Ranker.jsx`` ``beforeSend``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from hume_sync.store import InstanceRow, SubsetRow
from hume_sync.workflow.pull import InvalidAnnotation, translate

LABELS = ["health", "politics", "sports"]
ITEMS = ["t1", "t2", "t3", "t4"]
CANDIDATES = ["c1", "c2", "c3"]


def subset(task_type: str) -> SubsetRow:
    config: dict[str, Any] = {
        "classification": {"label_set": LABELS},
        "clustering": {"label_set": ["gold-a", "gold-b"], "n_groups": 2},
        "reranking": {},
        "sts": {},
    }[task_type]
    return SubsetRow("T/s", "T", "s", task_type, "eng-Latn", config, None, 2)


def instance(task_type: str) -> InstanceRow:
    content: dict[str, Any] = {
        "classification": {"text": "a text"},
        "clustering": {"items": [{"id": i, "text": f"text {i}"} for i in ITEMS]},
        "reranking": {
            "query": "q",
            "candidates": [{"id": c, "text": f"doc {c}"} for c in CANDIDATES],
        },
        "sts": {"sentence1": "one", "sentence2": "two"},
    }[task_type]
    return InstanceRow("T/s/1", "T/s", "1", 0, content)


def ranker(from_name: str, to_name: str, buckets: dict[str, list[str]]) -> list[dict]:
    value = {"ranker": buckets}
    return [{"from_name": from_name, "to_name": to_name, "type": "ranker", "value": value}]


def choices(from_name: str, to_name: str, picked: list[str]) -> list[dict]:
    value = {"choices": picked}
    return [{"from_name": from_name, "to_name": to_name, "type": "choices", "value": value}]


def groups(buckets: dict[str, list[str]]) -> list[dict]:
    return ranker("groups", "items", buckets)


def relevance(buckets: dict[str, list[str]]) -> list[dict]:
    return ranker("relevance", "candidates", buckets)


def run(task_type: str, result: list[dict], **extra: Any) -> tuple[Any, str, str | None]:
    annotation = {"id": 1, "result": result, "was_cancelled": False, **extra}
    return translate(subset(task_type), instance(task_type), annotation)


def test_a_complete_clustering_answer_is_valid():
    answer, status, error = run(
        "clustering", groups({"group_1": ["t1", "t3"], "group_2": ["t2", "t4"], "_": []})
    )
    assert (status, error) == ("valid", None)
    assert answer == {"t1": "group_1", "t2": "group_2", "t3": "group_1", "t4": "group_2"}


@pytest.mark.parametrize(
    ("buckets", "message"),
    [
        # Submitted untouched: Label Studio puts every text in the unsorted column.
        ({"_": ITEMS, "group_1": [], "group_2": []}, r"4 item\(s\) left unsorted"),
        # Two of four sorted (the "5 of 9 left unsorted").
        ({"_": ["t2", "t4"], "group_1": ["t1"], "group_2": ["t3"]}, r"2 item\(s\) left unsorted"),
        # A result that simply omits texts (written through the API).
        ({"group_1": ["t1"], "group_2": ["t3"]}, r"2 item\(s\) missing from the result"),
        ({"group_1": ["t1", "t2", "zz"], "group_2": ["t3", "t4"]}, "unknown item id 'zz'"),
        ({"group_1": ["t1", "t2"], "group_2": ["t2", "t3", "t4"]}, "'t2' is in two buckets"),
        ({"group_1": ["t1", "t2"], "group_9": ["t3", "t4"]}, "unknown bucket 'group_9'"),
    ],
)
def test_an_incomplete_or_foreign_clustering_answer_is_invalid(buckets, message):
    answer, status, error = run("clustering", groups(buckets))
    assert (answer, status) == (None, "invalid")
    assert error is not None and re.search(message, error), error


def test_an_untouched_reranking_submission_places_every_candidate():
    # The default bucket ("Not relevant") holds every candidate that was not moved.
    answer, status, _ = run("reranking", relevance({"relevant": [], "not_relevant": CANDIDATES}))
    assert (answer, status) == ({"c1": 0, "c2": 0, "c3": 0}, "valid")


@pytest.mark.parametrize(
    ("buckets", "message"),
    [
        ({"relevant": ["c1"], "not_relevant": ["c2"]}, r"1 candidate\(s\) missing.*'c3'"),
        ({"relevant": ["c1", "c9"], "not_relevant": ["c2", "c3"]}, "unknown candidate id 'c9'"),
        ({"relevant": [], "not_relevant": ["c2", "c3"], "_": ["c1"]}, "left unsorted.*'c1'"),
    ],
)
def test_a_reranking_answer_that_misses_a_candidate_is_invalid(buckets, message):
    answer, status, error = run("reranking", relevance(buckets))
    assert (answer, status) == (None, "invalid")
    assert error is not None and re.search(message, error), error


@pytest.mark.parametrize(
    ("task_type", "result", "message"),
    [
        ("classification", [], "result is empty"),
        ("classification", choices("label", "text", []), "has no choice"),
        ("classification", choices("label", "text", ["health", "sports"]), "single choice"),
        ("classification", choices("label", "text", ["cooking"]), "unknown choice 'cooking'"),
        ("sts", [], "result is empty"),
        ("sts", choices("similarity", "sentence1", []), "needs exactly one level, got 0"),
        ("sts", choices("similarity", "sentence1", ["7"]), "unknown level '7'"),
        ("clustering", [], "result is empty"),
        ("reranking", [], "result is empty"),
    ],
)
def test_no_choice_or_an_unknown_one_is_invalid(task_type, result, message):
    answer, status, error = run(task_type, result)
    assert (answer, status) == (None, "invalid")
    assert error is not None and message in error


def test_valid_choices_and_skips():
    assert run("classification", choices("label", "text", ["sports"]))[:2] == ("sports", "valid")
    assert run("sts", choices("similarity", "sentence1", ["0"]))[:2] == (0, "valid")
    assert run("clustering", [], was_cancelled=True) == (None, "cancelled", None)


def test_an_invalid_answer_names_the_person_and_the_page_that_fixes_it():
    problem = InvalidAnnotation(
        "SIB200Clustering/default", 3, 10, 55, "ls-user-2", "2 item(s) left unsorted"
    )
    assert str(problem) == (
        "SIB200Clustering/default: task 10, annotation 55 by ls-user-2: 2 item(s) left unsorted"
    )
    named = InvalidAnnotation(
        *("SIB200Clustering/default", 3, 10, 55, "ls-user-2", "2 item(s) left unsorted"),
        email="anna@example.org",
        url="http://ls:8080/projects/3/data?task=10",
    )
    assert str(named) == (
        "SIB200Clustering/default: task 10, annotation 55 by anna@example.org (ls-user-2): "
        "2 item(s) left unsorted; fix it at http://ls:8080/projects/3/data?task=10"
    )
