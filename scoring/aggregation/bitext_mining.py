"""Bitext mining: mteb's metrics of a choice of translation, and the human score built on them.

mteb's ``AbsTaskBitextMining._compute_metrics`` scores the nearest neighbour each source
sentence finds among the target sentences: scikit-learn's precision, recall and F1 with
``average="weighted"`` and ``zero_division=0``, predicted target index against gold index, plus
accuracy; its main score is the F1. A person's choice among the candidate translations is scored
the same way: the labels are the target sentences themselves (a subset names each target
sentence by one candidate id on every item it appears in), so a wrong choice that is another
item's translation costs precision there, as a model's wrong neighbour does in mteb.

Several annotators become one human score as HUME scores a choice among labels: the majority
choice per item (a tie to the first candidate id in string order; the ids are drawn, so the rule
is blind to gold), then mteb's F1 over those choices. The procedure
(``ml_backend/procedures/bitext_mining.py``) scores a model's choices with :func:`mining_metrics`
too, so humans and models share one computation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scoring.aggregation.common import Answers, collect
from scoring.errors import InvalidInputError
from scoring.records import Score

__all__ = ["MAIN_SCORE", "human_bitext_mining", "mining_metrics", "weighted_f1_codes"]

#: mteb's main score of a BitextMining task.
MAIN_SCORE = "f1"


def _check_labels(gold: Sequence[Any], predicted: Sequence[Any]) -> tuple[list[str], list[str]]:
    if len(gold) != len(predicted):
        raise InvalidInputError(f"gold has {len(gold)} labels, predictions {len(predicted)}")
    if not gold:
        raise InvalidInputError("no items to score")
    bad = [x for x in (*gold, *predicted) if not isinstance(x, str | int) or isinstance(x, bool)]
    if bad:
        raise InvalidInputError(f"a choice must be a candidate id, got {bad[0]!r}")
    return [str(x) for x in gold], [str(x) for x in predicted]


def mining_metrics(gold: Sequence[Any], predicted: Sequence[Any]) -> dict[str, float]:
    """Score chosen targets against gold targets by mteb's BitextMining metrics.

    The same scikit-learn calls as ``AbsTaskBitextMining._compute_metrics`` (weighted, zero
    division 0), so a hume number is mteb's to the bit.

    Args:
        gold: the gold target of each item (an index or an id naming the target sentence).
        predicted: the chosen target of each item, named the same way.

    Returns:
        ``precision``, ``recall``, ``f1`` and ``accuracy``.

    Raises:
        InvalidInputError: different lengths, no items, or a choice that is not an id.
    """
    from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

    g, p = _check_labels(gold, predicted)
    return {
        "precision": float(precision_score(g, p, zero_division=0, average="weighted")),
        "recall": float(recall_score(g, p, zero_division=0, average="weighted")),
        "f1": float(f1_score(g, p, zero_division=0, average="weighted")),
        "accuracy": float(accuracy_score(g, p)),
    }


def weighted_f1_codes(pairs: NDArray[Any]) -> float:
    """Compute mteb's weighted F1 of ``(gold, predicted)`` rows of integer codes, in closed form.

    Why by hand: the bootstrap scores thousands of resamples, and scikit-learn's validation
    costs a millisecond each. Weighted F1 is ``Σ_l support_l / n · 2 TP_l / (support_l +
    predicted_l)``; a label without support weighs nothing, as ``zero_division=0`` has it.
    ``tests/scoring`` checks it against :func:`mining_metrics`.

    Args:
        pairs: an ``(n, 2)`` array, gold code then predicted code per item.

    Returns:
        The weighted F1.
    """
    x = np.asarray(pairs, dtype=np.int64)
    n = len(x)
    if n == 0:
        return float("nan")
    size = int(x.max()) + 1
    support = np.bincount(x[:, 0], minlength=size)
    predicted = np.bincount(x[:, 1], minlength=size)
    hits = np.bincount(x[x[:, 0] == x[:, 1], 0], minlength=size)
    has = support > 0
    f1 = 2.0 * hits[has] / (support[has] + predicted[has])
    return float(np.sum(support[has] * f1) / n)


def _vote(choices: list[Any]) -> tuple[Any, bool]:
    """The most frequent choice; a tie to the first in string order. Returns (choice, tie)."""
    counts = Counter(choices)
    top = max(counts.values())
    best = sorted((c for c, k in counts.items() if k == top), key=str)
    return best[0], len(best) > 1


def human_bitext_mining(gold: Mapping[Hashable, Any], answers: Answers) -> Score:
    """The majority choice per item, then mteb's weighted F1 against gold.

    ``per_rater`` holds each annotator's own F1 on the items they answered (with one annotator
    the vote is their answers, so the value is theirs).

    Args:
        gold: ``{item: gold candidate id}``.
        answers: ``{annotator: {item: chosen candidate id}}``; ``None`` is no answer.

    Returns:
        The F1, method ``human:majority_vote(first_id_tie_break)+mteb_f1``; the votes, the
        tied items, accuracy, precision and recall in ``details``.

    Raises:
        InvalidInputError: empty or malformed gold or answers, or a choice that is not an id.
        DegenerateInputError: no annotator answered any gold item.
    """
    col = collect(gold, answers)
    per_rater: dict[str, float] = {}
    per_rater_accuracy: dict[str, float] = {}
    for rater, given in col.by_rater.items():
        try:
            m = mining_metrics([gold[i] for i in given], list(given.values()))
        except InvalidInputError as exc:
            raise InvalidInputError(f"answers[{rater!r}]: {exc}") from None
        per_rater[rater] = m["f1"]
        per_rater_accuracy[rater] = m["accuracy"]
    votes: dict[Hashable, Any] = {}
    tied: list[Hashable] = []
    for item in col.items:
        choice, tie = _vote([g[item] for g in col.by_rater.values() if item in g])
        votes[item] = choice
        if tie:
            tied.append(item)
    m = mining_metrics([gold[i] for i in col.items], [votes[i] for i in col.items])
    names = sorted({str(gold[i]) for i in col.items} | {str(v) for v in votes.values()})
    code = {name: n for n, name in enumerate(names)}
    details = {
        **{k: v for k, v in m.items() if k != "f1"},
        **col.details(),
        "votes": votes,
        "tied_items": tied,
        "n_tied_items": len(tied),
        "per_rater_accuracy": per_rater_accuracy,
        # (gold, vote) per item as integer codes: the records the bootstrap resamples.
        "choice_codes": [[code[str(gold[i])], code[str(votes[i])]] for i in col.items],
    }
    return Score(
        m["f1"],
        "human:majority_vote(first_id_tie_break)+mteb_f1",
        n_items=len(col.items),
        per_rater=per_rater,
        details=details,
    )
