"""What every type's human aggregation shares: aligning annotators' answers to gold.

Each type's module beside this one (``scoring/aggregation/<type>.py``) turns several annotators'
answers into one human score, exactly as the HUME paper did (arXiv 2510.10062, and its
result-export script). Inputs are plain structures: ``gold`` maps item id -> gold answer and
``answers`` maps annotator id -> {item id: answer}. An item an annotator did not answer (absent
or ``None``) is skipped for that annotator and counted in ``details``; an item nobody answered
is listed in ``details`` and left out. Each result keeps every annotator's own score in
``per_rater``. This module holds only what several types use, so that it names no type.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scoring.errors import DegenerateInputError, InvalidInputError, ScoringError

__all__ = [
    "Answers",
    "Collected",
    "collect",
    "mean_over_annotators",
    "rater_error",
]

Answers = Mapping[Any, Mapping[Hashable, Any]]


def mean_over_annotators(per_rater: Mapping[str, float]) -> float:
    """The plain mean of per-annotator scores: HUME's aggregate for several types.

    Args:
        per_rater: ``{annotator: score}``.

    Returns:
        The mean.

    Raises:
        InvalidInputError: no scores, or a score that is not finite.
    """
    if not isinstance(per_rater, Mapping) or not per_rater:
        raise InvalidInputError("per_rater: expected a non-empty mapping annotator -> score")
    if len(per_rater) == 1:
        # np.mean of one value is that value plus 0.0 (numpy's sum starts from 0.0, so -0.0
        # becomes 0.0), divided by 1: the panel scores each annotator alone (issue 38)
        (one,) = per_rater.values()
        value = float(one)
        if not math.isfinite(value):
            raise InvalidInputError("per_rater: contains NaN or infinite scores")
        return value + 0.0
    values = np.asarray([float(v) for v in per_rater.values()])
    if not np.all(np.isfinite(values)):
        raise InvalidInputError("per_rater: contains NaN or infinite scores")
    return float(np.mean(values))


@dataclass
class Collected:
    """Answers aligned to gold order, with the bookkeeping that goes into ``details``."""

    items: list[Hashable]  # gold items with at least one answer, in gold order
    by_rater: dict[str, dict[Hashable, Any]] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=dict)
    unanswered: list[Hashable] = field(default_factory=list)
    silent_raters: list[str] = field(default_factory=list)

    def details(self) -> dict[str, Any]:
        """The alignment's counts, for a score's ``details``.

        Returns:
            Annotators, missing answers per annotator, unanswered items, silent annotators.
        """
        return {
            "n_annotators": len(self.by_rater),
            "n_missing_per_rater": dict(self.missing),
            "unanswered_items": list(self.unanswered),
            "n_unanswered_items": len(self.unanswered),
            "annotators_without_answers": list(self.silent_raters),
        }


def collect(
    gold: Mapping[Hashable, Any],
    answers: Answers,
    complete: Any = None,
) -> Collected:
    """Validate and align answers to gold.

    Args:
        gold: ``{item: gold answer}``, in item order.
        answers: ``{annotator: {item: answer}}``; ``None`` is no answer.
        complete: ``complete(rater, item, answer)`` says if an answer counts (default: every
            answer that is not ``None``).

    Returns:
        The answers kept per annotator, the items answered (in gold's order) and what is missing.

    Raises:
        InvalidInputError: empty or malformed gold or answers, an item not in gold, or an
            annotator named twice.
        DegenerateInputError: no annotator answered any gold item.
    """
    if not isinstance(gold, Mapping) or not gold:
        raise InvalidInputError("gold: expected a non-empty mapping item_id -> gold answer")
    if not isinstance(answers, Mapping) or not answers:
        raise InvalidInputError("answers: expected a non-empty mapping annotator -> answers")
    out = Collected(items=[])
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


def rater_error(rater: str, exc: ScoringError) -> ScoringError:
    """A metric error with the annotator named, keeping its type (the caller raises it).

    Args:
        rater: the annotator.
        exc: the metric's error.

    Returns:
        A new error of the same type whose message starts with ``answers[<rater>]``.
    """
    return type(exc)(f"answers[{rater!r}]: {exc}")
