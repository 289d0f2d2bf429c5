"""Answers given after the close: the close is a line in time.

Once a study is closed (``hume-sync close`` writes ``closed_at`` into the store), model answers
may be revealed in Label Studio; an annotator who answers, or changes an answer, after that
moment may have seen them. Such *late* answers stay in the store (``pull`` keeps Label Studio's
state) but ``export`` leaves them out of scoring unless asked to keep them (``--include-late``),
and the report counts and lists them.

Late means: Label Studio's ``created_at`` or ``updated_at`` of the annotation (as pulled) is
after ``closed_at``. An annotation created before the close and edited after it is late as a
whole: the store keeps only an annotation's latest version, so its pre-close answer is gone.
Label Studio writes both times in UTC with a ``Z`` (``2026-01-31T09:15:02.123456Z``; another
server time zone gives an offset, which is honoured); a time without an offset is read as UTC.
The close is stamped by the machine that ran ``close``, the annotation times by the Label
Studio server: their clocks must agree to within the precision that matters to the study.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from hume_sync.errors import LateAnswerError
from hume_sync.store import CLOSED_AT, AnnotationRow, Store

EDITED_NOTE = (
    "an annotation edited after the close counts as late as a whole: the store keeps only its "
    "latest version, so its answer from before the close is not available"
)


def parse_time(value: str | None, *, what: str = "time") -> datetime | None:
    """An aware UTC datetime from an ISO 8601 stamp (``Z``, an offset, or none = UTC)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise LateAnswerError(f"{what} {value!r} is not an ISO 8601 time stamp")
    try:
        stamp = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise LateAnswerError(f"{what} {value!r} is not an ISO 8601 time stamp") from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.astimezone(UTC)


def closed_at(store: Store) -> datetime | None:
    """When the study was closed, or None while it is open."""
    return parse_time(store.meta().get(CLOSED_AT), what=f"the store's {CLOSED_AT}")


@dataclass(frozen=True)
class LateAnswer:
    """One valid answer created or changed after the close."""

    subset: str
    annotator: str
    hume_id: str
    ls_task_id: int
    ls_annotation_id: int
    created_at: str | None
    updated_at: str | None
    #: Created before the close and changed after it (its pre-close answer is not stored).
    edited: bool


def lateness(row: AnnotationRow, closed: datetime) -> tuple[bool, bool]:
    """(late, edited): changed after ``closed``, and if so whether it existed before."""
    ref = f"annotation {row.ls_annotation_id}"
    created = parse_time(row.created_at, what=f"{ref}'s created_at")
    updated = parse_time(row.updated_at, what=f"{ref}'s updated_at")
    created_late = created is not None and created > closed
    updated_late = updated is not None and updated > closed
    late = created_late or updated_late
    return late, late and not created_late and created is not None


def late_answers(store: Store, subset: str | None = None) -> list[LateAnswer]:
    """The valid answers of the study (or of one subset) given after the close; [] if open."""
    closed = closed_at(store)
    if closed is None:
        return []
    keys = [subset] if subset is not None else [s.key for s in store.subsets()]
    out = []
    for key in keys:
        for row in store.annotations(key):
            if row.status != "valid":
                continue
            late, edited = lateness(row, closed)
            if late:
                out.append(
                    LateAnswer(
                        key,
                        row.annotator,
                        row.hume_id,
                        row.ls_task_id,
                        row.ls_annotation_id,
                        row.created_at,
                        row.updated_at,
                        edited,
                    )
                )
    return out
