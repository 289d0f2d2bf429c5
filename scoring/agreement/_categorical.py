"""Agreement on category labels: mean pairwise Cohen's κ, percentage agreement, Fleiss' κ."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Hashable, Sequence
from typing import Any

from scoring.agreement._input import Ratings, _prepare, _Table
from scoring.agreement._krippendorff import _krippendorff
from scoring.agreement._pairwise import _pairwise, cohen_kappa
from scoring.agreement._result import (
    WARN_DROPPED_ITEMS,
    WARN_FEWER_THAN_TWO_RATERS,
    WARN_NO_SHARED_ITEMS,
    WARN_ONE_CATEGORY,
    _mean,
    _result,
    _size_warnings,
    _skew_warnings,
    _undefined,
)
from scoring.records import Agreement


def mean_pairwise_cohen_kappa(
    ratings: Ratings, *, machine_raters: Collection[Any] = ()
) -> Agreement:
    """Mean over human rater pairs of Cohen's κ on the items both rated (HUME's pairwise κ).

    Pairs whose κ is undefined (both raters used one and the same category) are left out of the
    mean, with a warning; if every pair is undefined the value is NaN.

    Args:
        ratings: ``rater -> {item: value}``; a missing item, ``None`` or NaN is no rating.
        machine_raters: rater ids to leave out (models, LLMs); ids not in ``ratings`` are
            ignored, so a study-wide list can be passed.

    Returns:
        The mean κ, method ``"mean_pairwise_cohen_kappa"``, each pair in ``details["pairs"]``.

    Raises:
        InvalidInputError: ``ratings`` is empty or not a mapping of mappings, or a value is
            unhashable.
    """
    table = _prepare(ratings, machine_raters, numeric=False)
    return _pairwise(table, "mean_pairwise_cohen_kappa", "kappa", cohen_kappa)


def _percent(x: Sequence[Any], y: Sequence[Any]) -> float:
    return sum(1 for a, b in zip(x, y, strict=True) if a == b) / len(x)


def percentage_agreement(ratings: Ratings, *, machine_raters: Collection[Any] = ()) -> Agreement:
    """Mean over human rater pairs of the share of shared items given the same answer.

    Not chance-corrected: reported next to κ (as HUME does), band ``"uncorrected"``.

    Args:
        ratings: ``rater -> {item: value}``; a missing item, ``None`` or NaN is no rating.
        machine_raters: rater ids to leave out (models, LLMs); ids not in ``ratings`` are
            ignored, so a study-wide list can be passed.

    Returns:
        The mean share, method ``"mean_percentage_agreement"``.

    Raises:
        InvalidInputError: ``ratings`` is empty or not a mapping of mappings, or a value is
            unhashable.
    """
    table = _prepare(ratings, machine_raters, numeric=False)
    return _pairwise(table, "mean_percentage_agreement", "proportion", _percent)


def categorical_agreements(
    ratings: Ratings, *, machine_raters: Collection[Any] = ()
) -> list[Agreement]:
    """The four label statistics from one validation of ``ratings``.

    Each result is what its own function gives; validating once saves the report three passes.

    Args:
        ratings: ``rater -> {item: value}``; a missing item, ``None`` or NaN is no rating.
        machine_raters: rater ids to leave out (models, LLMs); ids not in ``ratings`` are
            ignored, so a study-wide list can be passed.

    Returns:
        [Fleiss' κ, mean pairwise Cohen's κ, percentage agreement, nominal Krippendorff's α].

    Raises:
        InvalidInputError: ``ratings`` is empty or not a mapping of mappings, or a value is
            unhashable.
    """
    table = _prepare(ratings, machine_raters, numeric=False)
    return [
        _fleiss(table),
        _pairwise(table, "mean_pairwise_cohen_kappa", "kappa", cohen_kappa),
        _pairwise(table, "mean_percentage_agreement", "proportion", _percent),
        _krippendorff(table, "nominal"),
    ]


def fleiss_kappa(ratings: Ratings, *, machine_raters: Collection[Any] = ()) -> Agreement:
    """Fleiss' κ, generalised to items with unequal numbers of raters.

    Items rated by fewer than two human raters are left out (counted in
    ``details["n_items_dropped"]``). For the remaining N items, with n_i raters on item i and
    n_ij of them choosing category j:

        P_i = Σ_j n_ij (n_ij − 1) / (n_i (n_i − 1))      observed agreement on item i
        P̄   = (1/N) Σ_i P_i
        π_j = (1/N) Σ_i n_ij / n_i                        category prevalence
        P̄_e = Σ_j π_j²
        κ   = (P̄ − P̄_e) / (1 − P̄_e)

    This is Gwet's (2014) form of Fleiss' κ for varying rater counts; when every n_i equals n it
    is exactly Fleiss (1971). With P̄_e = 1 (one category) κ is NaN with a warning.

    Args:
        ratings: ``rater -> {item: value}``; a missing item, ``None`` or NaN is no rating.
        machine_raters: rater ids to leave out (models, LLMs); ids not in ``ratings`` are
            ignored, so a study-wide list can be passed.

    Returns:
        κ, method ``"fleiss_kappa"``, with observed and expected agreement and the category
        prevalences in ``details``.

    Raises:
        InvalidInputError: ``ratings`` is empty or not a mapping of mappings, or a value is
            unhashable.
    """
    return _fleiss(_prepare(ratings, machine_raters, numeric=False))


def _fleiss(table: _Table) -> Agreement:
    method = "fleiss_kappa"
    if len(table.raters) < 2:
        return _undefined(method, "kappa", table, WARN_FEWER_THAN_TWO_RATERS)
    kept: list[Counter[Hashable]] = []
    labels: list[Hashable] = []
    for item in table.items:
        answers = [table.values[r][item] for r in table.raters_of(item)]
        if len(answers) >= 2:
            kept.append(Counter(answers))
            labels.extend(answers)
    n_items = len(kept)
    if n_items == 0:
        return _undefined(method, "kappa", table, WARN_NO_SHARED_ITEMS)
    p_items: list[float] = []
    prevalence: dict[Hashable, list[float]] = {}
    for counts in kept:
        n_i = sum(counts.values())
        p_items.append(sum(c * (c - 1) for c in counts.values()) / (n_i * (n_i - 1)))
        for cat, c in counts.items():
            prevalence.setdefault(cat, []).append(c / n_i)
    p_bar = _mean(p_items)
    pi = {cat: math.fsum(v) / n_items for cat, v in prevalence.items()}
    p_e = math.fsum(p * p for p in pi.values())
    warnings = _size_warnings(n_items)
    skew, top = _skew_warnings(labels)
    warnings += skew
    dropped = len(table.items) - n_items
    if dropped:
        warnings.append(WARN_DROPPED_ITEMS)
    if len(pi) == 1:
        value = math.nan
        warnings.insert(0, WARN_ONE_CATEGORY)
    else:
        value = (p_bar - p_e) / (1.0 - p_e)
    rater_counts = sorted({sum(c.values()) for c in kept})
    details = {
        "observed_agreement": p_bar,
        "expected_agreement": p_e,
        "category_prevalence": {str(k): v for k, v in pi.items()},
        "raters_per_item": rater_counts,
        "equal_raters_per_item": len(rater_counts) == 1,
        "n_items_total": len(table.items),
        "n_items_dropped": dropped,
        "top_category_share": top,
        "formula": "Fleiss (1971); unequal rater counts: Gwet (2014), items with <2 raters dropped",
    }
    return _result(value, method, "kappa", table, n_items, warnings, details)
