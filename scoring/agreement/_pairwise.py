"""Cohen's κ of two raters, and the mean over rater pairs that the pairwise statistics share."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from itertools import combinations
from typing import Any

from scoring.agreement._bands import Scale
from scoring.agreement._input import _Table
from scoring.agreement._result import (
    WARN_DROPPED_ITEMS,
    WARN_FEWER_THAN_TWO_RATERS,
    WARN_NO_SHARED_ITEMS,
    WARN_ONE_CATEGORY,
    WARN_UNDEFINED_COMPARISONS,
    _mean,
    _result,
    _size_warnings,
    _skew_warnings,
    _undefined,
)
from scoring.errors import InvalidInputError
from scoring.records import Agreement


def _shared(table: _Table, a: Any, b: Any) -> list[Hashable]:
    va, vb = table.values[a], table.values[b]
    return [i for i in va if i in vb]


def cohen_kappa(x: Sequence[Hashable], y: Sequence[Hashable]) -> float:
    """Cohen's κ of two aligned label sequences; NaN when chance agreement is 1 (one category).

    Computed from integer counts, so it is exactly symmetric in ``x`` and ``y``.

    Args:
        x: one rater's labels.
        y: the other rater's labels on the same items, in the same order.

    Returns:
        κ; NaN for empty sequences or a single category.

    Raises:
        InvalidInputError: the sequences differ in length.
    """
    if len(x) != len(y):
        raise InvalidInputError(f"length mismatch: x={len(x)}, y={len(y)}")
    n = len(x)
    if n == 0:
        return math.nan
    agree = sum(1 for a, b in zip(x, y, strict=True) if a == b)
    cx, cy = Counter(x), Counter(y)
    pe_num = sum(c * cy.get(k, 0) for k, c in cx.items())
    denom = n * n - pe_num
    if denom == 0:
        return math.nan
    return (agree * n - pe_num) / denom


def _pairwise(
    table: _Table,
    method: str,
    scale: Scale,
    pair_value: Callable[[list[Any], list[Any]], float],
    *,
    min_shared: int = 1,
    undefined_warning: str = WARN_ONE_CATEGORY,
    categorical: bool = True,
) -> Agreement:
    """Mean over rater pairs of ``pair_value`` on the items both raters rated."""
    if len(table.raters) < 2:
        return _undefined(method, scale, table, WARN_FEWER_THAN_TWO_RATERS)
    pairs: list[dict[str, Any]] = []
    used_items: dict[Hashable, None] = {}
    for a, b in combinations(table.raters, 2):
        shared = _shared(table, a, b)
        if len(shared) < min_shared:
            continue
        xa = [table.values[a][i] for i in shared]
        xb = [table.values[b][i] for i in shared]
        value = pair_value(xa, xb)
        pairs.append({"raters": [a, b], "value": float(value), "n_items": len(shared)})
        used_items.update(dict.fromkeys(shared))
    if not pairs:
        return _undefined(method, scale, table, WARN_NO_SHARED_ITEMS)
    defined = [p["value"] for p in pairs if math.isfinite(p["value"])]
    n_items = len(used_items)
    warnings = _size_warnings(n_items)
    top_share = math.nan
    if categorical:
        labels = [
            table.values[r][i] for r in table.raters for i in used_items if i in table.values[r]
        ]
        skew, top_share = _skew_warnings(labels)
        warnings += skew
    if not defined:
        warnings.insert(0, undefined_warning)
    elif len(defined) < len(pairs):
        warnings.append(WARN_UNDEFINED_COMPARISONS)
    if len(used_items) < len(table.items):
        warnings.append(WARN_DROPPED_ITEMS)
    details: dict[str, Any] = {
        "pairs": pairs,
        "n_pairs": len(pairs),
        "n_pairs_defined": len(defined),
        "n_items_total": len(table.items),
        "n_items_dropped": len(table.items) - n_items,
    }
    if categorical:
        details["top_category_share"] = top_share
    return _result(_mean(defined), method, scale, table, n_items, warnings, details)
