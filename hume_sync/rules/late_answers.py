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

A *late deletion* is an answer that existed at the close (created, or else last updated, at or
before it) and was deleted in Label Studio after it: with the predictions in sight, an
annotator could otherwise withdraw exactly the answers that look wrong. What existed at the
close is what is scored, so ``export`` scores it as it was (as stored; one also edited after the
close is late as a whole, as above) and lists it; ``--include-late`` lets the deletion count.
Label Studio keeps no trace of a deleted annotation, so a deletion is dated by the pull that
first finds it gone (the store's ``deleted_at``): one made before the close counts as before
only if a pull between the two saw it gone. Pull before ``close`` to date deletions exactly.
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
    return parse_time(store.study_meta().closed_at, what=f"the store's {CLOSED_AT}")


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
    #: For a late deletion: when a pull first found it gone from Label Studio (UTC).
    deleted_at: str | None = None


def lateness(row: AnnotationRow, closed: datetime) -> tuple[bool, bool]:
    """(late, edited): changed after ``closed``, and if so whether it existed before."""
    ref = f"annotation {row.ls_annotation_id}"
    created = parse_time(row.created_at, what=f"{ref}'s created_at")
    updated = parse_time(row.updated_at, what=f"{ref}'s updated_at")
    created_late = created is not None and created > closed
    updated_late = updated is not None and updated > closed
    late = created_late or updated_late
    return late, late and not created_late and created is not None


def deleted_late(row: AnnotationRow, closed: datetime) -> bool:
    """Whether a deleted annotation existed at the close and was found gone only after it
    (a late deletion); False for one still in Label Studio."""
    if row.deleted_at is None:
        return False
    ref = f"annotation {row.ls_annotation_id}"
    deleted = parse_time(row.deleted_at, what=f"{ref}'s deleted_at")
    born = parse_time(row.created_at or row.updated_at, what=f"{ref}'s created_at")
    return deleted is not None and deleted > closed and (born is None or born <= closed)


def late_deletions(store: Store, subset: str | None = None) -> list[LateAnswer]:
    """The valid answers of the study (or of one subset) that existed at the close and were
    deleted after it (scored as at the close unless ``--include-late``); [] if open."""
    closed = closed_at(store)
    if closed is None:
        return []
    keys = [subset] if subset is not None else [s.key for s in store.subsets()]
    out = []
    for key in keys:
        for row in store.annotations(key, include_deleted=True):
            if row.status == "valid" and deleted_late(row, closed):
                out.append(
                    LateAnswer(
                        key,
                        row.annotator,
                        row.hume_id,
                        row.ls_task_id,
                        row.ls_annotation_id,
                        row.created_at,
                        row.updated_at,
                        edited=lateness(row, closed)[1],
                        deleted_at=row.deleted_at,
                    )
                )
    return out


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
