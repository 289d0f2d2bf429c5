"""Bitext mining's model concern: which texts go to which encode call (mteb's two calls over
sentences and their translations, then the other candidates), the stored answer (the candidate
chosen, its similarity as the item score), and the shapes it refuses. The numbers themselves are
mteb's: ``tests/ml_backend/test_bitext_mining_parity.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hume_sync.task_types.bitext_mining import BitextMining
from ml_backend.model_procedure import PredictError, SubsetJob

TYPE = BitextMining()

CONTENTS = (
    {
        "sentence": "a cat",
        "candidates": [{"id": "t1", "text": "un chat"}, {"id": "t2", "text": "la pluie"}],
    },
    {
        "sentence": "the rain",
        "candidates": [{"id": "t3", "text": "un chien"}, {"id": "t2", "text": "la pluie"}],
    },
    {
        "sentence": "a dog",
        "candidates": [{"id": "t1", "text": "un chat"}, {"id": "t3", "text": "un chien"}],
    },
)
#: 2-d vectors: "a dog" points at "un chat" (a wrong choice), the others at their translation.
TABLE = {
    "a cat": [1.0, 0.0],
    "un chat": [0.9, 0.1],
    "the rain": [0.0, 1.0],
    "la pluie": [0.1, 0.9],
    "a dog": [0.8, 0.3],
    "un chien": [0.5, 0.5],
}


def job(gold: tuple[Any, ...] | None = ("t1", "t2", "t3"), **changes: Any) -> SubsetJob:
    fields = {"contents": CONTENTS, "gold": gold, **changes}
    return SubsetJob(
        key="flores/eng-fra",
        task=TYPE,
        task_name="flores",
        hume_ids=tuple(f"h{n}" for n in range(len(fields["contents"]))),
        **fields,
    )


def embeddings(texts: Any, role: Any = None) -> np.ndarray:
    assert role is None  # mteb embeds both sides without a query/passage role
    return np.array([TABLE[t] for t in texts], dtype=np.float32)


def test_encode_calls_are_mteb_s_two_then_the_other_candidates() -> None:
    groups = TYPE.model_encode_groups(job())
    assert [g.texts for g in groups] == [
        ("a cat", "the rain", "a dog"),
        ("un chat", "la pluie", "un chien"),
    ]
    no_gold = TYPE.model_encode_groups(job(gold=None))
    assert [g.texts for g in no_gold] == [
        ("a cat", "the rain", "a dog"),
        ("un chat", "la pluie", "un chien"),
    ]
    assert all(g.role is None for g in groups)


def test_answers_are_the_choices_and_both_scores_are_kept() -> None:
    got = TYPE.model_answers(job(), embeddings, "cosine")
    assert got.answers == ["t1", "t2", "t1"]  # "a dog" picks "un chat"
    assert got.item_scores[0] == pytest.approx(0.9 / np.hypot(0.9, 0.1), abs=1e-6)
    assert got.main_score_name == "f1" and got.scores is not None
    # full set: a dog's nearest of all three translations is "un chat" too (2/3 right)
    assert got.scores["accuracy"] == pytest.approx(2 / 3)
    # weighted F1 by hand: labels t1 (P 1/2, R 1), t2 (1, 1), t3 (0): (2/3 + 1 + 0) / 3
    assert got.scores["candidates_f1"] == pytest.approx((2 / 3 + 1) / 3)
    without = TYPE.model_answers(job(gold=None), embeddings, "cosine")
    assert without.answers == got.answers and without.scores is None


def test_a_gold_that_is_no_candidate_names_the_instance() -> None:
    with pytest.raises(PredictError, match="gold of 'h1' is not a candidate"):
        TYPE.model_encode_groups(job(gold=("t1", "t9", "t3")))
    bad = ({"candidates": CONTENTS[0]["candidates"]},)
    with pytest.raises(PredictError, match="'h0' has no 'sentence'"):
        TYPE.model_encode_groups(job(contents=bad, gold=("t1",)))
