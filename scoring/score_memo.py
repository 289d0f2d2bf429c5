"""One subset's scores taken once for the same inputs (:func:`shared_scores`).

Why: an export scores each annotator inside the aggregate (its ``per_rater``) and then again
alone, for the which-human panel, on the same items in the same order (issue 38); for
clustering each of those is a V-measure with its adjusted mutual information, a third of a
clustering subset's time. Within :func:`shared_scores` (one subset's evaluation,
:func:`scoring.subset_report.evaluate_subset`), a metric marked :func:`memoised` and called again
on equal string labels returns what its first call returned: the same floats, by construction.

Other repeated work of one subset is kept the same way through :func:`kept` (an STS
annotator's Spearman, a reranking annotator's query scores, a Spearman bootstrap's values).

The memo lives for the block only: a second export, or a second subset, computes everything
again, so a benchmark that repeats an export measures the computation, not a cache.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from scoring.records import Score

__all__ = ["kept", "memoised", "shared_scores"]

_MEMO: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar("score_memo", default=None)

F = TypeVar("F", bound=Callable[..., Score])
T = TypeVar("T")


@contextmanager
def shared_scores() -> Iterator[None]:
    """Within the block, a :func:`memoised` metric computes each set of labels once.

    Yields:
        Nothing: the block is the memo's lifetime.
    """
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def kept(name: str, key: Hashable | None, compute: Callable[[], T]) -> T:
    """``compute()``, or within :func:`shared_scores` what it gave for the same ``key``.

    Args:
        name: what is kept (keys of different things never meet).
        key: the inputs, exactly (None: not to be kept).
        compute: makes the value; an error it raises is not kept.

    Returns:
        The value (the same object on every call in the block: a caller must not change it).
    """
    memo = _MEMO.get()
    if memo is None or key is None:
        return compute()
    full = (name, key)
    if full in memo:
        value: T = memo[full]
        return value
    value = memo[full] = compute()
    return value


def _labels_key(gold: Any, pred: Any) -> tuple[Any, ...] | None:
    """The memo key of two label lists, where every label is a plain ``str`` (else None).

    Only plain strings: ``1``, ``1.0`` and ``True`` are equal keys but not the same labels to
    a metric, and a list or array input may be changed in place by its caller.
    """
    if type(gold) is not list or type(pred) is not list:
        return None
    if not all(type(v) is str for v in gold) or not all(type(v) is str for v in pred):
        return None
    return (tuple(gold), tuple(pred))


def memoised(metric: F) -> F:
    """Mark a metric of (gold labels, predicted labels) as shared within :func:`shared_scores`.

    Outside the block it is the metric. Inside, each call gets its own :class:`Score` (its
    ``details`` a fresh dict), so no caller sees another's changes.

    Args:
        metric: ``metric(gold, pred) -> Score`` on two label lists.

    Returns:
        The metric, shared within the block.
    """

    @functools.wraps(metric)
    def shared(gold: Any, pred: Any) -> Score:
        if _MEMO.get() is None:
            return metric(gold, pred)
        first = kept(metric.__qualname__, _labels_key(gold, pred), lambda: metric(gold, pred))
        return Score(
            first.value, first.method, first.n_items, dict(first.per_rater), dict(first.details)
        )

    return shared  # type: ignore[return-value]
