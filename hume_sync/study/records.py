"""The plain records every source loads into and sampling draws from, whatever the task type.

- classification / clustering: :class:`TextItem` (id, text, label)
- reranking: :class:`QueryItem` (id, query, candidates with binary relevance)
- sts: :class:`PairItem` (id, sentence1, sentence2, score)
"""

from __future__ import annotations

from dataclasses import dataclass

#: Record fields of each task type, in the positional order used when a CSV has no header
#: (``id`` is last in that order because header-less files rarely carry one).
RECORD_FIELDS: dict[str, tuple[str, ...]] = {
    "classification": ("text", "label", "id"),
    "clustering": ("text", "label", "id"),
    "reranking": ("query", "candidates", "id", "instruction"),
    "sts": ("sentence1", "sentence2", "score", "id"),
}


@dataclass(frozen=True)
class TextItem:
    """A labelled text (classification item or clustering item); ``group`` is an MTEB set index."""

    id: str
    text: str
    label: str
    group: str | None = None


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
