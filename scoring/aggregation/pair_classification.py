"""Pair classification: humans scored on the metrics mteb scores models on.

A model gives every pair a similarity; mteb reports AP of that ranking (its main score
``max_ap``) and the accuracy at the best threshold. A human gives each pair Yes (1) or No (0).
The named rules that put humans on the same metrics:

* **AP: the annotators' vote share is the human score of a pair** — the share of the pair's
  annotators who answered 1 (with two annotators 0, ½ or 1) — ranked against gold with
  scikit-learn's ``average_precision_score``, as mteb ranks a model's similarities. Pairs with
  the same share tie, and scikit-learn counts a tie group as one threshold (no tie order is
  invented). This is the human main score, read against the model's ``max_ap``.
* **Accuracy: majority vote per pair; a tie (one Yes, one No) goes to 0 (No).** That is HUME's
  classification rule (a tie goes to the alphabetically first label; "0" sorts first), and it
  is the conservative reading: a relation half the annotators doubt is not counted as held.
  The vote's F1, precision and recall of the positive class (mteb's ``f1``: binary) go with it.
  Unlike a model's accuracy, the vote gets no threshold tuned on gold; ``details`` also holds
  the vote share's best-threshold accuracy computed exactly as mteb's (for a like-for-like
  reading).
* Per annotator: accuracy, F1 and AP of their own 0/1 answers (``per_rater`` holds the AP).
* Agreement: Fleiss' κ (headline, any number of annotators), mean pairwise Cohen's κ, mean
  percentage agreement and nominal Krippendorff's α, from :mod:`scoring.agreement`; bands and
  flags as the paper's. An LLM annotator is compared with the humans by Cohen's κ.
* Intervals (95 %): a seeded bootstrap over pairs (BCa) for AP, which has no closed form
  (:mod:`scoring.intervals`); Wilson for the vote's accuracy.
* Chance: a coin flip's accuracy is 0.5 and the majority-class guess's is the larger class
  share; a random ranking's expected AP is (H_N + (R-1)/(N-1) (N - H_N)) / N for R positives
  among N pairs (close to the positive share R/N).
* Disagreement: a pair whose annotators gave both answers. Candidate gold error: a pair whose
  annotators (two or more) all gave the same answer, not gold's.

The majority vote is classification's, reused as the rule says
(:func:`scoring.aggregation.classification.human_classification`). mteb's own threshold search,
:func:`best_accuracy_threshold`, lives here rather than in the model procedure because the
human score uses it too and ``scoring`` imports nothing above it; the model procedure
(``ml_backend/procedures/pair_classification.py``) imports it from here.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import scoring.intervals as intervals
import scoring.kernels as kernels
import scoring.metrics as metrics
from scoring.aggregation.classification import human_classification
from scoring.aggregation.common import Answers
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.records import Score

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "HUMAN_ACCURACY_METHOD",
    "HUMAN_AP_METHOD",
    "ap_of_rows",
    "best_accuracy_threshold",
    "chance_levels",
    "expected_random_ap",
    "human_pair_classification",
    "vote_shares",
]

#: How the human main score is made (goes into ``Score.method`` and reports).
HUMAN_AP_METHOD = "human:vote_share+ap:sklearn"
HUMAN_ACCURACY_METHOD = "human:majority_vote(tie->0)+accuracy"


def _binary(value: Any, where: str) -> int:
    """A 0/1 answer or gold label (ints, numpy ints, or floats 0.0/1.0; never booleans)."""
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | np.integer | np.floating
    ):
        raise InvalidInputError(f"{where}: expected 0 or 1, got {value!r}")
    if value not in (0, 1):
        raise InvalidInputError(f"{where}: expected 0 or 1, got {value!r}")
    return int(value)


def _clean(
    gold: Mapping[Hashable, Any], answers: Answers
) -> tuple[dict[Hashable, int], dict[Any, dict[Hashable, int]]]:
    """Gold and answers checked to be 0/1 (missing answers, None, are kept out)."""
    if not isinstance(gold, Mapping) or not gold:
        raise InvalidInputError("gold: expected a non-empty mapping item_id -> 0/1")
    if not isinstance(answers, Mapping) or not answers:
        raise InvalidInputError("answers: expected a non-empty mapping annotator -> answers")
    g = {item: _binary(v, f"gold[{item!r}]") for item, v in gold.items()}
    a: dict[Any, dict[Hashable, int]] = {}
    for rater, given in answers.items():
        if not isinstance(given, Mapping):
            raise InvalidInputError(f"answers[{rater!r}]: expected a mapping item_id -> 0/1")
        a[rater] = {
            item: _binary(v, f"answers[{rater!r}][{item!r}]")
            for item, v in given.items()
            if v is not None
        }
    return g, a


def vote_shares(answers: Answers) -> dict[Hashable, float]:
    """Per pair, the share of its annotators who answered 1 (pairs nobody answered are absent).

    Args:
        answers: ``{annotator: {item: answer}}``; ``None`` is no answer.

    Returns:
        ``{pair: share}``.

    Raises:
        InvalidInputError: an answer that is not 0/1.
    """
    yes: dict[Hashable, int] = {}
    total: dict[Hashable, int] = {}
    for rater, given in answers.items():
        for item, value in given.items():
            if value is None:
                continue
            total[item] = total.get(item, 0) + 1
            yes[item] = yes.get(item, 0) + _binary(value, f"answers[{rater!r}][{item!r}]")
    return {item: yes[item] / total[item] for item in total}


def _binary_prf(gold: list[int], pred: list[int]) -> dict[str, float]:
    """Positive-class precision, recall and F1 (mteb's pair ``f1`` is binary, not macro)."""
    tp = sum(1 for g, p in zip(gold, pred, strict=True) if g == 1 and p == 1)
    n_pred = sum(pred)
    n_pos = sum(gold)
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_pos if n_pos else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"f1": f1, "precision": precision, "recall": recall}


def best_accuracy_threshold(
    scores: Sequence[float], labels: NDArray[Any], high_score_more_similar: bool
) -> tuple[float, float]:
    """(best accuracy, threshold) as ``_find_best_acc_and_threshold``.

    Pairs are sorted best first (a stable sort, so ties keep their order); each cut between two
    *different* neighbouring scores calls everything above it positive. The cut after the last
    pair (all positive) is never tried, and the start values (0, -1.0) stand when no cut exists.

    Args:
        scores: one score per pair.
        labels: the gold 0/1 labels, aligned with ``scores``.
        high_score_more_similar: whether a higher score means "positive".

    Returns:
        (best accuracy, threshold).
    """
    rows = sorted(
        zip(scores, labels, strict=True), key=lambda x: x[0], reverse=high_score_more_similar
    )
    max_acc = 0
    best_threshold = -1.0
    positive_so_far = 0
    remaining_negatives = sum(labels == 0)
    for i in range(len(rows) - 1):
        score, label = rows[i]
        if label == 1:
            positive_so_far += 1
        else:
            remaining_negatives -= 1
        if score == rows[i + 1][0]:
            continue
        acc = (positive_so_far + remaining_negatives) / len(labels)
        if acc > max_acc:
            max_acc = acc
            best_threshold = (rows[i][0] + rows[i + 1][0]) / 2
    return max_acc, best_threshold


def human_pair_classification(gold: Mapping[Hashable, Any], answers: Answers) -> Score:
    """The human score of a subset by the module's rules: value = AP of the vote shares.

    ``details`` holds the majority vote's accuracy (and its F1/precision/recall), the vote
    shares and votes per pair, the tied pairs, the vote share's best-threshold accuracy as mteb
    computes it, and per annotator accuracy and F1; ``per_rater`` holds each annotator's AP.

    Args:
        gold: ``{pair: 0/1}``.
        answers: ``{annotator: {item: answer}}``; ``None`` is no answer.

    Returns:
        The AP of the vote shares, method :data:`HUME_AP_METHOD`.

    Raises:
        InvalidInputError: gold or answers that are not 0/1, or malformed.
        DegenerateInputError: no answered pair is positive, or no annotator answered.
    """
    g, a = _clean(gold, answers)
    vote = human_classification(g, a)  # validates, votes with the "0" first tie rule
    items = [item for item in g if item in vote.details["votes"]]
    shares = vote_shares({r: {i: v for i, v in given.items() if i in g} for r, given in a.items()})
    gold_list = [g[i] for i in items]
    share_list = [shares[i] for i in items]
    if sum(gold_list) == 0:
        raise DegenerateInputError("gold: no answered pair is positive; AP is undefined")
    ap = metrics.average_precision(gold_list, share_list, method="sklearn")
    votes = [int(vote.details["votes"][i]) for i in items]
    per_rater_ap: dict[str, float] = {}
    per_rater_f1: dict[str, float] = {}
    for rater, given in a.items():
        mine = [i for i in items if i in given]
        if not mine:
            continue
        mine_gold = [g[i] for i in mine]
        per_rater_f1[str(rater)] = _binary_prf(mine_gold, [given[i] for i in mine])["f1"]
        if sum(mine_gold):
            per_rater_ap[str(rater)] = metrics.average_precision(
                mine_gold, [given[i] for i in mine], method="sklearn"
            ).value
    best_acc, best_cut = best_accuracy_threshold(share_list, np.asarray(gold_list), True)
    details = {
        "accuracy": vote.value,
        "accuracy_method": HUMAN_ACCURACY_METHOD,
        "n_correct": sum(1 for gl, v in zip(gold_list, votes, strict=True) if gl == v),
        **_binary_prf(gold_list, votes),
        "per_rater_accuracy": dict(vote.per_rater),
        "per_rater_f1": per_rater_f1,
        "vote_shares": {i: shares[i] for i in items},
        "gold": {i: g[i] for i in items},
        "votes": {i: v for i, v in zip(items, votes, strict=True)},
        "tied_items": list(vote.details["tied_items"]),
        "n_tied_items": vote.details["n_tied_items"],
        "vote_share_best_threshold_accuracy": float(best_acc),
        "vote_share_best_threshold": float(best_cut),
        "n_positive": sum(gold_list),
        "n_annotators": vote.details["n_annotators"],
        "n_missing_per_rater": vote.details["n_missing_per_rater"],
        "unanswered_items": vote.details["unanswered_items"],
        "ap_ties": "scikit-learn: a group of equal vote shares is one threshold",
    }
    return Score(
        ap.value, HUMAN_AP_METHOD, n_items=len(items), per_rater=per_rater_ap, details=details
    )


@intervals.vectorized
def ap_of_rows(rows: NDArray[Any]) -> Any:
    """AP of (gold, vote share) rows, one value per stack of rows.

    scikit-learn's AP of each resample, all resamples at once
    (:func:`scoring.kernels.average_precision_rows`).

    Args:
        rows: (gold, vote share) records, shape (..., n, 2).

    Returns:
        One AP per stack (a float for one (n, 2) sample); NaN without a positive pair (AP is
        undefined there).
    """
    n = rows.shape[-2]
    flat = rows.reshape(-1, n, 2)
    values = kernels.average_precision_rows(flat[..., 0], flat[..., 1]).reshape(rows.shape[:-2])
    return float(values) if values.ndim == 0 else values


def expected_random_ap(n_positive: int, n_items: int) -> float:
    """E[AP] of a uniformly random tie-free ranking of ``n_items`` with ``n_positive`` relevant.

    The k-th position is relevant with probability R/N and then holds on average
    1 + (k-1)(R-1)/(N-1) relevant items in the top k, so E[AP] = (H_N + (R-1)/(N-1)(N-H_N))/N.

    Args:
        n_positive: R, the relevant items.
        n_items: N, all items.

    Returns:
        E[AP].

    Raises:
        InvalidInputError: not 1 ≤ R ≤ N.
    """
    if not 1 <= n_positive <= n_items:
        raise InvalidInputError(f"need 1 <= n_positive <= n_items, got {n_positive}, {n_items}")
    harmonic = math.fsum(1.0 / k for k in range(1, n_items + 1))
    if n_items == 1:
        return 1.0
    return (harmonic + (n_positive - 1) / (n_items - 1) * (n_items - harmonic)) / n_items


def chance_levels(gold: Mapping[Hashable, Any]) -> dict[str, float]:
    """Chance levels of a subset: coin-flip and majority-class accuracy, random AP.

    Args:
        gold: ``{pair: 0/1}``.

    Returns:
        ``accuracy`` (0.5), ``accuracy_majority_class``, ``ap`` (NaN without a positive pair)
        and ``positive_share``.

    Raises:
        InvalidInputError: no pairs, or a gold value that is not 0/1.
    """
    g = {item: _binary(v, f"gold[{item!r}]") for item, v in gold.items()}
    n, r = len(g), sum(g.values())
    if not n:
        raise InvalidInputError("gold: no pairs")
    return {
        "accuracy": 0.5,
        "accuracy_majority_class": max(r, n - r) / n,
        "ap": expected_random_ap(r, n) if r else math.nan,
        "positive_share": r / n,
    }
