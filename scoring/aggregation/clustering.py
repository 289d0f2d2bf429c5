"""Clustering: HUME's human score (V-measure per annotator, then the mean over annotators)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import scoring.metrics as metrics
from scoring.aggregation.common import Answers, collect, mean_over_annotators, rater_error
from scoring.errors import ScoringError
from scoring.records import Score

__all__ = [
    "flatten_clustering",
    "human_clustering",
]


def flatten_clustering(
    gold: Mapping[Hashable, Mapping[str, Any]], answers: Mapping[str, Mapping[Hashable, Any]]
) -> tuple[dict[Hashable, Any], dict[str, dict[Hashable, Any]]]:
    """Sets of texts → one text-level mapping (text ids are unique within a study subset).

    A clustering item is a set of texts (``{text_id: label}`` in gold, ``{text_id: group}`` in an
    answer); scores and agreement compare texts. Group names are made set-specific so that
    "group_1" of two different sets never merge.

    Args:
        gold: ``{set: {text: label}}``.
        answers: ``{annotator: {set: {text: group}}}``.

    Returns:
        (``{"set/text": label}``, ``{annotator: {"set/text": "set/group"}}``).
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

    Args:
        gold: ``{text: label}`` (see :func:`flatten_clustering`).
        answers: ``{annotator: {text: group}}``; ``None`` is no answer.

    Returns:
        The mean V-measure, method ``human:mean_over_annotators(v_measure)``, mean ARI and AMI
        in ``details``.

    Raises:
        InvalidInputError: empty or malformed gold or answers, an item not in gold, an
            annotator named twice, or an answer the metric cannot read (the annotator named).
        DegenerateInputError: no annotator answered any gold item.
    """
    col = collect(gold, answers)
    per_rater: dict[str, float] = {}
    ari: dict[str, float] = {}
    ami: dict[str, float] = {}
    for rater, given in col.by_rater.items():
        try:
            score = metrics.v_measure([gold[i] for i in given], list(given.values()))
        except ScoringError as exc:
            raise rater_error(rater, exc) from None
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
