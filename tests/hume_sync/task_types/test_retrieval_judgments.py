"""The study's judgments as TREC qrels, missing judgments and rescored models (pure parts)."""

from __future__ import annotations

import pytrec_eval

from hume_sync.task_types.retrieval.judgments import (
    aggregate_grades,
    augmented_qrels,
    missing_judgments,
    trec_qrels,
)


def test_trec_qrels_is_the_format_pytrec_eval_reads() -> None:
    grades = {"q2": {"d1": 0}, "q1": {"d9": 2, "d10": 1}}
    text = trec_qrels(grades)
    assert text == "q1 0 d10 1\nq1 0 d9 2\nq2 0 d1 0\n"
    parsed = pytrec_eval.parse_qrel(text.splitlines())
    assert parsed == {"q1": {"d10": 1, "d9": 2}, "q2": {"d1": 0}}


def test_the_aggregate_is_the_lower_median() -> None:
    per = {
        "a": {"q": {"x": 2, "y": 0, "z": 1}},
        "b": {"q": {"x": 1, "y": 2, "z": 1}},
        "c": {"q": {"x": 2, "y": 0}},
    }
    # x: 2,1,2 -> 2; y: 0,2,0 -> 0; z: 1,1 -> 1 (two votes: the lower middle)
    assert aggregate_grades(per) == {"q": {"x": 2, "y": 0, "z": 1}}
    assert aggregate_grades({"a": {"q": {"x": 0}}, "b": {"q": {"x": 2}}}) == {"q": {"x": 0}}


def test_missing_judgments_are_relevant_to_people_and_not_to_qrels() -> None:
    qrels = {"q1": {"a": 2, "b": 0}, "q2": {"c": 1}}
    humans = {"q1": {"a": 2, "b": 1, "u": 2, "v": 0}, "q2": {"c": 1, "w": 0}}
    assert missing_judgments(qrels, humans) == {
        "q1": {"unjudged": ["u"], "judged_not_relevant": ["b"]}
    }


def test_qrels_win_where_they_judge_and_people_fill_the_rest() -> None:
    qrels = {"q1": {"a": 2, "b": 0}}
    humans = {"q1": {"a": 0, "b": 1, "u": 2}}
    assert augmented_qrels(qrels, humans) == {"q1": {"a": 2, "b": 0, "u": 2}}
