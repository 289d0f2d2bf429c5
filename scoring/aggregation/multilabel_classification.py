"""Multilabel classification: mteb's set metrics, the human vote, and α with a set distance.

An item's answer is the set of labels that apply to it (possibly none). mteb's
``AbsTaskMultilabelClassification._calculate_scores`` scores predicted sets against gold sets
on the rows of a ``MultiLabelBinarizer`` fitted on gold: exact-match ``accuracy`` (its main
score, scikit-learn's subset accuracy), macro ``f1``, ``lrap`` and ``hamming`` (mteb's
``hamming_score``: per item |gold ∩ answer| / |gold ∪ answer|, 1 where both are empty, then the
mean). :func:`multilabel_metrics` makes the same scikit-learn calls, so the procedure
(``ml_backend/procedures/multilabel_classification.py``) scores a model's sets with it and a
person's are scored by the same code.

One difference is on purpose: mteb's binarizer drops a label no gold item has (a model trained on
labels binarized the same way can never predict one), but a person can choose such a label, and
dropping it would turn a wrong answer into a right one. So the columns are gold's labels plus any
label an answer holds that gold lacks (:func:`label_columns`); on a model's answers the two are
the same columns.

Several annotators become one set per item by a per-label majority: a label is in the item's
set when more than half of the item's annotators chose it (a label chosen by exactly half is
left out, and counted as a tie). One annotator's vote is their own answer.

Agreement is Krippendorff's α with the MASI distance (Passonneau 2006) between sets
(:func:`set_alpha`): exact-match κ would count {a, b} against {a} as a full disagreement. No
library computes α for set-valued answers with missing values (nltk's ``AnnotationTask``
assumes every rater answered every item, and export must not import nltk), so it is written
here from the coincidence matrix, as :mod:`scoring.agreement` writes the nominal α; the tests
check it against nltk on complete data.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scoring.aggregation.common import Answers, collect
from scoring.agreement import kappa_band
from scoring.errors import InvalidInputError
from scoring.records import Agreement, Score

__all__ = [
    "ALPHA_METHOD",
    "HUMAN_METHOD",
    "MAIN_SCORE",
    "as_label_set",
    "exact_match_hits",
    "hamming_score",
    "human_multilabel_classification",
    "jaccard_distance",
    "label_columns",
    "label_vote",
    "masi_distance",
    "multilabel_metrics",
    "set_alpha",
]

#: mteb's main score of a MultilabelClassification task (exact match).
MAIN_SCORE = "accuracy"
#: The human score's method: the per-label majority vote, then mteb's exact-match accuracy.
HUMAN_METHOD = "human:per_label_majority(ties_out)+exact_match_accuracy"
#: The headline agreement's method.
ALPHA_METHOD = "krippendorff_alpha:masi"
#: Resamples of the agreement's bootstrap interval over items.
ALPHA_RESAMPLES = 1000

LabelSet = tuple[str, ...]


def as_label_set(value: Any, what: str = "answer") -> LabelSet:
    """A set of labels as hume compares it: the distinct label strings, sorted.

    Args:
        value: a list, tuple or set of labels (strings or integers); a JSON list as stored.
        what: how the value is named in an error.

    Returns:
        The labels as a sorted tuple of strings (empty for no label).

    Raises:
        InvalidInputError: when the value is not a collection of labels.
    """
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple | set | frozenset):
        raise InvalidInputError(f"{what} must be a list of labels, got {value!r}")
    out = set()
    for label in value:
        if isinstance(label, bool) or not isinstance(label, str | int):
            raise InvalidInputError(f"{what}: a label must be a string, got {label!r}")
        out.add(str(label))
    return tuple(sorted(out))


def label_columns(gold: Sequence[LabelSet], answers: Sequence[LabelSet]) -> list[str]:
    """The binarizer's columns: gold's labels, then any label only an answer holds.

    Gold's sorted, as mteb's ``MultiLabelBinarizer`` fitted on gold; the others sorted after
    them, so that a wrong label is never dropped.

    Args:
        gold: the gold set of each item.
        answers: the answered set of each item.

    Returns:
        The column labels.
    """
    known = sorted({lab for s in gold for lab in s})
    extra = sorted({lab for s in answers for lab in s} - set(known))
    return known + extra


def _binarize(sets: Sequence[LabelSet], columns: Sequence[str]) -> NDArray[np.int64]:
    index = {lab: j for j, lab in enumerate(columns)}
    out = np.zeros((len(sets), len(columns)), dtype=np.int64)
    for i, s in enumerate(sets):
        for lab in s:
            out[i, index[lab]] = 1
    return out


def hamming_score(y_true: NDArray[Any], y_pred: NDArray[Any]) -> float:
    """The Hamming score as mteb computes it (``_evaluators.classification_metrics``).

    Per item |gold ∩ answer| / |gold ∪ answer| (1 where both are empty), averaged. Written here
    because mteb's is private; the tests compare the two.

    Args:
        y_true: binary gold matrix, items × labels.
        y_pred: binary answer matrix, the same shape.

    Returns:
        The mean per-item score.

    Raises:
        InvalidInputError: when the shapes differ or there is no item.
    """
    t, p = np.asarray(y_true, dtype=bool), np.asarray(y_pred, dtype=bool)
    if t.shape != p.shape or t.ndim != 2 or t.size == 0:
        raise InvalidInputError(f"hamming: shapes {t.shape} and {p.shape} do not fit")
    inter = (t & p).sum(axis=1)
    union = (t | p).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.where(union == 0, 1.0, inter / np.where(union == 0, 1, union))
    return float(scores.mean())


def multilabel_metrics(
    gold: Sequence[Any], predicted: Sequence[Any], columns: Sequence[str] | None = None
) -> dict[str, float]:
    """Score predicted label sets against gold sets by mteb's multilabel metrics.

    The scikit-learn calls of ``AbsTaskMultilabelClassification._calculate_scores`` on hard
    predictions: ``accuracy_score`` (exact match), ``f1_score(average="macro")`` (an undefined
    F1 is 0, as scikit-learn's default), ``label_ranking_average_precision_score`` and mteb's
    ``hamming_score``.

    Args:
        gold: the gold label set of each item.
        predicted: the predicted label set of each item.
        columns: the binarizer's columns (default :func:`label_columns`).

    Returns:
        ``accuracy``, ``f1``, ``lrap`` and ``hamming``.

    Raises:
        InvalidInputError: when the lengths differ, there is no item, or a set is malformed.
    """
    from sklearn.metrics import accuracy_score, f1_score, label_ranking_average_precision_score

    if len(gold) != len(predicted):
        raise InvalidInputError(f"gold has {len(gold)} items, predictions {len(predicted)}")
    if not gold:
        raise InvalidInputError("no items to score")
    g = [as_label_set(s, "gold") for s in gold]
    p = [as_label_set(s) for s in predicted]
    cols = list(columns) if columns is not None else label_columns(g, p)
    unknown = sorted({lab for s in (*g, *p) for lab in s} - set(cols))
    if unknown:
        raise InvalidInputError(f"labels {unknown!r} are not columns {cols!r}")
    if not cols:  # nothing applies anywhere: every empty answer is exactly right
        return {"accuracy": 1.0, "f1": 0.0, "lrap": 1.0, "hamming": 1.0}
    y_true, y_pred = _binarize(g, cols), _binarize(p, cols)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined F1 → 0, as mteb (zero_division="warn")
        scores = {
            "accuracy": accuracy_score(y_true, y_pred),
            "f1": f1_score(y_true, y_pred, average="macro"),
            "lrap": label_ranking_average_precision_score(y_true, y_pred),
            "hamming": hamming_score(y_true, y_pred),
        }
    return {k: float(v) for k, v in scores.items()}


def exact_match_hits(gold: Sequence[Any], predicted: Sequence[Any]) -> NDArray[np.float64]:
    """1 per item whose set equals gold's, else 0 (the accuracy's per-item form).

    Args:
        gold: the gold label set of each item.
        predicted: the predicted label set of each item.

    Returns:
        The hits, as floats.
    """
    return np.array(
        [
            float(as_label_set(a, "gold") == as_label_set(b))
            for a, b in zip(gold, predicted, strict=True)
        ]
    )


def label_vote(sets: Sequence[LabelSet]) -> tuple[LabelSet, list[str]]:
    """The per-label majority of one item's answers: each label chosen by more than half.

    Args:
        sets: the item's answers (at least one).

    Returns:
        The voted set, and the labels chosen by exactly half (left out: ties).
    """
    counts: dict[str, int] = {}
    for s in sets:
        for lab in s:
            counts[lab] = counts.get(lab, 0) + 1
    n = len(sets)
    voted = tuple(sorted(lab for lab, c in counts.items() if 2 * c > n))
    tied = sorted(lab for lab, c in counts.items() if 2 * c == n)
    return voted, tied


def human_multilabel_classification(gold: Mapping[Hashable, Any], answers: Answers) -> Score:
    """The per-label majority vote per item, then mteb's exact-match accuracy against gold.

    ``per_rater`` holds each annotator's exact-match accuracy on the items they answered;
    ``details`` holds the vote's macro F1, mteb's Hamming score and LRAP, the votes, and the
    items with a tied label and the score under other tie rules (``tie_rules``: each tied label
    in or out by a fair coin, the exact expectation; ties resolved towards gold; away from it).

    Args:
        gold: ``{item: [labels]}``.
        answers: ``{annotator: {item: [labels]}}``; ``None`` is no answer (an empty list is an
            answer: no label applies).

    Returns:
        The vote's exact-match accuracy, method :data:`HUMAN_METHOD`.

    Raises:
        InvalidInputError: malformed gold or answers (the annotator named), an item not in gold.
        DegenerateInputError: no annotator answered any gold item.
    """
    col = collect(gold, answers)
    gold_sets = {i: as_label_set(gold[i], f"gold[{i!r}]") for i in col.items}
    per_rater: dict[str, float] = {}
    by_rater: dict[str, dict[Hashable, LabelSet]] = {}
    for rater, given in col.by_rater.items():
        sets = {i: as_label_set(a, f"answers[{rater!r}][{i!r}]") for i, a in given.items()}
        by_rater[rater] = sets
        per_rater[rater] = float(
            np.mean(exact_match_hits([gold_sets[i] for i in sets], [*sets.values()]))
        )
    votes: dict[Hashable, LabelSet] = {}
    tied_items: list[Hashable] = []
    # Per item, the chance the vote is right under each tie rule (1/0 without a tie).
    random_hits, best_hits, worst_hits = [], [], []
    for item in col.items:
        given_sets = [s[item] for s in by_rater.values() if item in s]
        voted, tied = label_vote(given_sets)
        votes[item] = voted
        target, fixed, free = set(gold_sets[item]), set(voted), set(tied)
        # Right under some resolution of the tied labels: the fixed labels are gold's, and
        # gold's other labels are all tied; a uniform coin per tied label hits with 2^-|tied|.
        reachable = fixed <= target and target - fixed <= free
        random_hits.append(0.5 ** len(free) if reachable else 0.0)
        best_hits.append(float(reachable))
        worst_hits.append(float(reachable and not free))
        if tied:
            tied_items.append(item)
    g = [gold_sets[i] for i in col.items]
    v = [votes[i] for i in col.items]
    metrics = multilabel_metrics(g, v)
    n = len(col.items)
    details = {
        **metrics,
        **col.details(),
        "votes": {i: list(s) for i, s in votes.items()},
        "hits": exact_match_hits(g, v).tolist(),
        "columns": label_columns(g, v),
        "tied_items": tied_items,
        "n_tied_items": len(tied_items),
        "tie_rules": {
            "ties_out": metrics["accuracy"],
            "random_expected": math.fsum(random_hits) / n,
            "tie_to_gold": math.fsum(best_hits) / n,
            "tie_away_from_gold": math.fsum(worst_hits) / n,
        },
    }
    return Score(
        metrics["accuracy"],
        HUMAN_METHOD,
        n_items=len(col.items),
        per_rater=per_rater,
        details=details,
    )


# --------------------------------------------------------------------------------------------
# Agreement: Krippendorff's α with a distance between sets


def masi_distance(a: Collection[str], b: Collection[str]) -> float:
    """MASI distance (Passonneau 2006): 1 − Jaccard × monotonicity.

    Monotonicity is 1 for equal sets, 2/3 when one holds the other, 1/3 when they overlap
    otherwise, 0 when disjoint (nltk rounds these to 0.67 and 0.33). Two empty sets are equal
    (distance 0), where nltk's ``masi_distance`` divides by zero.

    Args:
        a: one label set.
        b: another.

    Returns:
        The distance, in [0, 1].
    """
    sa, sb = set(a), set(b)
    if sa == sb:
        return 0.0
    inter, union = len(sa & sb), len(sa | sb)
    if inter == 0:
        return 1.0
    m = 2 / 3 if (sa <= sb or sb <= sa) else 1 / 3
    return 1.0 - (inter / union) * m


def jaccard_distance(a: Collection[str], b: Collection[str]) -> float:
    """1 − |a ∩ b| / |a ∪ b| (0 for two empty sets).

    Args:
        a: one label set.
        b: another.

    Returns:
        The distance, in [0, 1].
    """
    sa, sb = set(a), set(b)
    union = len(sa | sb)
    return 0.0 if union == 0 else 1.0 - len(sa & sb) / union


DISTANCES: dict[str, Callable[[Collection[str], Collection[str]], float]] = {
    "masi": masi_distance,
    "jaccard": jaccard_distance,
}


def _units(
    humans: Mapping[str, Mapping[Hashable, Any]],
) -> tuple[list[Hashable], list[list[LabelSet]]]:
    """The items answered by two or more raters, with their answers (missing values dropped)."""
    per_item: dict[Hashable, list[LabelSet]] = {}
    for rater, given in humans.items():
        if not isinstance(given, Mapping):
            raise InvalidInputError(f"ratings[{rater!r}]: expected a mapping item -> labels")
        for item, value in given.items():
            if value is not None:
                per_item.setdefault(item, []).append(as_label_set(value, f"ratings[{rater!r}]"))
    items = [i for i, v in per_item.items() if len(v) >= 2]
    return items, [per_item[i] for i in items]


def _alpha_from_counts(
    counts: NDArray[np.float64], observed: NDArray[np.float64], delta: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Krippendorff's α for each row of unit weights (one row: the data itself).

    ``counts`` (weights × values) are the pairable values' totals, ``observed`` (weights,) the
    weighted sums of per-unit disagreement.
    """
    n = counts.sum(axis=-1)
    expected = np.einsum("...c,ck,...k->...", counts, delta, counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (n - 1.0) * observed / expected
    return np.where(expected > 0, alpha, np.nan)


def set_alpha(
    humans: Mapping[str, Mapping[Hashable, Any]],
    *,
    distance: str = "masi",
    machine_raters: Iterable[str] = (),
    n_resamples: int = ALPHA_RESAMPLES,
    seed: int = 0,
) -> Agreement:
    """Krippendorff's α of set-valued answers, with missing values, and a bootstrap interval.

    From the coincidence matrix (Krippendorff 2011), δ a distance between sets: each item with
    m ≥ 2 answers adds Σ_{pairs from different raters} δ / (m − 1) to the observed disagreement;
    n_c counts each set among the pairable answers; then

        α = 1 − (n − 1) · D_o / Σ_ck n_c n_k δ_ck.

    The interval resamples items (seeded, percentile, 95 %): items are the unit a study samples.

    Args:
        humans: ``{rater: {item: [labels]}}``; a missing item or ``None`` is no answer.
        distance: ``"masi"`` or ``"jaccard"``.
        machine_raters: rater ids to leave out (models, LLMs).
        n_resamples: bootstrap resamples.
        seed: the bootstrap's seed.

    Returns:
        α with method ``krippendorff_alpha:<distance>``, band on the κ scale; NaN with a
        warning where undefined (fewer than two raters, no shared item, one set only).

    Raises:
        InvalidInputError: an unknown distance or malformed answers.
    """
    if distance not in DISTANCES:
        raise InvalidInputError(
            f"unknown set distance {distance!r}; expected one of {list(DISTANCES)}"
        )
    method = f"krippendorff_alpha:{distance}"
    machines = set(machine_raters)
    raters = {r: a for r, a in humans.items() if r not in machines}
    items, units = _units(raters)
    details: dict[str, Any] = {"scale": "kappa", "distance": distance}

    def undefined(why: str) -> Agreement:
        return Agreement(math.nan, method, "undefined", len(raters), len(items), (why,), details)

    if len(raters) < 2:
        return undefined("fewer than two raters")
    if not units:
        return undefined("no item answered by two raters")
    domain = list(dict.fromkeys(s for u in units for s in u))
    index = {s: k for k, s in enumerate(domain)}
    fn = DISTANCES[distance]
    delta = np.array([[fn(a, b) for b in domain] for a in domain])
    counts = np.zeros((len(units), len(domain)))
    per_unit = np.zeros(len(units))
    for u, values in enumerate(units):
        codes = [index[s] for s in values]
        for c in codes:
            counts[u, c] += 1
        row = counts[u]
        per_unit[u] = float(row @ delta @ row) / (len(values) - 1)
    value = float(_alpha_from_counts(counts.sum(axis=0), per_unit.sum(), delta))
    if math.isnan(value):
        return undefined("every answer is the same set: α is undefined")
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(units), size=(n_resamples, len(units)))
    weights = np.zeros((n_resamples, len(units)))
    np.add.at(weights, (np.arange(n_resamples)[:, None], draws), 1.0)
    boot = _alpha_from_counts(weights @ counts, weights @ per_unit, delta)
    boot = boot[np.isfinite(boot)]
    low, high = np.quantile(boot, [0.025, 0.975]) if boot.size else (math.nan, math.nan)
    details.update(
        {
            "interval_95": [float(low), float(high)],
            "interval_method": f"bootstrap:percentile over items ({n_resamples}, seed {seed})",
            "n_distinct_sets": len(domain),
        }
    )
    return Agreement(value, method, kappa_band(value), len(raters), len(units), (), details)
