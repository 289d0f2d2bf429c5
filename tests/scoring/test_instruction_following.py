"""p-MRR against mteb's own ``calculate_pmrr`` (FollowIR), the reference of the hand-written one.

Worked cases by hand, random runs against mteb under mteb's tie rule, and the expected value over
random tie-breaks against mteb averaged over every tie-break of small runs.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

import numpy as np
import pytest

from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.instruction_following import mean_scores, p_mrr, rank_change_score

retrieval_metrics = pytest.importorskip("mteb._evaluators.retrieval_metrics")


def mteb_pmrr(og: dict[str, Any], new: dict[str, Any], changed: dict[str, list[str]]) -> float:
    """mteb's p-MRR of runs keyed by base query id (it wants ``-og`` / ``-changed`` suffixes)."""
    return float(
        retrieval_metrics.calculate_pmrr(
            {f"{q}-og": r for q, r in og.items()},
            {f"{q}-changed": r for q, r in new.items()},
            changed,
        )
    )


def test_rank_change_score_by_hand() -> None:
    # fell from rank 1 to rank 4: og < new, so 1 - og/new = 1 - 1/4 = 0.75 (positive)
    assert rank_change_score(1, 4) == pytest.approx(0.75)
    # rose from rank 4 to rank 1: og >= new, so new/og - 1 = 1/4 - 1 = -0.75
    assert rank_change_score(4, 1) == pytest.approx(-0.75)
    assert rank_change_score(3, 3) == 0.0


def test_p_mrr_worked_example_matches_mteb() -> None:
    og = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 0.9, "y": 0.1}}
    new = {"q1": {"a": 1.0, "b": 2.0, "c": 3.0}, "q2": {"x": 0.2, "y": 0.5}}
    changed = {"q1": ["a", "b"], "q2": ["x"]}
    # q1: a 1 -> 3: 1 - 1/3 = 2/3; b 2 -> 2: 0; mean 1/3. q2: x 1 -> 2: 1 - 1/2 = 1/2.
    # p-MRR = (1/3 + 1/2) / 2 = 5/12
    score = p_mrr(og, new, changed)
    assert score.value == pytest.approx(5 / 12)
    assert score.value == pytest.approx(mteb_pmrr(og, new, changed), abs=1e-12)
    assert score.n_items == 2


def _random_runs(rng: np.random.Generator, n_queries: int, n_docs: int, levels: int) -> Any:
    og, new, changed = {}, {}, {}
    for q in range(n_queries):
        docs = [f"d{q}_{j}" for j in range(n_docs)]
        og[f"q{q}"] = {d: float(rng.integers(levels)) for d in docs}
        new[f"q{q}"] = {d: float(rng.integers(levels)) for d in docs}
        k = int(rng.integers(1, 3))
        changed[f"q{q}"] = [str(d) for d in rng.choice(docs, size=k, replace=False)]
    return og, new, changed


@pytest.mark.parametrize("seed", range(6))
def test_trec_eval_ties_equal_mteb_on_random_runs(seed: int) -> None:
    """Grades with many ties: mteb breaks them by document id descending, and so do we."""
    og, new, changed = _random_runs(np.random.default_rng(seed), 8, 7, levels=3)
    assert p_mrr(og, new, changed).value == pytest.approx(mteb_pmrr(og, new, changed), abs=1e-12)


def _tie_breaks(run: dict[str, float]) -> list[dict[str, float]]:
    """Every strict order consistent with ``run``'s scores, as score dicts."""
    docs = list(run)
    orders = []
    for perm in itertools.permutations(docs):
        if all(run[perm[i]] >= run[perm[i + 1]] for i in range(len(perm) - 1)):
            orders.append({d: float(len(perm) - i) for i, d in enumerate(perm)})
    return orders


@pytest.mark.parametrize("seed", range(4))
def test_expected_ties_equal_mteb_averaged_over_every_tie_break(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    og, new, changed = _random_runs(rng, 1, 5, levels=2)
    [q] = og
    values = [
        mteb_pmrr({q: a}, {q: b}, changed) for a in _tie_breaks(og[q]) for b in _tie_breaks(new[q])
    ]
    expected = p_mrr(og, new, changed, ties="expected_ties").value
    assert expected == pytest.approx(float(np.mean(values)), abs=1e-12)


def test_no_ties_both_rules_agree() -> None:
    og, new, changed = _random_runs(np.random.default_rng(9), 5, 6, levels=10**6)
    assert p_mrr(og, new, changed, ties="expected_ties").value == pytest.approx(
        p_mrr(og, new, changed).value, abs=1e-12
    )


def test_missing_query_skipped_as_mteb_and_missing_doc_ranks_last(
    caplog: pytest.LogCaptureFixture,
) -> None:
    og = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 1.0}}
    new = {"q1": {"b": 1.0}}  # q2 missing; a missing from q1's new run: rank 2 (len + 1)
    changed = {"q1": ["a"], "q2": ["x"]}
    # a: 1 -> 2: 1 - 1/2 = 0.5
    with caplog.at_level(logging.WARNING):
        assert p_mrr(og, new, changed).value == pytest.approx(0.5)
        assert mteb_pmrr(og, new, changed) == pytest.approx(0.5)


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="unknown tie rule"):
        p_mrr({}, {}, {}, ties="random")
    with pytest.raises(DegenerateInputError):
        p_mrr({"q": {"a": 1.0}}, {}, {"q": ["a"]})


def test_mean_scores_over_raters() -> None:
    answers: dict[str, dict[str, dict[str, float] | None]] = {
        "r1": {"q1": {"a": 2, "b": 0}, "q2": None},
        "r2": {"q1": {"a": 1, "b": 0}, "q2": {"x": 1}},
    }
    assert mean_scores(answers) == {"q1": {"a": 1.5, "b": 0.0}, "q2": {"x": 1.0}}
