"""One subset's label metrics taken once for the same labels (:func:`shared_scores`).

Why: an export scores each annotator inside the aggregate (its ``per_rater``) and then again
alone, for the which-human panel, on the same items in the same order (issue 38); for
clustering each of those is a V-measure with its adjusted mutual information, a third of a
clustering subset's time. Within :func:`shared_scores` (one subset's evaluation,
:func:`scoring.subset_report.evaluate_subset`), a metric marked :func:`memoised` and called again
on equal string labels returns what its first call returned: the same floats, by construction.

The memo lives for the block only: a second export, or a second subset, computes everything
again, so a benchmark that repeats an export measures the computation, not a cache.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from scoring.records import Score

__all__ = ["memoised", "shared_scores"]

_MEMO: ContextVar[dict[tuple[Any, ...], Score] | None] = ContextVar("score_memo", default=None)

F = TypeVar("F", bound=Callable[..., Score])


@contextmanager
def shared_scores() -> Iterator[None]:
    """Within the block, a :func:`memoised` metric computes each set of labels once."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def _key(name: str, gold: Any, pred: Any) -> tuple[Any, ...] | None:
    """The memo key: the metric and both label lists, where every label is a plain ``str``.

    Only plain strings: ``1``, ``1.0`` and ``True`` are equal keys but not the same labels to
    a metric, and a list or array input may be changed in place by its caller.
    """
    if type(gold) is not list or type(pred) is not list:
        return None
    if not all(type(v) is str for v in gold) or not all(type(v) is str for v in pred):
        return None
    return (name, tuple(gold), tuple(pred))


def memoised(metric: F) -> F:
    """Mark a metric of (gold labels, predicted labels) as shared within :func:`shared_scores`.

    Outside the block it is the metric. Inside, each call gets its own :class:`Score` (its
    ``details`` a fresh dict), so no caller sees another's changes.
    """

    @functools.wraps(metric)
    def shared(gold: Any, pred: Any) -> Score:
        memo = _MEMO.get()
        key = None if memo is None else _key(metric.__qualname__, gold, pred)
        if key is None:
            return metric(gold, pred)
        assert memo is not None
        first = memo.get(key)
        if first is None:
            first = memo[key] = metric(gold, pred)
        return Score(
            first.value, first.method, first.n_items, dict(first.per_rater), dict(first.details)
        )

    return shared  # type: ignore[return-value]
