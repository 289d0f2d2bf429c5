"""Validated ratings: the ``rater -> {item: value}`` mapping checked once, machines left out."""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scoring._lazy import LazyModule
from scoring.errors import InvalidInputError

# Loaded on first use: the leaderboard imports the agreement package for its bands only.
if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")


Ratings = Mapping[Any, Mapping[Hashable, Any]]


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    return False


@dataclass
class _Table:
    """Human ratings after validation: raters in input order, items in first-seen order."""

    raters: list[Any]
    items: list[Hashable]
    values: dict[Any, dict[Hashable, Any]]
    excluded: list[Any]

    def raters_of(self, item: Hashable) -> list[Any]:
        return [r for r in self.raters if item in self.values[r]]


def _clean_value(value: Any, rater: Any, item: Hashable, numeric: bool) -> Any:
    if numeric:
        if isinstance(value, bool | np.bool_):
            return float(value)
        try:
            out = float(value)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"rater {rater!r}, item {item!r}: expected a number, got {value!r}"
            ) from None
        if not math.isfinite(out):
            raise InvalidInputError(f"rater {rater!r}, item {item!r}: infinite value")
        return out
    try:
        hash(value)
    except TypeError:
        raise InvalidInputError(
            f"rater {rater!r}, item {item!r}: a category must be hashable, got {value!r}"
        ) from None
    if isinstance(value, np.generic):
        return value.item()
    return value


def _prepare(ratings: Ratings, machine_raters: Collection[Any], *, numeric: bool) -> _Table:
    """Validate ``ratings``, drop machine raters and missing values."""
    if not isinstance(ratings, Mapping):
        raise InvalidInputError(
            f"ratings: expected a mapping rater -> {{item: value}}, got {type(ratings).__name__}"
        )
    if len(ratings) == 0:
        raise InvalidInputError("ratings: no raters")
    if isinstance(machine_raters, str):
        raise InvalidInputError("machine_raters: expected a collection of rater ids, got a str")
    machines = set(machine_raters)
    raters: list[Any] = []
    excluded: list[Any] = []
    values: dict[Any, dict[Hashable, Any]] = {}
    items: dict[Hashable, None] = {}
    for rater, answers in ratings.items():
        if not isinstance(answers, Mapping):
            raise InvalidInputError(
                f"rater {rater!r}: expected a mapping item -> value, got {type(answers).__name__}"
            )
        if rater in machines:
            excluded.append(rater)
            continue
        clean: dict[Hashable, Any] = {}
        for item, value in answers.items():
            kind = type(value)
            if numeric and (kind is int or (kind is float and math.isfinite(value))):
                # what the checks below make of a finite float or a plain int, without them:
                # ~2 µs a value, and an export takes every rating of every subset (issue 38)
                clean[item] = float(value)
            elif _is_missing(value):
                continue
            else:
                clean[item] = _clean_value(value, rater, item, numeric)
            items.setdefault(item, None)
        raters.append(rater)
        values[rater] = clean
    return _Table(raters=raters, items=list(items), values=values, excluded=excluded)


def ratings_from_matrix(
    matrix: Any,
    raters: Sequence[Any] | None = None,
    items: Sequence[Hashable] | None = None,
) -> dict[Any, dict[Hashable, Any]]:
    """Turn a raters × items matrix (NaN or ``None`` = missing) into the ratings mapping.

    Convenient for reliability-data tables such as Krippendorff's examples.

    Args:
        matrix: a 2-D array-like, one row per rater, one column per item.
        raters: the row ids (default 0, 1, …).
        items: the column ids (default 0, 1, …).

    Returns:
        ``rater -> {item: value}`` without the missing cells; NumPy scalars become Python ones.

    Raises:
        InvalidInputError: the matrix is not 2-D, or the ids do not match its shape or repeat.
    """
    arr = np.asarray(matrix, dtype=object)
    if arr.ndim != 2:
        raise InvalidInputError(f"matrix: expected 2-D raters × items, got shape {arr.shape}")
    n_r, n_i = arr.shape
    rater_ids = list(range(n_r)) if raters is None else list(raters)
    item_ids = list(range(n_i)) if items is None else list(items)
    if len(rater_ids) != n_r or len(item_ids) != n_i:
        raise InvalidInputError(
            f"matrix of shape {arr.shape} does not match {len(rater_ids)} raters "
            f"and {len(item_ids)} items"
        )
    if len(set(rater_ids)) != n_r or len(set(item_ids)) != n_i:
        raise InvalidInputError("matrix: rater and item ids must be unique")
    out: dict[Any, dict[Hashable, Any]] = {}
    for r, rid in enumerate(rater_ids):
        out[rid] = {
            item_ids[i]: arr[r, i].item() if isinstance(arr[r, i], np.generic) else arr[r, i]
            for i in range(n_i)
            if not _is_missing(arr[r, i])
        }
    return out
