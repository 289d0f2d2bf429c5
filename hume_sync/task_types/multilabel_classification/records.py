"""A multilabel record: a text and its label set, kept in the shared :class:`TextItem`.

The study's train pool is stored as ``TextItem`` rows (one ``label`` string each), and a local
train file's records are kept only if they are ``TextItem``s, so a label set travels as one
string: the sorted labels as a JSON list (``'["health", "travel"]'``; ``'[]'`` for none). This
module is the only place that writes or reads that string.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hume_sync.errors import SourceError
from hume_sync.study.readers import as_id
from hume_sync.study.records import TextItem
from label_studio_configs.multilabel_classification import NONE_CHOICE


def encode_labels(labels: Iterable[str]) -> str:
    """A label set as the one string a :class:`TextItem` holds (sorted, JSON)."""
    return json.dumps(sorted(set(labels)), ensure_ascii=False)


def decode_labels(label: str) -> tuple[str, ...]:
    """The label set a :class:`TextItem`'s ``label`` holds (see :func:`encode_labels`)."""
    value = json.loads(label)
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError(f"not a label set: {label!r}")
    return tuple(value)


def read_labels(value: Any, where: str | Path, line: int | None) -> tuple[str, ...]:
    """A row's ``labels``: a list of label strings or integers (empty: no label applies)."""
    if value is None:
        raise SourceError(where, "missing field 'labels'", line=line)
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise SourceError(
            where, f"labels must be a list of labels, got {type(value).__name__}", line=line
        )
    out: list[str] = []
    for x in value:
        if isinstance(x, bool) or not isinstance(x, str | int) or not str(x).strip():
            raise SourceError(where, f"a label must be a non-empty string, got {x!r}", line=line)
        out.append(str(x).strip())
    if NONE_CHOICE in out:
        raise SourceError(where, f"{NONE_CHOICE!r} is reserved for the empty answer", line=line)
    return tuple(sorted(set(out)))


def labelled_text(row: Mapping[str, Any], where: str | Path, line: int | None) -> TextItem:
    """One row of a local file (``id``, ``text``, ``labels``) as a record."""
    text = row.get("text")
    if not isinstance(text, str) or not text.strip():
        raise SourceError(where, "'text' must be a non-empty string", line=line)
    labels = read_labels(row.get("labels"), where, line)
    return TextItem(
        id=as_id(row.get("id"), where, line, "id"), text=text.strip(), label=encode_labels(labels)
    )


def labels_of(record: TextItem) -> tuple[str, ...]:
    """A record's label set."""
    return decode_labels(record.label)
