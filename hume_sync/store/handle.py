"""The study store handle, :class:`Store`: every part of the store in one object.

The parts build on each other, each in its own module (connection and meta → instances →
annotators → annotations → predictions → model scores → the manager's mirror → the kept
effort block), so that each stays small and says what it owns; :class:`Store` is the last of
them, and the only one the rest of hume uses.
"""

from __future__ import annotations

from hume_sync.store.effort_cache import EffortCacheStore
from hume_sync.store.meta import StudyMeta


class Store(EffortCacheStore):
    """A handle on one study store; use :meth:`open`. Also a context manager that closes it."""


def is_closed(store: Store) -> bool:
    """Whether annotation is over (``close`` ran, or ``reveal`` found every project finished)."""
    return store.study_meta().closed


def predictions_visible(store: Store) -> bool:
    """Whether predictions may be shown: the study is closed or was revealed (``--force``)."""
    return store.study_meta().predictions_visible


__all__ = ["Store", "StudyMeta", "is_closed", "predictions_visible"]
