"""The people's p-MRR of instruction reranking: panels by mean mark, pairs, the interval.

Worked by hand on one query (candidates a, b, c; the changed instruction rules b out).
"""

from __future__ import annotations

import pytest

from scoring.aggregation.instruction_reranking import (
    changed_documents,
    human_p_mrr,
    p_mrr_interval,
    pair_p_mrrs,
)

OG_GOLD = {"q1": {"a": 1, "b": 1, "c": 0}}
CHANGED_GOLD = {"q1": {"a": 1, "b": 0, "c": 0}}
OG = {"x": {"q1": {"a": 1, "b": 1, "c": 0}}, "y": {"q1": {"a": 1, "b": 0, "c": 0}}}
CHANGED = {"z": {"q1": {"a": 1, "b": 0, "c": 0}}}


def test_changed_documents_are_relevant_under_the_original_only() -> None:
    assert changed_documents(OG_GOLD, CHANGED_GOLD) == {"q1": ["b"]}


def test_the_panels_p_mrr_by_hand() -> None:
    # og panel means: a 1, b 0.5, c 0 -> b ranks 2. changed panel: a 1, b 0, c 0 -> b ranks 2
    # or 3 (tied with c). In expectation: (0 + (1 - 2/3)) / 2 = 1/6; mteb's rule puts the
    # larger id first among ties: c before b, b ranks 3: 1 - 2/3 = 1/3.
    expected = human_p_mrr(OG, CHANGED, OG_GOLD, CHANGED_GOLD)
    trec = human_p_mrr(OG, CHANGED, OG_GOLD, CHANGED_GOLD, ties="trec_eval")
    assert expected.value == pytest.approx(1 / 6)
    assert trec.value == pytest.approx(1 / 3)
    assert expected.method == "human:mean_marks_per_arm+p-MRR(ties=expected_ties)"


def test_each_pair_of_people_by_hand() -> None:
    # x ties a and b (ranks 1-2), z ties b and c (ranks 2-3): the mean of 1 - 1/2, 1 - 1/3,
    # 0 and 1 - 2/3 is 0.375. y and z rank b alike (2-3 both): (0 + 1/3 - 1/3 + 0) / 4 = 0.
    pairs = pair_p_mrrs(OG, CHANGED, OG_GOLD, CHANGED_GOLD)
    assert pairs == {("x", "z"): pytest.approx(0.375), ("y", "z"): pytest.approx(0.0)}


def test_a_query_no_pair_shares_is_left_out() -> None:
    og = {"x": {"q1": None}}
    assert pair_p_mrrs(og, CHANGED, OG_GOLD, CHANGED_GOLD) == {}


def test_the_interval_is_seeded_and_holds_the_value() -> None:
    from scoring.records import Score

    per_query = {f"q{k}": v for k, v in enumerate([0.5, -0.2, 0.1, 0.9, 0.0, 0.3])}
    score = Score(
        value=sum(per_query.values()) / 6, method="p-MRR", details={"per_query": per_query}
    )
    a, b = p_mrr_interval(score, seed=3), p_mrr_interval(score, seed=3)
    assert (a.low, a.high) == (b.low, b.high)
    assert a.low < score.value < a.high
    assert a.low >= -0.2 and a.high <= 0.9
