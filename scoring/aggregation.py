"""Turn several annotators' answers into one human score, exactly as the HUME paper did.

Inputs are plain structures: ``gold`` maps item id -> gold answer and ``answers`` maps
annotator id -> {item id: answer}. An item an annotator did not answer (absent or ``None``) is
skipped for that annotator and counted in ``details``; an item nobody answered is listed in
``details`` and left out. Each result keeps every annotator's own score in ``per_rater``.

HUME's rules (arXiv 2510.10062, and its result-export script):

* classification: majority vote per item, a tie going to the alphabetically first label, then
  accuracy; reranking, clustering: the metric per annotator, then the mean over annotators;
  STS: the mean rating per pair, then Spearman against gold.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scoring import metrics
from scoring.errors import DegenerateInputError, InvalidInputError, ScoringError
from scoring.records import Score
from scoring.validation import choose

Answers = Mapping[Any, Mapping[Hashable, Any]]

#: Tie rule for MRR/nDCG that goes with each AP method: HUME's script ranked marks in their given
#: order (``np.argsort(-marks)``, assumed stable), trec_eval by id descending.
TIES_FOR_AP_METHOD: Mapping[str, str] = {
    "sklearn": "input_order",
    "trec_eval": "trec_eval",
    "expected_ties": "expected_ties",
}


def mean_over_annotators(per_rater: Mapping[str, float]) -> float:
    """The plain mean of per-annotator scores: HUME's aggregate for clustering and reranking."""
    if not isinstance(per_rater, Mapping) or not per_rater:
        raise InvalidInputError("per_rater: expected a non-empty mapping annotator -> score")
    values = np.asarray([float(v) for v in per_rater.values()])
    if not np.all(np.isfinite(values)):
        raise InvalidInputError("per_rater: contains NaN or infinite scores")
    return float(np.mean(values))


@dataclass
class _Collected:
    """Answers aligned to gold order, with the bookkeeping that goes into ``details``."""

    items: list[Hashable]  # gold items with at least one answer, in gold order
    by_rater: dict[str, dict[Hashable, Any]] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=dict)
    unanswered: list[Hashable] = field(default_factory=list)
    silent_raters: list[str] = field(default_factory=list)

    def details(self) -> dict[str, Any]:
        return {
            "n_annotators": len(self.by_rater),
            "n_missing_per_rater": dict(self.missing),
            "unanswered_items": list(self.unanswered),
            "n_unanswered_items": len(self.unanswered),
            "annotators_without_answers": list(self.silent_raters),
        }


def _collect(
    gold: Mapping[Hashable, Any],
    answers: Answers,
    complete: Any = None,
) -> _Collected:
    """Validate and align answers; ``complete(rater, item, answer)`` says if an answer counts."""
    if not isinstance(gold, Mapping) or not gold:
        raise InvalidInputError("gold: expected a non-empty mapping item_id -> gold answer")
    if not isinstance(answers, Mapping) or not answers:
        raise InvalidInputError("answers: expected a non-empty mapping annotator -> answers")
    out = _Collected(items=[])
    answered: set[Hashable] = set()
    for rater, given in answers.items():
        name = str(rater)
        if name in out.by_rater or name in out.silent_raters:
            raise InvalidInputError(f"answers: annotator id {name!r} appears twice")
        if not isinstance(given, Mapping):
            raise InvalidInputError(f"answers[{name!r}]: expected a mapping item_id -> answer")
        unknown = [item for item in given if item not in gold]
        if unknown:
            raise InvalidInputError(f"answers[{name!r}]: items not in gold: {unknown[:5]!r}")
        kept = {
            item: given[item]
            for item in gold
            if given.get(item) is not None
            and (complete is None or complete(name, item, given[item]))
        }
        if not kept:
            out.silent_raters.append(name)
            continue
        out.by_rater[name] = kept
        out.missing[name] = len(gold) - len(kept)
        answered.update(kept)
    if not out.by_rater:
        raise DegenerateInputError("answers: no annotator answered any gold item")
    out.items = [item for item in gold if item in answered]
    out.unanswered = [item for item in gold if item not in answered]
    return out


def _rater_error(rater: str, exc: ScoringError) -> ScoringError:
    """Re-raise a metric error with the annotator named, keeping its type."""
    return type(exc)(f"answers[{rater!r}]: {exc}")


def _vote(labels: list[Any]) -> tuple[Any, bool]:
    """Most frequent label; a tie goes to the first label in string order. Returns (label, tie)."""
    counts = Counter(labels)
    top = max(counts.values())
    best = sorted((label for label, c in counts.items() if c == top), key=str)
    return best[0], len(best) > 1


def _top_labels(labels: list[Any]) -> list[Any]:
    """The labels given most often to one item (several on a tie)."""
    counts = Counter(labels)
    top = max(counts.values())
    return [label for label, c in counts.items() if c == top]


def human_classification(gold: Mapping[Hashable, Any], answers: Answers) -> Score:
    """Majority vote per item (alphabetical tie-break), then accuracy against gold.

    ``per_rater`` holds each annotator's accuracy on the items they answered; with a single
    annotator the vote is their answers, so the value equals their accuracy (as in HUME).
    """
    col = _collect(gold, answers)
    per_rater: dict[str, float] = {}
    per_rater_f1: dict[str, float] = {}
    for rater, given in col.by_rater.items():
        try:
            score = metrics.accuracy([gold[i] for i in given], list(given.values()))
        except ScoringError as exc:
            raise _rater_error(rater, exc) from None
        per_rater[rater] = score.value
        per_rater_f1[rater] = score.details["f1"]
    votes: dict[Hashable, Any] = {}
    tied: list[Hashable] = []
    # Per item, the chance the vote is right under each tie rule (1/0 without a tie).
    random_hits, best_hits, worst_hits = [], [], []
    for item in col.items:
        labels = [g[item] for g in col.by_rater.values() if item in g]
        label, tie = _vote(labels)
        votes[item] = label
        top = _top_labels(labels)
        right = gold[item] in top
        random_hits.append(right / len(top))
        best_hits.append(float(right))
        worst_hits.append(float(right and len(top) == 1))
        if tie:
            tied.append(item)
    vote_score = metrics.accuracy([gold[i] for i in col.items], [votes[i] for i in col.items])
    n = len(col.items)
    untied = [h for i, h in zip(col.items, best_hits, strict=True) if i not in set(tied)]
    tie_rules = {
        "alphabetical": vote_score.value,
        "random_expected": math.fsum(random_hits) / n if n else math.nan,
        "tie_to_gold": math.fsum(best_hits) / n if n else math.nan,
        "tie_away_from_gold": math.fsum(worst_hits) / n if n else math.nan,
        "untied_items_only": math.fsum(untied) / len(untied) if untied else math.nan,
    }
    details = {
        **vote_score.details,
        **col.details(),
        "votes": votes,
        "tied_items": tied,
        "n_tied_items": len(tied),
        "tie_rules": tie_rules,
        "per_rater_f1": per_rater_f1,
    }
    return Score(
        vote_score.value,
        "human:majority_vote(alphabetical_tie_break)+accuracy",
        n_items=len(col.items),
        per_rater=per_rater,
        details=details,
    )


def flatten_clustering(
    gold: Mapping[Hashable, Mapping[str, Any]], answers: Mapping[str, Mapping[Hashable, Any]]
) -> tuple[dict[Hashable, Any], dict[str, dict[Hashable, Any]]]:
    """Sets of texts → one text-level mapping (text ids are unique within a study subset).

    A clustering item is a set of texts (``{text_id: label}`` in gold, ``{text_id: group}`` in an
    answer); scores and agreement compare texts. Group names are made set-specific so that
    "group_1" of two different sets never merge.
    """
    flat_gold: dict[Hashable, Any] = {
        f"{s}/{t}": lab for s, g in gold.items() for t, lab in g.items()
    }
    flat_answers: dict[str, dict[Hashable, Any]] = {
        rater: {f"{s}/{t}": f"{s}/{grp}" for s, a in given.items() if a for t, grp in a.items()}
        for rater, given in answers.items()
    }
    return flat_gold, flat_answers


def human_clustering(gold: Mapping[Hashable, Any], answers: Answers) -> Score:
    """V-measure of each annotator's partition against gold, then the mean over annotators.

    Uses sklearn throughout; HUME's script set a single-cluster partition to 0, which sklearn
    also gives except when gold itself has a single class.
    """
    col = _collect(gold, answers)
    per_rater: dict[str, float] = {}
    ari: dict[str, float] = {}
    ami: dict[str, float] = {}
    for rater, given in col.by_rater.items():
        try:
            score = metrics.v_measure([gold[i] for i in given], list(given.values()))
        except ScoringError as exc:
            raise _rater_error(rater, exc) from None
        per_rater[rater] = score.value
        ari[rater] = score.details["ari"]
        ami[rater] = score.details["ami"]
    details = {
        "ari": mean_over_annotators(ari),
        "ami": mean_over_annotators(ami),
        "per_rater_ari": ari,
        "per_rater_ami": ami,
        **col.details(),
    }
    return Score(
        mean_over_annotators(per_rater),
        "human:mean_over_annotators(v_measure)",
        n_items=len(col.items),
        per_rater=per_rater,
        details=details,
    )


def _rating(rater: str, item: Hashable, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInputError(f"answers[{rater!r}][{item!r}]: expected a number, got {value!r}")
    if not np.isfinite(value):
        raise InvalidInputError(f"answers[{rater!r}][{item!r}]: not a finite number")
    return float(value)


def human_sts(gold: Mapping[Hashable, float], answers: Answers) -> Score:
    """Mean rating per pair across annotators, then Spearman against gold (details: Pearson).

    An annotator whose own Spearman is undefined (constant ratings) is left out of
    ``per_rater`` and named in ``details["degenerate_raters"]``; the pooled score still counts
    their ratings.
    """
    col = _collect(gold, answers)
    ratings = {
        rater: {item: _rating(rater, item, v) for item, v in given.items()}
        for rater, given in col.by_rater.items()
    }
    per_rater: dict[str, float] = {}
    per_rater_pearson: dict[str, float] = {}
    degenerate: dict[str, str] = {}
    for rater, given in ratings.items():
        try:
            score = metrics.spearman([gold[i] for i in given], list(given.values()))
        except DegenerateInputError as exc:
            degenerate[rater] = str(exc)
            continue
        except InvalidInputError as exc:
            if len(given) < 2:
                degenerate[rater] = str(exc)
                continue
            raise _rater_error(rater, exc) from None
        per_rater[rater] = score.value
        per_rater_pearson[rater] = score.details["pearson"]
    means = {
        item: float(np.mean([r[item] for r in ratings.values() if item in r])) for item in col.items
    }
    pooled = metrics.spearman([gold[i] for i in col.items], [means[i] for i in col.items])
    details = {
        "pearson": pooled.details["pearson"],
        "per_rater_pearson": per_rater_pearson,
        "degenerate_raters": degenerate,
        "mean_ratings": means,
        **col.details(),
    }
    return Score(
        pooled.value,
        "human:mean_rating+spearman",
        n_items=len(col.items),
        per_rater=per_rater,
        details=details,
    )


def human_reranking(
    gold: Mapping[Hashable, Mapping[Hashable, int]],
    answers: Answers,
    ap_method: str = "sklearn",
    k: int = 10,
    ties: str | None = None,
) -> Score:
    """Per annotator: AP of their binary marks per query, mean over queries; then mean over
    annotators. MRR@k and nDCG@k are aggregated the same way into ``details``.

    ``gold`` is {query: {candidate: 0/1}}; its candidate order is the ranking order of tied
    marks. ``ties`` (MRR/nDCG only) defaults to the rule that goes with ``ap_method``
    (:data:`TIES_FOR_AP_METHOD`). A query is used for an annotator only if they marked every
    candidate; queries without a relevant candidate are skipped, as mteb does.
    """
    choose(ap_method, metrics.AP_METHODS, "average-precision method")
    tie_rule = TIES_FOR_AP_METHOD[ap_method] if ties is None else ties
    choose(tie_rule, metrics.TIE_RULES, "tie rule")
    if not isinstance(gold, Mapping) or not gold:
        raise InvalidInputError("gold: expected a non-empty mapping query_id -> {candidate: 0/1}")
    for qid, cands in gold.items():
        if not isinstance(cands, Mapping) or not cands:
            raise InvalidInputError(f"gold[{qid!r}]: expected a non-empty mapping candidate -> 0/1")

    def complete(rater: str, qid: Hashable, marks: Any) -> bool:
        where = f"answers[{rater!r}][{qid!r}]"
        if not isinstance(marks, Mapping):
            raise InvalidInputError(f"{where}: expected a mapping candidate -> mark")
        unknown = [c for c in marks if c not in gold[qid]]
        if unknown:
            raise InvalidInputError(f"{where}: unknown candidates {unknown[:5]!r}")
        return all(marks.get(c) is not None for c in gold[qid])

    col = _collect(gold, answers, complete)
    per_rater: dict[str, float] = {}
    per_mrr: dict[str, float] = {}
    per_ndcg: dict[str, float] = {}
    per_query_ap: dict[str, Mapping[Hashable, float]] = {}
    unscorable: list[str] = []
    no_relevant: set[Hashable] = set()
    for rater, given in col.by_rater.items():
        queries = {
            qid: ([gold[qid][c] for c in gold[qid]], [marks[c] for c in gold[qid]])
            for qid, marks in given.items()
        }
        try:
            ap, rr, ndcg = metrics.mean_ranking_scores(queries, ap_method, k=k, ties=tie_rule)
        except DegenerateInputError:
            unscorable.append(rater)
            no_relevant.update(queries)
            continue
        except InvalidInputError as exc:
            raise _rater_error(rater, exc) from None
        no_relevant.update(ap.details["no_relevant_queries"])
        per_rater[rater] = ap.value
        per_mrr[rater] = rr.value
        per_ndcg[rater] = ndcg.value
        per_query_ap[rater] = ap.details["per_query"]
    if not per_rater:
        raise DegenerateInputError("answers: no annotated query has a relevant candidate")
    details = {
        f"mrr@{k}": mean_over_annotators(per_mrr),
        f"ndcg@{k}": mean_over_annotators(per_ndcg),
        f"per_rater_mrr@{k}": per_mrr,
        f"per_rater_ndcg@{k}": per_ndcg,
        "per_rater_per_query_ap": per_query_ap,
        "ties": tie_rule,
        "no_relevant_queries": [q for q in gold if q in no_relevant],
        "annotators_without_scorable_queries": unscorable,
        **col.details(),
    }
    return Score(
        mean_over_annotators(per_rater),
        f"human:mean_over_annotators(mean_over_queries(map:{ap_method}))",
        n_items=len([q for q in col.items if q not in no_relevant]),
        per_rater=per_rater,
        details=details,
    )
