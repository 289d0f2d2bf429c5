"""Classification: HUME's human score (majority vote per item, then accuracy).

A tie goes to the alphabetically first label, as in HUME; ``details`` gives the accuracy under
other tie rules too.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping
from typing import Any

import scoring.metrics as metrics
from scoring.aggregation.common import Answers, collect, rater_error
from scoring.errors import ScoringError
from scoring.records import Score

__all__ = [
    "human_classification",
]


def _vote(labels: list[Any]) -> tuple[Any, bool, list[Any]]:
    """The vote of one item: its label, whether it was a tie, and the labels given most often.

    The most frequent label wins; a tie goes to the first label in string order. One count
    per item serves the vote and the tie rules (two counts per item, and a count for a lone
    answer, were a fifth of scoring an annotator alone, issue 38).
    """
    if len(labels) == 1:  # one answer: it is the vote, untied
        return labels[0], False, labels
    if len(labels) == 2:  # two answers (HUME's overlap): what the count below gives, uncounted
        a, b = labels
        if a is b or a == b:  # as a dict key matches
            return a, False, [a]
        # both top; sorted(key=str) is stable, so equal strings keep the order given
        return (a if str(a) <= str(b) else b), True, [a, b]
    counts = Counter(labels)
    top = max(counts.values())
    most = [label for label, c in counts.items() if c == top]
    best = sorted(most, key=str)
    return best[0], len(best) > 1, most


def human_classification(gold: Mapping[Hashable, Any], answers: Answers) -> Score:
    """Majority vote per item (alphabetical tie-break), then accuracy against gold.

    ``per_rater`` holds each annotator's accuracy on the items they answered; with a single
    annotator the vote is their answers, so the value equals their accuracy (as in HUME).

    Args:
        gold: ``{item: label}``.
        answers: ``{annotator: {item: answer}}``; ``None`` is no answer.

    Returns:
        The vote's accuracy, method ``human:majority_vote(alphabetical_tie_break)+accuracy``,
        the votes, the tied items and the score under other tie rules in ``details``.

    Raises:
        InvalidInputError: empty or malformed gold or answers, an item not in gold, an
            annotator named twice, or an answer the metric cannot read (the annotator named).
        DegenerateInputError: no annotator answered any gold item.
    """
    col = collect(gold, answers)
    per_rater: dict[str, float] = {}
    per_rater_f1: dict[str, float] = {}
    score: Score | None = None
    for rater, given in col.by_rater.items():
        try:
            score = metrics.accuracy([gold[i] for i in given], list(given.values()))
        except ScoringError as exc:
            raise rater_error(rater, exc) from None
        per_rater[rater] = score.value
        per_rater_f1[rater] = score.details["f1"]
    votes: dict[Hashable, Any] = {}
    tied: list[Hashable] = []
    # Per item, the chance the vote is right under each tie rule (1/0 without a tie).
    random_hits: list[float] = []
    best_hits: list[float] = []
    worst_hits: list[float] = []
    if len(col.by_rater) == 1:
        # One annotator (the panel's and the LLMs' calls): each vote is their answer, untied,
        # and right exactly where `gold in [answer]` (what _vote's one-answer case gives the
        # loop below), so every tie rule counts the same hits.
        (votes,) = (dict(given) for given in col.by_rater.values())
        best_hits = [float(gold[i] is a or gold[i] == a) for i, a in votes.items()]
        random_hits = worst_hits = best_hits
    for item in col.items if not votes else ():
        labels = [g[item] for g in col.by_rater.values() if item in g]
        label, tie, top = _vote(labels)
        votes[item] = label
        right = gold[item] in top
        random_hits.append(right / len(top))
        best_hits.append(float(right))
        worst_hits.append(float(right and len(top) == 1))
        if tie:
            tied.append(item)
    if len(col.by_rater) == 1 and score is not None:
        # One annotator: the votes are their answers on the same items, and accuracy, F1,
        # precision and recall count (gold, answer) pairs in any order, so their score is the
        # vote's to the bit. The panel scores each annotator alone (issue 38).
        vote_score = score
    else:
        vote_score = metrics.accuracy([gold[i] for i in col.items], [votes[i] for i in col.items])
    n = len(col.items)
    tied_set = set(tied)
    untied = [h for i, h in zip(col.items, best_hits, strict=True) if i not in tied_set]
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
