"""The plain records every source loads into and sampling draws from, whatever the task type.

Which record a type uses, and the fields its files name, are the type's own
(``study_record_fields``, ``study_record_from_row``); today's types use these:

- classification / clustering: :class:`TextItem` (id, text, label)
- reranking: :class:`QueryItem` (id, query, candidates with binary relevance)
- sts: :class:`PairItem` (id, sentence1, sentence2, score)
"""

from __future__ import annotations

from dataclasses import dataclass

# The store keeps train pools and returns them as TextItem, so the record is defined below the
# study, in the store's records; it is re-exported here with the other source records.
from hume_sync.store.records import TextItem

__all__ = ["Candidate", "PairItem", "QueryItem", "Record", "TextItem"]


@dataclass(frozen=True)
class Candidate:
    id: str
    text: str
    relevant: bool


@dataclass(frozen=True)
class QueryItem:
    """A reranking query with its candidates (order as in the source)."""

    id: str
    query: str
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True)
class PairItem:
    id: str
    sentence1: str
    sentence2: str
    score: float


Record = TextItem | QueryItem | PairItem
