"""Pair classification: the scoring concern, humans scored on the metrics mteb scores models on.

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
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np

from hume_sync.task_types.pair_classification.model import best_accuracy_threshold
from scoring import agreement, intervals, kernels, metrics
from scoring.aggregation import human_classification
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.records import Agreement, Interval, Score
from scoring.rules import (
    ItemAlignment,
    PerItem,
    ScoringRules,
    items_by_bootstrap_scaling,
    label_match,
    majority_consensus,
)

Answers = Mapping[Any, Mapping[Hashable, Any]]

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


def _clean(gold: Mapping[Hashable, Any], answers: Answers) -> tuple[dict, dict]:
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
    """Per pair, the share of its annotators who answered 1 (pairs nobody answered are absent)."""
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


def human_pair_classification(gold: Mapping[Hashable, Any], answers: Answers) -> Score:
    """The human score of a subset by the module's rules: value = AP of the vote shares.

    ``details`` holds the majority vote's accuracy (and its F1/precision/recall), the vote
    shares and votes per pair, the tied pairs, the vote share's best-threshold accuracy as mteb
    computes it, and per annotator accuracy and F1; ``per_rater`` holds each annotator's AP.
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
def _ap_of_rows(rows: np.ndarray) -> Any:
    """AP of (gold, vote share) rows, shape (..., n, 2), one value per stack of rows (a float
    for one (n, 2) sample); NaN without a positive pair (AP is undefined there). scikit-learn's
    AP of each resample, all resamples at once (:func:`scoring.kernels.average_precision_rows`).
    """
    n = rows.shape[-2]
    flat = rows.reshape(-1, n, 2)
    values = kernels.average_precision_rows(flat[..., 0], flat[..., 1]).reshape(rows.shape[:-2])
    return float(values) if values.ndim == 0 else values


def expected_random_ap(n_positive: int, n_items: int) -> float:
    """E[AP] of a uniformly random tie-free ranking of ``n_items`` with ``n_positive`` relevant.

    The k-th position is relevant with probability R/N and then holds on average
    1 + (k-1)(R-1)/(N-1) relevant items in the top k, so E[AP] = (H_N + (R-1)/(N-1)(N-H_N))/N.
    """
    if not 1 <= n_positive <= n_items:
        raise InvalidInputError(f"need 1 <= n_positive <= n_items, got {n_positive}, {n_items}")
    harmonic = math.fsum(1.0 / k for k in range(1, n_items + 1))
    if n_items == 1:
        return 1.0
    return (harmonic + (n_positive - 1) / (n_items - 1) * (n_items - harmonic)) / n_items


class PairClassificationScoring(ScoringRules):
    """Pair classification's scoring behaviour (the ``ScoringRules`` protocol).

    Items: gold is 1 or 0, an answer is 1 or 0. The main score is AP of the annotators' vote
    share; it is written under mteb's key ``max_ap`` in human result files too (a human has one
    "similarity", the vote share, so the best over similarity functions is its AP).
    """

    score_methods: ClassVar[Mapping[str, str]] = {
        "Human score": (
            "annotators' vote share per pair, then scikit-learn AP (beside it: majority vote, "
            "ties to 0, then accuracy)"
        ),
        "Ties": (
            "the AP needs no tie rule (a pair with as many Yes as No has vote share ½); the "
            "majority vote beside it counts such a pair as No"
        ),
        "Model score": "mteb max_ap (best of five pair scores, thresholds on the same pairs)",
        "Interval (95 %)": "seeded BCa bootstrap over pairs (Wilson for the vote's accuracy)",
        "Agreement": "Fleiss' κ (+ pairwise Cohen κ, percentage, Krippendorff α)",
        "Candidate gold errors": "all annotators (≥ 2) give the same answer, not gold's",
    }

    #: Answers are labels: the report adds a Dawid–Skene aggregate (scoring.panel).
    score_answers_are_labels = True
    score_main_name: str = "max_ap"
    score_main_label: str = "max AP"
    score_mteb_main_name: str = "max_ap"
    score_main_range: tuple[float, float] = (0.0, 1.0)
    #: Only pair classification's score blocks hold ``max_ap``.
    score_metric_keys: tuple[str, ...] = ("max_ap",)
    #: One annotator's own score: AP of their 0/1 answers (scikit-learn, ties as one step).
    score_annotator_method: str = "ap:sklearn"
    score_headline_agreement: str = "fleiss_kappa"

    @property
    def score_item_alignment(self) -> ItemAlignment:
        """Label match on the 0/1 answer: 1 when two answers agree."""
        return ItemAlignment("label match (1 if equal, else 0)", label_match)

    score_human_machine_statistic: str = "cohen_kappa"
    #: Bootstrap settings of :meth:`score_interval` (seeded: the same answers, the same bounds).
    #: A model stores its 1/0 decisions (at mteb's best-accuracy threshold): their AP, not
    #: mteb's max AP over the similarities (the printed score), is what has a per-item form.
    score_model_compared: str = "AP of the model's stored 1/0 decisions"
    score_bootstrap_resamples: int = 2000
    score_bootstrap_seed: int = 0

    def score_human(self, gold: Mapping[Hashable, Any], answers: Answers) -> Score:
        """AP of the vote shares (``value``); the vote's accuracy and the rest in ``details``."""
        return human_pair_classification(gold, answers)

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """The majority answer, a tie counted as No (as the vote beside the AP)."""
        return majority_consensus(answers)

    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        """Fleiss' κ (headline), mean pairwise Cohen's κ, percentage agreement, nominal α."""
        del gold
        return agreement.categorical_agreements(humans)

    def score_agreement_flags(self, headline: Agreement) -> dict[str, bool]:
        """The paper's flags: revise below κ 0.4, a reliable target above κ 0.6."""
        return {
            "low": agreement.low_agreement(headline),
            "high": agreement.high_agreement(headline),
        }

    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """A pair's vote share is fixed, so AP is a statistic of (gold, share) records;
        a resample without a positive pair has no AP (NaN, dropped by the bootstrap)."""
        shares = score.details.get("vote_shares") or {}
        if not shares:
            return None
        rows = np.asarray([[float(gold[i]), float(v)] for i, v in shares.items()])
        return rows, _ap_of_rows

    def score_interval(self, score: Score) -> Interval:
        """Seeded BCa bootstrap over pairs of the human AP (no closed form exists for AP)."""
        gold = score.details.get("gold") or {}
        per_item = self.score_per_item(gold, score)
        if per_item is None:
            raise DegenerateInputError("no answered pair to resample")
        rows, statistic = per_item
        return intervals.bootstrap(
            rows,
            statistic,
            n_resamples=self.score_bootstrap_resamples,
            seed=self.score_bootstrap_seed,
            method="bca",
            vectorized=intervals.is_vectorized(statistic),
        )

    def score_accuracy_interval(self, score: Score, level: float = 0.95) -> Interval:
        """Wilson interval of the majority vote's accuracy (``details["accuracy"]``)."""
        return intervals.wilson(int(score.details["n_correct"]), int(score.n_items or 0), level)

    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        """Items for an AP interval of half-width ``target`` (bootstrap half-width, 1/√n:
        AP has no closed-form interval to invert)."""
        return items_by_bootstrap_scaling(int(score.n_items or 0), bootstrap, target)

    def score_chance(self, gold: Mapping[Hashable, Any]) -> dict[str, float]:
        """Chance levels of the subset: coin-flip and majority-class accuracy, random AP."""
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

    def score_disagree(self, values: list[Any]) -> bool:
        """A pair's annotators disagree when both answers were given."""
        return any(v != values[0] for v in values[1:])

    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        """Annotators who all gave the same answer, not gold's: a candidate gold error."""
        return all(v == values[0] for v in values) and values[0] != gold

    def score_item_text(self, content: Mapping[str, Any]) -> str:
        """A pair as the report's item lists show it."""
        return f"{content.get('sentence1', '')} ⟷ {content.get('sentence2', '')}"
