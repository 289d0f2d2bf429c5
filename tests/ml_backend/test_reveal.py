"""Stored answers as Label Studio predictions, through each type's RevealedInterface.

Every registered type implements the protocol (nothing left abstract); embedding answers are
shown in the interface's shape by the type's own rule, other answers unchanged; and a prediction
built through the type object has the same bytes as before the protocol existed.
"""

from __future__ import annotations

import hashlib
import inspect
import json

import pytest

from hume_sync import task_types
from label_studio_configs.errors import InvalidAnswerError
from ml_backend.reveal import RevealedInterface, display_answer, ls_prediction
from tests.task_type_examples import EMB, LLM, examples
from tests.task_type_examples.reranking import SCORES

TYPES = task_types.names()
# Per type (tests/task_type_examples/<type>.py): REVEAL_PINNED, (model version, stored answer,
# score, rule) -> sha256 (first 16 hex digits) of the prediction's canonical JSON for the type's
# CONFIG and CONTENT; for the first four types as ml_backend.reveal built it from the type name
# (commit fed7b48). REVEAL_SHOWN: an embedding model's stored answer and how it is shown.


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


@pytest.mark.parametrize("name", TYPES)
def test_predictions_keep_their_bytes(name: str) -> None:
    ex = examples(name)
    versions = {version for version, *_ in ex.REVEAL_PINNED}
    assert EMB in versions and LLM in versions  # both routes pinned
    got, pinned = [], []
    for version, answer, score, rule, digest in ex.REVEAL_PINNED:
        pred = ls_prediction(
            task_types.get(name), version, answer, score, config=ex.CONFIG, content=ex.CONTENT,
            rule=rule,
        )  # fmt: skip
        text = json.dumps(pred, sort_keys=True, ensure_ascii=False)
        got.append((version, score, rule, hashlib.sha256(text.encode()).hexdigest()[:16]))
        pinned.append((version, score, rule, digest))
    assert got == pinned


#: The digests REVEAL_PINNED held before issue 13, when a prediction carried its stored score
#: (Label Studio printed a classification vote share as "100.00 %"): the pinned bytes now differ
#: from them by the ``score`` key only.
SCORED_BEFORE_ISSUE_13 = {
    ("classification", LLM, 0.5): "507c7738b6fcf345",
    ("classification", EMB, 0.25): "acbc445f492fb2ed",
    ("clustering", EMB, 0.25): "822c76aec8292ada",
    ("clustering", LLM, 0.5): "430ef0a3da27a6a2",
    ("reranking", EMB, 0.25): "f24e34c9c9abc05f",
    ("reranking", LLM, 0.5): "eeb76591a6fc44a1",
    ("sts", LLM, 0.5): "17e36af37e72c29b",
    ("pair_classification", EMB, 0.83): "8fc5734355f0dc80",
    ("pair_classification", LLM, 0.5): "0fe2427ac9568722",
}


@pytest.mark.parametrize("name", TYPES)
def test_predictions_show_no_score_that_reads_like_accuracy(name: str) -> None:
    """No type gives a revealed prediction a score (a vote share or a cosine is not the
    percentage Label Studio prints); with the stored score put back, each prediction has the
    bytes pinned before that change."""
    ex = examples(name)
    task = task_types.get(name)
    for version, answer, score, rule, _ in ex.REVEAL_PINNED:
        assert task.ls_reveal_score(version, score) is None
        pred = ls_prediction(
            task, version, answer, score, config=ex.CONFIG, content=ex.CONTENT, rule=rule
        )
        assert "score" not in pred
        if score is None:
            continue
        text = json.dumps({**pred, "score": float(score)}, sort_keys=True, ensure_ascii=False)
        before = SCORED_BEFORE_ISSUE_13[name, version, score]
        assert hashlib.sha256(text.encode()).hexdigest()[:16] == before


@pytest.mark.parametrize("name", TYPES)
def test_embedding_answers_are_shown_by_each_types_rule(name: str) -> None:
    stored, shown = examples(name).REVEAL_SHOWN
    assert display_answer(task_types.get(name), EMB, stored) == shown
    # answers of other raters already have the interface's shape
    assert display_answer(task_types.get(name), LLM, stored) is stored


def test_reranking_lists_candidates_best_first_and_refuses_non_mappings() -> None:
    reranking = task_types.get("reranking")
    content = examples("reranking").CONTENT
    pred = ls_prediction(reranking, EMB, SCORES, None, config={}, content=content)
    ranker = pred["result"][0]["value"]["ranker"]
    listed = ranker["relevant"] + ranker["not_relevant"]
    assert [SCORES[c] for c in listed] == sorted(SCORES.values(), reverse=True)
    assert ranker["relevant"] and ranker["not_relevant"]
    with pytest.raises(InvalidAnswerError, match="must be a mapping"):
        ls_prediction(reranking, EMB, [0.1], None, config={}, content=content)
    with pytest.raises(ValueError, match="not finite"):
        display_answer(task_types.get("sts"), EMB, float("nan"))
