"""STS: HUME's human score (mean rating per pair, then Spearman against gold)."""

from __future__ import annotations

import math
from array import array
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

import scoring.metrics as metrics
import scoring.score_memo as score_memo
from scoring.aggregation.common import Answers, collect, rater_error
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.records import Score

__all__ = [
    "human_sts",
]


def _rating(rater: str, item: Hashable, value: Any) -> float:
    if type(value) is float and math.isfinite(value):  # the usual case, without NumPy's call
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInputError(f"answers[{rater!r}][{item!r}]: expected a number, got {value!r}")
    if not np.isfinite(value):
        raise InvalidInputError(f"answers[{rater!r}][{item!r}]: not a finite number")
    return float(value)


def _mean_ratings(
    items: Sequence[Hashable], ratings: Mapping[str, Mapping[Hashable, float]]
) -> dict[Hashable, float]:
    """Each item's mean rating over the annotators who rated it, as ``np.mean`` of their list.

    The items every annotator rated are averaged in one ``np.mean`` over the rows of a table
    (a row's mean is the same float as the mean of its list; numpy reduces each row alike),
    the others one by one: a per-item ``np.mean`` was most of an STS score's time, and an
    export takes it for every annotator several times (issue 38).
    """
    raters = list(ratings.values())
    if len(raters) == 1 and list(raters[0]) == list(items):
        # One annotator who rated every item, in order: each table row is one rating, whose
        # np.mean is the rating plus 0.0 (numpy's sum starts from 0.0, so -0.0 becomes 0.0),
        # divided by 1. The panel scores each annotator alone, several times (issue 38).
        return {item: v + 0.0 for item, v in raters[0].items()}
    everyone = [i for i in items if all(i in r for r in raters)] if raters else []
    full: dict[Hashable, float] = {}
    if everyone:
        table = np.array([[r[i] for r in raters] for i in everyone], dtype=float)
        full = dict(zip(everyone, np.mean(table, axis=1).tolist(), strict=True))
    return {
        item: full[item] if item in full else float(np.mean([r[item] for r in raters if item in r]))
        for item in items
    }


def _own_spearman(gold_values: list[Any], ratings: list[float]) -> Score:
    """``metrics.spearman`` of one annotator's ratings against gold, kept for the subset.

    Why: an export scores each annotator in the aggregate, then again alone for the panel
    (issue 38), on the same two lists. The key is the lists' float64 bytes, the very numbers
    the metric reads (NumPy converts them alike), so a kept Score is the one a fresh call
    gives; lists that are not all numbers are not kept (the metric raises its own error), nor
    is an error. Kept within one subset's evaluation (:func:`scoring.score_memo.kept`).
    """
    try:
        key = (array("d", gold_values).tobytes(), array("d", ratings).tobytes())
    except (TypeError, ValueError, OverflowError):
        key = None
    return score_memo.kept("sts.own_spearman", key, lambda: metrics.spearman(gold_values, ratings))


def human_sts(gold: Mapping[Hashable, float], answers: Answers) -> Score:
    """Mean rating per pair across annotators, then Spearman against gold (details: Pearson).

    An annotator whose own Spearman is undefined (constant ratings) is left out of
    ``per_rater`` and named in ``details["degenerate_raters"]``; the pooled score still counts
    their ratings.

    Args:
        gold: ``{pair: gold score}``.
        answers: ``{annotator: {item: answer}}``; ``None`` is no answer.

    Returns:
        Spearman ρ of the mean ratings against gold, Pearson in ``details``.

    Raises:
        InvalidInputError: empty or malformed gold or answers, an item not in gold, an
            annotator named twice, or an answer the metric cannot read (the annotator named).
        DegenerateInputError: no annotator answered any gold item.
    """
    col = collect(gold, answers)
    ratings = {
        rater: {item: _rating(rater, item, v) for item, v in given.items()}
        for rater, given in col.by_rater.items()
    }
    per_rater: dict[str, float] = {}
    per_rater_pearson: dict[str, float] = {}
    degenerate: dict[str, str] = {}
    own: Score | None = None
    for rater, given in ratings.items():
        try:
            score = _own_spearman([gold[i] for i in given], list(given.values()))
        except DegenerateInputError as exc:
            degenerate[rater] = str(exc)
            continue
        except InvalidInputError as exc:
            if len(given) < 2:
                degenerate[rater] = str(exc)
                continue
            raise rater_error(rater, exc) from None
        per_rater[rater] = score.value
        per_rater_pearson[rater] = score.details["pearson"]
        own = score
    means = _mean_ratings(col.items, ratings)
    only = next(iter(ratings.values())) if len(ratings) == 1 else None
    if (
        only is not None
        and own is not None
        and list(only) == col.items
        and all(math.copysign(1.0, v) > 0 for v in only.values() if v == 0)
    ):
        # One annotator who rated the items in gold's order: the means are their ratings (the
        # mean of -0.0 alone is 0.0, hence the sign test), so the pooled correlation is theirs,
        # computed from the very same lists (the panel scores each annotator alone, issue 38).
        pooled = own
    else:
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
