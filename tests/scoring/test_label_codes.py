"""Two shortcuts of scoring a classification subset (issue 38), against what they replace:
string labels coded by Python's sort instead of ``np.unique`` (the same scores as sklearn's,
and as the same labels given as their sorted ranks), and the vote of two answers without a
``Counter`` (the same label, tie flag and top labels as counting them)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from sklearn import metrics as skm

from scoring import kernels
from scoring.aggregation.classification import _vote


def test_string_labels_score_as_their_ranks_and_as_sklearn() -> None:
    rng = np.random.default_rng(38)
    alphabet = ["b", "a", "Zeta", "ä", "aa", "science", "€", "geo graphy", "10", "9", "", "Ωmega"]
    for trial in range(300):
        k = int(rng.integers(1, len(alphabet) + 1))
        names = np.array(alphabet[:k])
        n = int(rng.integers(1, 80))
        gold = rng.choice(names, n)
        pred = gold.copy() if trial % 7 == 0 else rng.choice(names, n)
        rank = {label: r for r, label in enumerate(sorted(alphabet[:k]))}
        as_ranks = kernels.classification_scores(
            np.array([rank[g] for g in gold.tolist()]), np.array([rank[p] for p in pred.tolist()])
        )
        ours = kernels.classification_scores(gold, pred)
        assert ours == as_ranks
        assert ours["accuracy"] == skm.accuracy_score(gold, pred)
        assert ours["f1"] == skm.f1_score(gold, pred, average="macro", zero_division=0.0)


def _counted_vote(labels: list[Any]) -> tuple[Any, bool, list[Any]]:
    """The vote by counting, as it is taken for three or more answers."""
    counts = Counter(labels)
    top = max(counts.values())
    most = [label for label, c in counts.items() if c == top]
    best = sorted(most, key=str)
    return best[0], len(best) > 1, most


def test_two_answers_vote_as_counted() -> None:
    nan = float("nan")
    pairs: list[list[Any]] = [
        ["a", "a"],
        ["a", "b"],
        ["b", "a"],
        ["10", "9"],
        [2, 10],  # str order: "10" < "2"
        [1, "1"],  # equal strings: the first given wins, as the stable sort keeps it
        ["1", 1],
        [1, 1.0],  # equal values
        [True, 1],
        [nan, nan],  # the same object: one key
        [float("nan"), float("nan")],  # two objects: two keys, a tie
    ]
    for labels in pairs:
        got, want = _vote(labels), _counted_vote(labels)
        assert got[0] is want[0] and got[1] == want[1]
        assert len(got[2]) == len(want[2]) and all(
            a is b for a, b in zip(got[2], want[2], strict=True)
        )
