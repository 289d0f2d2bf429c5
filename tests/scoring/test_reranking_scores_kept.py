"""Reranking's human score keeps each annotator's query scores for the panel's next call
(scoring.aggregation.reranking._rater_scores, within one subset's evaluation through
scoring.score_memo): the numbers are those computed afresh, plain int marks only, nothing
kept outside that block; and one annotator's
mean over annotators is np.mean's float."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest

from scoring import metrics
from scoring.aggregation import reranking
from scoring.aggregation.common import mean_over_annotators
from scoring.errors import InvalidInputError
from scoring.score_memo import shared_scores


def _study(seed: int, n_queries: int = 12, n_cands: int = 7) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    gold: dict[Hashable, dict[str, int]] = {}
    for q in range(n_queries):
        rel = [int(v) for v in rng.integers(0, 2, n_cands)]
        rel[int(rng.integers(0, n_cands))] = 1
        gold[f"q{q}"] = {f"c{c}": rel[c] for c in range(n_cands)}
    humans = {
        r: {q: {c: int(rng.integers(0, 2)) for c in cands} for q, cands in gold.items()}
        for r in ("a", "b")
    }
    return gold, humans


def _fresh(gold: Any, marks: Any) -> tuple[float, float, float]:
    queries = {q: (list(gold[q].values()), [m[c] for c in gold[q]]) for q, m in marks.items()}
    ap, rr, ndcg = metrics.mean_ranking_scores(queries, "sklearn", k=10, ties="input_order")
    return ap.value, rr.value, ndcg.value


@pytest.fixture
def score_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the annotators' query scores computed (each call's query count)."""
    calls: list[int] = []
    real = metrics.mean_ranking_scores

    def counting(queries: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(queries))
        return real(queries, *args, **kwargs)

    monkeypatch.setattr(metrics, "mean_ranking_scores", counting)
    return calls


def test_alone_each_annotator_gets_the_aggregates_scores_which_are_fresh(
    score_calls: list[int],
) -> None:
    gold, humans = _study(1)
    with shared_scores():
        both = reranking.human_reranking(gold, humans)
        assert len(score_calls) == 2
        for r in humans:
            alone = reranking.human_reranking(gold, {r: humans[r]})
            want = _fresh(gold, humans[r])
            assert (both.per_rater[r], both.details["per_rater_mrr@10"][r]) == want[:2]
            assert (alone.value, alone.details["mrr@10"], alone.details["ndcg@10"]) == want
            assert (
                alone.details["per_rater_per_query_ap"][r]
                == (both.details["per_rater_per_query_ap"][r])
            )
    assert len(score_calls) == 2 + len(humans)  # the fresh ones only: the rest was found


def test_marks_that_are_not_plain_ints_are_not_kept(score_calls: list[int]) -> None:
    gold, humans = _study(2)
    floats = {q: {c: float(v) for c, v in m.items()} for q, m in humans["a"].items()}
    with shared_scores():
        s = reranking.human_reranking(gold, {"a": floats})
        reranking.human_reranking(gold, {"a": floats})
    assert len(score_calls) == 2
    assert s.value == _fresh(gold, humans["a"])[0]


def test_nothing_is_kept_outside_one_block(score_calls: list[int]) -> None:
    gold, humans = _study(5)
    reranking.human_reranking(gold, {"a": humans["a"]})
    reranking.human_reranking(gold, {"a": humans["a"]})
    with shared_scores():
        reranking.human_reranking(gold, {"a": humans["a"]})
    with shared_scores():
        reranking.human_reranking(gold, {"a": humans["a"]})
    assert len(score_calls) == 4


def test_unknown_or_malformed_marks_are_still_named() -> None:
    gold, humans = _study(3)
    bad = {**humans["a"], "q0": {**humans["a"]["q0"], "zz": 1}}
    with pytest.raises(
        InvalidInputError, match=r"answers\['a'\]\['q0'\]: unknown candidates \['zz'\]"
    ):
        reranking.human_reranking(gold, {"a": bad})
    with pytest.raises(InvalidInputError, match=r"answers\['a'\]\['q1'\]: expected a mapping"):
        reranking.human_reranking(gold, {"a": {**humans["a"], "q1": [1, 0]}})
    partial = {**humans["a"], "q2": dict(list(humans["a"]["q2"].items())[:-1])}
    partial["q3"] = {c: None for c in humans["a"]["q3"]}
    s = reranking.human_reranking(gold, {"a": partial})
    assert s.details["per_rater_per_query_ap"]["a"].keys() == set(gold) - {"q2", "q3"}


@pytest.mark.parametrize("value", [0.25, -0.0, 0.0, 1.0, 1 / 3])
def test_one_annotators_mean_is_np_mean(value: float) -> None:
    got = mean_over_annotators({"a": value})
    want = float(np.mean(np.asarray([value])))
    assert np.float64(got).view(np.int64) == np.float64(want).view(np.int64)
    with pytest.raises(InvalidInputError, match="NaN or infinite"):
        mean_over_annotators({"a": float("nan")})


def _consensus_by_votes(answers: Any) -> Any:
    """The general rule: every vote listed, then the majority (a tie is not relevant)."""
    marks: dict[Any, dict[str, list[int]]] = {}
    for a in answers.values():
        for q, m in a.items():
            for c, v in (m or {}).items():
                marks.setdefault(q, {}).setdefault(str(c), []).append(int(v))
    return {q: {c: int(2 * sum(v) > len(v)) for c, v in cs.items()} for q, cs in marks.items()}


def test_one_annotators_consensus_is_the_vote() -> None:
    from hume_sync.task_types.reranking.scoring import RerankingScoring

    t = RerankingScoring()
    _, humans = _study(4)
    one = {"a": {**humans["a"], "q0": None, "q1": {}, "q2": {**humans["a"]["q2"], 7: True}}}
    got = t.score_consensus(one)
    assert got is not None and got == _consensus_by_votes(one)
    assert "q0" not in got and "q1" not in got
    # ids alike as strings pool their votes
    alike: dict[str, Any] = {"a": {"q0": {1: 1, "1": 0, "c2": 1}}}
    assert t.score_consensus(alike) == _consensus_by_votes(alike) == {"q0": {"1": 0, "c2": 1}}
    assert t.score_consensus(humans) == _consensus_by_votes(humans)
