"""Warnings, size and skew checks, and the Agreement record that every statistic returns."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from scoring.agreement._bands import Scale, agreement_band
from scoring.agreement._input import _Table
from scoring.records import Agreement

#: Fewer items than this trigger :data:`WARN_FEW_ITEMS`.
MIN_ITEMS = 10
#: A category holding more than this share of the ratings triggers :data:`WARN_SKEWED`.
SKEW_THRESHOLD = 0.9

WARN_FEWER_THAN_TWO_RATERS = "fewer than two human raters: agreement is undefined"
WARN_NO_SHARED_ITEMS = "no item was rated by two raters: agreement is undefined"
WARN_FEW_ITEMS = "fewer than 10 items: agreement is unreliable"
WARN_ONE_CATEGORY = "only one category used: chance-corrected agreement is undefined"
WARN_SKEWED = (
    "skewed prevalence: one category holds more than 90% of ratings, "
    "so kappa can be low despite high raw agreement"
)
WARN_CONSTANT = "constant ratings: correlation is undefined"
WARN_UNDEFINED_COMPARISONS = "some comparisons were undefined and were left out of the mean"
WARN_DROPPED_ITEMS = "items rated by fewer than two raters were left out"
WARN_NO_HUMANS = "no human raters to compare the machine rater with"


def _mean(values: Iterable[float]) -> float:
    """Mean with :func:`math.fsum`, so the result does not depend on the order of terms."""
    vals = list(values)
    return math.fsum(vals) / len(vals) if vals else math.nan


def _result(
    value: float,
    method: str,
    scale: Scale,
    table: _Table | None,
    n_items: int,
    warnings: Iterable[str],
    details: Mapping[str, Any],
    n_raters: int | None = None,
) -> Agreement:
    warns = tuple(dict.fromkeys(warnings))  # dedupe, keep order
    full = {"scale": scale, **details}
    if table is not None:
        full["excluded_machine_raters"] = list(table.excluded)
    value = float(value)
    return Agreement(
        value=value,
        method=method,
        band=agreement_band(value, scale),
        n_raters=n_raters if n_raters is not None else (len(table.raters) if table else 0),
        n_items=int(n_items),
        warnings=warns,
        details=full,
    )


def _undefined(
    method: str, scale: Scale, table: _Table, warning: str, details: Mapping[str, Any] | None = None
) -> Agreement:
    return _result(math.nan, method, scale, table, 0, [warning], details or {})


def _size_warnings(n_items: int) -> list[str]:
    return [WARN_FEW_ITEMS] if 0 < n_items < MIN_ITEMS else []


def _skew_warnings(labels: Iterable[Hashable]) -> tuple[list[str], float]:
    counts = Counter(labels)
    total = sum(counts.values())
    if total == 0:
        return [], math.nan
    top = max(counts.values()) / total
    return ([WARN_SKEWED] if top > SKEW_THRESHOLD else []), top
