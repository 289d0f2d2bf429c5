"""Stored answers as Label Studio predictions, through each type's RevealedInterface.

Every registered type implements the protocol (nothing left abstract); embedding answers are
shown in the interface's shape by the type's own rule, other answers unchanged; and a prediction
built through the type object has the same bytes as before the protocol existed.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from typing import Any

import pytest

from hume_sync import task_types
from label_studio_configs.errors import InvalidAnswerError
from ml_backend.reveal import RevealedInterface, display_answer, ls_prediction

TYPES = task_types.names()
EMB, LLM = "emb:some/model", "llm:test"
LABELS = ["joy", "anger", "fear & <x>", 'say "hi"']
CONFIG: dict[str, dict[str, Any]] = {
    "classification": {"label_set": LABELS},
    "clustering": {"label_set": ["cs", "bio", "phys"], "n_groups": 3},
    "reranking": {},
    "sts": {},
}
CONTENT: dict[str, dict[str, Any]] = {
    "classification": {"text": "The match ended.", "label": "joy"},
    "clustering": {
        "items": [{"id": f"t{n}", "text": f"text number {n}", "label": "g"} for n in range(6)],
        "gold": {},
    },
    "reranking": {
        "query": "what is a bomb",
        "candidates": [{"id": f"d{n}", "text": f"passage {n}"} for n in range(7)],
    },
    "sts": {"sentence1": "A cat sits.", "sentence2": "A cat.", "score": 4.2},
}
GROUPS = {f"t{n}": f"group_{n % 3 + 1}" for n in range(6)}
SCORES = {f"d{n}": 0.1 * ((n * 3) % 7) for n in range(7)}
# (type, model version, stored answer, score, rule) -> sha256 (first 16 hex digits) of the
# prediction's canonical JSON as ml_backend.reveal built it from the type name (commit fed7b48).
PINNED = [
    ("classification", LLM, "joy", 0.5, "gap", "507c7738b6fcf345"),
    ("classification", EMB, "joy", 0.25, "gap", "acbc445f492fb2ed"),
    ("clustering", EMB, GROUPS, 0.25, "gap", "822c76aec8292ada"),
    ("clustering", LLM, GROUPS, 0.5, "gap", "430ef0a3da27a6a2"),
    ("reranking", EMB, SCORES, 0.25, "gap", "f24e34c9c9abc05f"),
    ("reranking", EMB, SCORES, None, "top1", "336163498a656dc6"),
    ("reranking", LLM, {f"d{n}": int(n == 2) for n in range(7)}, 0.5, "gap", "eeb76591a6fc44a1"),
    ("sts", EMB, 0.93, None, "gap", "5cad2e1452ce87f1"),
    ("sts", LLM, 3, 0.5, "gap", "17e36af37e72c29b"),
]


@pytest.mark.parametrize("name", TYPES)
def test_every_type_implements_the_reveal_protocol(name: str) -> None:
    task = task_types.get(name)
    assert isinstance(task, RevealedInterface)
    left = {
        m
        for m in RevealedInterface.__abstractmethods__
        if getattr(getattr(type(task), m), "__isabstractmethod__", False)
    }
    assert not left, f"{name} leaves {sorted(left)} abstract"
    assert not inspect.isabstract(type(task))


@pytest.mark.parametrize(("name", "version", "answer", "score", "rule", "digest"), PINNED)
def test_predictions_keep_their_bytes(
    name: str, version: str, answer: Any, score: float | None, rule: str, digest: str
) -> None:
    pred = ls_prediction(
        task_types.get(name), version, answer, score, config=CONFIG[name], content=CONTENT[name],
        rule=rule,
    )  # fmt: skip
    text = json.dumps(pred, sort_keys=True, ensure_ascii=False)
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == digest


def test_embedding_answers_are_shown_by_each_types_rule() -> None:
    shown = {
        name: display_answer(task_types.get(name), EMB, answer)
        for name, answer in (
            ("classification", "anger"),
            ("clustering", GROUPS),
            ("reranking", {"a": 0.9, "b": 0.85, "c": 0.2}),
            ("sts", 0.61),
        )
    }
    assert shown == {
        "classification": "anger",
        "clustering": GROUPS,
        "reranking": {"a": 1, "b": 1, "c": 0},
        "sts": 3,
    }
    # answers of other raters already have the interface's shape
    assert display_answer(task_types.get("sts"), LLM, 0.61) == 0.61


def test_reranking_lists_candidates_best_first_and_refuses_non_mappings() -> None:
    reranking = task_types.get("reranking")
    pred = ls_prediction(reranking, EMB, SCORES, None, config={}, content=CONTENT["reranking"])
    ranker = pred["result"][0]["value"]["ranker"]
    listed = ranker["relevant"] + ranker["not_relevant"]
    assert [SCORES[c] for c in listed] == sorted(SCORES.values(), reverse=True)
    assert ranker["relevant"] and ranker["not_relevant"]
    with pytest.raises(InvalidAnswerError, match="must be a mapping"):
        ls_prediction(reranking, EMB, [0.1], None, config={}, content=CONTENT["reranking"])
    with pytest.raises(ValueError, match="not finite"):
        display_answer(task_types.get("sts"), EMB, float("nan"))
