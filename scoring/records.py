"""Result records shared by every scoring module.

Each record names the method that produced it (``method``), so that reports never print a number
whose provenance is unknown. Records are frozen dataclasses: plain data, easy to serialise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

__all__ = [
    "Agreement",
    "Interval",
    "Score",
    "plain_dict",
    "plain_summary",
]


@dataclass(frozen=True)
class Score:
    """A task score such as accuracy or MAP.

    ``method`` is a stable identifier such as ``"accuracy"``, ``"v_measure"``,
    ``"map:sklearn"`` or ``"human:majority_vote(alphabetical_tie_break)+accuracy"``.
    ``per_rater`` keeps the per-annotator values behind an aggregate, when there are any.
    ``details`` holds secondary numbers (macro F1, per-query AP, ...).
    """

    value: float
    method: str
    n_items: int | None = None
    per_rater: Mapping[str, float] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-ready data.

        Returns:
            The fields as a dict, nested records and tuples made plain.
        """
        return plain_dict(self)


@dataclass(frozen=True)
class Agreement:
    """An inter-rater agreement statistic with its interpretation band and warnings."""

    value: float
    method: str
    band: str
    n_raters: int
    n_items: int
    warnings: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-ready data.

        Returns:
            The fields as a dict, nested records and tuples made plain.
        """
        return plain_dict(self)


@dataclass(frozen=True)
class Interval:
    """A confidence interval ``[low, high]`` around ``estimate`` at ``level`` (e.g. 0.95)."""

    estimate: float
    low: float
    high: float
    level: float
    method: str
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def half_width(self) -> float:
        """Half the interval's width, (high − low) / 2."""
        return (self.high - self.low) / 2.0

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval, bounds included.

        Args:
            value: a score.

        Returns:
            True for low ≤ value ≤ high.
        """
        return self.low <= value <= self.high

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-ready data, with its half-width.

        Returns:
            The fields as a dict, plus ``half_width``.
        """
        d = plain_dict(self)
        d["half_width"] = self.half_width
        return d


def plain_dict(obj: Any) -> dict[str, Any]:
    """:func:`_plain` of a dataclass instance: always a dict, typed as one.

    Args:
        obj: a dataclass instance.

    Returns:
        Its fields as plain data.
    """
    d = _plain(obj)
    assert isinstance(d, dict)
    return d


def _nested(obj: Any) -> bool:
    """Whether :func:`_plain` makes ``obj`` a dict or a list."""
    return (is_dataclass(obj) and not isinstance(obj, type)) or isinstance(
        obj, Mapping | list | tuple
    )


def plain_summary(obj: Any) -> dict[str, Any]:
    """``plain_dict(obj)`` with only the ``details`` entries that are no dict or list once plain.

    The summary a report shows of a record whose details hold per-item tables; those tables
    are skipped before they are converted, not converted and then dropped (the per-item votes
    and ratings were most of the conversions of an export, issue 38). The keys keep the order
    and the last-given value per string key that the full conversion gives.

    Args:
        obj: a dataclass instance with a ``details`` mapping.

    Returns:
        Its fields as plain data, ``details`` without nested entries.
    """
    details: dict[str, Any] = {}
    for k, v in obj.details.items():
        details[str(k)] = v
    d = {f.name: _plain(getattr(obj, f.name)) for f in fields(obj) if f.name != "details"}
    d["details"] = {k: _plain(v) for k, v in details.items() if not _nested(v)}
    return {f.name: d[f.name] for f in fields(obj)}


#: Types :func:`_plain` returns as they are, tested first (most values of a record are these).
_LEAVES = frozenset({str, float, int, bool, type(None)})
#: Field names per dataclass, as :func:`dataclasses.fields` lists them (kept: it builds a new
#: tuple at every call).
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def _plain(obj: Any) -> Any:
    """Convert dataclasses, numpy scalars, tuples and mappings into JSON-friendly values.

    What ``_plain(dataclasses.asdict(obj))`` gives, in one walk and without deep copies. The
    exact built-in types are tested first and by identity (a string, a number, a dict or a
    list is none of the other cases), which is most of an export's values (issue 38).
    """
    kind = type(obj)
    if kind in _LEAVES:
        return obj
    if kind is dict:
        return {str(k): _plain(v) for k, v in obj.items()}
    if kind is list or kind is tuple:
        return [_plain(v) for v in obj]
    if is_dataclass(obj) and not isinstance(obj, type):
        return {name: _plain(getattr(obj, name)) for name in _field_names(kind)}
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):
        return obj.item()
    return obj
