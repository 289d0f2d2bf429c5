"""Each project's answers summed up (``answer_summaries``), so that ``status`` and ``pull`` with
nothing changed read one row instead of every answer.

Why: at 100,000 answers, what status counts of the stored answers (tasks answered / invalid /
skipped, the valid answers' lead times for the medians, when they were given for the pace) took
0.74 s in SQL, three scans of the subset's rows joined to their instances, and the idle pull's
count of live annotations another 0.2–0.4 s: more than the goal of a second for the whole
command. The summary holds exactly what those scans computed, per (subset, slot):

- the live annotations (any status), the live skips and the live invalid answers;
- the tasks answered (a valid answer), invalid (an invalid one and no valid one) and only
  skipped: each a property of one task's answers, so the tasks read again from Label Studio
  can be taken out (:meth:`AnswerSummary.minus`) and put back as read;
- the valid answers' lead times and creation times (microseconds since the epoch), each kept
  sorted as a whole list: a median and a first and last time need all of them, and taking one
  task's values out of a sorted list is exact, where a running mean or bounds are not.

It is a cache of the annotations table, never the truth: the only writer of annotations
(:meth:`~hume_sync.store.annotations.AnnotationStore.upsert_annotations`) drops the summaries of
the projects a batch changed, in the same transaction, and ``pull`` writes them again
(:meth:`AnswerSummaryStore.keep_answer_summary`: the old summary less the changed tasks' old
answers plus their new ones, or, without one, computed whole). A project without a summary (a
store from before schema 9, a project no pull has read since) is computed from its rows, as
before; ``status`` writes nothing.
"""

from __future__ import annotations

import bisect
import json
import sys
from array import array
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from hume_sync.store.annotations import AnnotationStore

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: One project's live answers, optionally only some tasks (``IN``) or all but some (``NOT IN``).
_LIVE = (
    "SELECT a.ls_task_id, a.status, a.lead_time, a.created_at FROM annotations a "
    "JOIN instances i ON i.hume_id = a.hume_id "
    "WHERE a.slot = ?1 AND i.subset_key = ?2 AND a.deleted_at IS NULL"
)
_TASKS = " AND a.ls_task_id {op} (SELECT value FROM json_each(?3))"
_COUNTS = ("answers", "cancelled", "invalid_rows", "answered", "invalid", "skipped")


def micros(value: object) -> int | None:
    """An ISO 8601 time (Label Studio's ``…Z``) as microseconds since the epoch, or None when
    it is not one (such an answer has no time, as :func:`hume_sync.workflow.status` reads it)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - _EPOCH) // timedelta(microseconds=1)


def iso(value: int) -> str:
    """Microseconds since the epoch as Label Studio writes a time (UTC, ``…Z``)."""
    return (_EPOCH + timedelta(microseconds=value)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _without(values: list[float] | list[int], gone: list[float] | list[int]) -> list:
    """``values`` (sorted) less each of ``gone`` once; ValueError when one is not there."""
    if not gone:
        return list(values)
    if len(gone) <= 64:  # a few: bisect and delete (each O(n) in C, no pass in Python)
        out = list(values)
        for v in gone:
            i = bisect.bisect_left(out, v)
            if i == len(out) or out[i] != v:
                raise ValueError(f"{v!r} is not in the summary")
            del out[i]
        return out
    left = Counter(gone)
    out = []
    for v in values:
        if left.get(v):
            left[v] -= 1
        else:
            out.append(v)
    if any(left.values()):
        raise ValueError("a value taken out is not in the summary")
    return out


def _pack(code: str, values: list[float] | list[int]) -> bytes:
    data = array(code, values)
    if sys.byteorder == "big":  # the file is little-endian wherever it was written
        data.byteswap()
    return data.tobytes()


def _unpack(code: str, blob: bytes) -> list:
    data = array(code)
    data.frombytes(blob)
    if sys.byteorder == "big":
        data.byteswap()
    return data.tolist()


@dataclass(frozen=True)
class AnswerSummary:
    """One project's live answers summed up (see the module docstring); also the same sums
    over some of its tasks, to take out of or put into a whole one."""

    answers: int = 0  # live annotations, any status
    cancelled: int = 0  # live skips
    invalid_rows: int = 0  # live invalid annotations
    answered: int = 0  # tasks with a valid answer
    invalid: int = 0  # tasks with an invalid answer and no valid one
    skipped: int = 0  # tasks only skipped
    leads: list[float] = field(default_factory=list)  # valid answers' lead times, sorted
    times: list[int] = field(default_factory=list)  # valid answers' creation times, sorted

    @classmethod
    def of_rows(cls, rows: Iterable[tuple[int, str, float | None, str | None]]) -> AnswerSummary:
        """The sums of live annotation rows (task, status, lead time, created at)."""
        kinds: dict[int, set[str]] = {}
        counts: Counter[str] = Counter()
        leads: list[float] = []
        times: list[int] = []
        for task, status, lead, created in rows:
            counts[status] += 1
            kinds.setdefault(int(task), set()).add(status)
            if status != "valid":
                continue
            if lead is not None:
                leads.append(float(lead))
            when = micros(created)
            if when is not None:
                times.append(when)
        answered = invalid = skipped = 0
        for k in kinds.values():
            if "valid" in k:
                answered += 1
            elif "invalid" in k:
                invalid += 1
            elif "cancelled" in k:
                skipped += 1
        return cls(
            answers=sum(counts.values()),
            cancelled=counts["cancelled"],
            invalid_rows=counts["invalid"],
            answered=answered,
            invalid=invalid,
            skipped=skipped,
            leads=sorted(leads),
            times=sorted(times),
        )

    def minus(self, part: AnswerSummary) -> AnswerSummary:
        """These sums less ``part``'s, where ``part`` sums some of the same tasks' answers.

        Raises:
            ValueError: ``part`` holds a lead time or a time this summary does not.
        """
        return AnswerSummary(
            self.answers - part.answers,
            self.cancelled - part.cancelled,
            self.invalid_rows - part.invalid_rows,
            self.answered - part.answered,
            self.invalid - part.invalid,
            self.skipped - part.skipped,
            _without(self.leads, part.leads),
            _without(self.times, part.times),
        )

    def plus(self, part: AnswerSummary) -> AnswerSummary:
        """These sums and ``part``'s, where ``part`` sums tasks these do not hold."""
        return AnswerSummary(
            self.answers + part.answers,
            self.cancelled + part.cancelled,
            self.invalid_rows + part.invalid_rows,
            self.answered + part.answered,
            self.invalid + part.invalid,
            self.skipped + part.skipped,
            sorted(self.leads + part.leads),  # two sorted runs: one merge
            sorted(self.times + part.times),
        )


class AnswerSummaryStore(AnnotationStore):
    """``answer_summaries``: read, computed, kept in step by ``pull``."""

    def answer_summary(self, subset: str, slot: int) -> AnswerSummary | None:
        """The project's stored summary, or None (none written, or dropped by a write since)."""
        row = self._conn.execute(
            "SELECT answers, cancelled, invalid_rows, answered, invalid, skipped, leads, times "
            "FROM answer_summaries WHERE subset_key = ? AND slot = ?",
            (subset, int(slot)),
        ).fetchone()
        if row is None:
            return None
        answers, cancelled, invalid_rows, answered, invalid, skipped = (int(v) for v in row[:6])
        return AnswerSummary(
            answers,
            cancelled,
            invalid_rows,
            answered,
            invalid,
            skipped,
            _unpack("d", row[6]),
            _unpack("q", row[7]),
        )

    def summed_count(self, subset: str, slot: int, column: str) -> int | None:
        """One count of the project's stored summary (``cancelled``, ``invalid_rows``...),
        without reading its lists of times; None without a stored summary."""
        if column not in _COUNTS:
            raise ValueError(f"{column!r} is not a count of answer_summaries")
        row = self._conn.execute(
            f"SELECT {column} FROM answer_summaries WHERE subset_key = ? AND slot = ?",
            (subset, int(slot)),
        ).fetchone()
        return None if row is None else int(row[0])

    def computed_answer_summary(
        self,
        subset: str,
        slot: int,
        *,
        only: Collection[int] | None = None,
        leaving_out: Collection[int] = (),
    ) -> AnswerSummary:
        """The project's summary computed from its rows: of the tasks ``only`` (read through
        the index on slot and task: milliseconds for a few tasks), else of every task but
        ``leaving_out`` (one pass over the project's rows)."""
        args: tuple[object, ...] = (int(slot), subset)
        sql = _LIVE
        if only is not None:
            sql += _TASKS.format(op="IN")
            args += (json.dumps(sorted({int(t) for t in only})),)
        elif leaving_out:
            sql += _TASKS.format(op="NOT IN")
            args += (json.dumps(sorted({int(t) for t in leaving_out})),)
        return AnswerSummary.of_rows(self._conn.execute(sql, args))

    def current_answer_summary(
        self, subset: str, slot: int, leaving_out: Collection[int] = ()
    ) -> AnswerSummary:
        """The project's summary without the tasks ``leaving_out``: the stored one less those
        tasks' answers, or, without a stored one, computed from the rows. Writes nothing."""
        stored = self.answer_summary(subset, slot)
        if stored is not None:
            if not leaving_out:
                return stored
            try:
                return stored.minus(self.computed_answer_summary(subset, slot, only=leaving_out))
            except ValueError:
                pass  # out of step with the rows (edited by hand?): count them instead
        return self.computed_answer_summary(subset, slot, leaving_out=leaving_out)

    def save_answer_summary(self, subset: str, slot: int, summary: AnswerSummary) -> None:
        """Write the project's summary (inside the caller's transaction when one is open)."""
        sql = (
            "INSERT OR REPLACE INTO answer_summaries (subset_key, slot, answers, cancelled, "
            "invalid_rows, answered, invalid, skipped, leads, times) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        values = (
            subset,
            int(slot),
            summary.answers,
            summary.cancelled,
            summary.invalid_rows,
            summary.answered,
            summary.invalid,
            summary.skipped,
            _pack("d", summary.leads),
            _pack("q", summary.times),
        )
        if self._conn.in_transaction:
            self._conn.execute(sql, values)
            return
        with self.transaction() as conn:
            conn.execute(sql, values)

    def keep_answer_summary(
        self,
        subset: str,
        slot: int,
        before: AnswerSummary | None = None,
        changed: Collection[int] = (),
        old: AnswerSummary | None = None,
    ) -> AnswerSummary:
        """After ``pull`` wrote a project's answers: its summary, stored again if the writes
        dropped it.

        Args:
            subset: The subset.
            slot: The annotator's slot.
            before: The summary read before the writes (None: none was stored).
            changed: The tasks the writes were confined to.
            old: Those tasks' summary before the writes.

        Returns:
            The project's summary as it now stands: kept when nothing was written; else
            ``before`` less ``old`` plus the tasks' summary now (a few rows read), or computed
            whole when there was nothing to start from.
        """
        stored = self.answer_summary(subset, slot)
        if stored is not None:
            return stored  # nothing written since it was: still right
        summary = None
        if before is not None and old is not None:
            try:
                now = self.computed_answer_summary(subset, slot, only=changed)
                summary = before.minus(old).plus(now)
            except ValueError:
                summary = None
        if summary is None:
            summary = self.computed_answer_summary(subset, slot)
        self.save_answer_summary(subset, slot, summary)
        return summary
