"""Input checks shared by the scoring functions, raising :mod:`scoring.errors` types."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from scoring._lazy import LazyModule
from scoring.errors import InvalidInputError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
else:
    np = LazyModule("numpy")  # loaded on first use (see scoring._lazy)


__all__ = [
    "as_1d",
    "choose",
    "same_length",
]


def as_1d(values: Any, name: str, *, numeric: bool = False, min_len: int = 1) -> NDArray[Any]:
    """Return ``values`` as a 1-D array, or raise naming ``name`` and what is wrong.

    Args:
        values: a sequence or array.
        name: the argument's name, for the message.
        numeric: convert to float and require finite values.
        min_len: the fewest values accepted.

    Returns:
        The 1-D array.

    Raises:
        InvalidInputError: values that do not convert, are not 1-D, too few, or not finite.
    """
    try:
        arr = np.asarray(values, dtype=float if numeric else None)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(
            f"{name}: expected {'numbers' if numeric else 'values'} ({exc})"
        ) from None
    if arr.ndim != 1:
        raise InvalidInputError(f"{name}: expected a 1-D sequence, got shape {arr.shape}")
    if len(arr) < min_len:
        raise InvalidInputError(f"{name}: expected at least {min_len} value(s), got {len(arr)}")
    if numeric and not np.all(np.isfinite(arr)):
        raise InvalidInputError(f"{name}: contains NaN or infinite values")
    return arr


def same_length(*pairs: tuple[str, Sequence[Any] | NDArray[Any]]) -> None:
    """Raise if the named sequences do not all have the same length.

    Args:
        *pairs: (name, sequence) pairs.

    Raises:
        InvalidInputError: the lengths differ; the message gives each.
    """
    lengths = {name: len(seq) for name, seq in pairs}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k}={v}" for k, v in lengths.items())
        raise InvalidInputError(f"length mismatch: {desc}")


def choose(method: str, allowed: Sequence[str], what: str) -> str:
    """Validate a method name against the allowed ones.

    Args:
        method: the name given.
        allowed: the names accepted.
        what: what the name chooses, for the message.

    Returns:
        ``method`` unchanged.

    Raises:
        InvalidInputError: ``method`` is not among ``allowed``.
    """
    if method not in allowed:
        raise InvalidInputError(f"unknown {what} {method!r}; choose one of {', '.join(allowed)}")
    return method
