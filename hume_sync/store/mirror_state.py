"""What the last mirror wrote into the manager's Label Studio, so that the next one reconciles
only the instances whose mirrored state changed (:mod:`hume_sync.workflow.mirror`).

Per subset (``mirror_state``): its mirror project's id and the *context* the mirror wrote under
(the manager's server, the pseudonymous accounts, whether predictions are shown, the subset's
config): a different context means the whole subset is reconciled again. Per instance
(``mirror_tasks``): its task id on the manager's server and a *mark*, a digest of everything
the task's mirrored state is made from (the live answers, the late count, the predictions
shown). The mirror compares the marks the store gives now with the recorded ones and reads from
the manager's server only the tasks whose mark moved.

The marks are written after the subset's tasks were written, in one transaction per subset: a
mirror that fails half-way leaves the old marks, and the next one does that work again (every
write of the mirror is a reconciliation, so doing it twice writes nothing the second time).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from hume_sync.store.model_scores import ModelScoreStore
from hume_sync.store.records import now


@dataclass(frozen=True)
class MirroredSubset:
    """A subset's mirror project and the context its tasks were last written under."""

    ls_project_id: int
    context: str
    #: hume_ref → (task id on the manager's server, mark of what was written)
    tasks: Mapping[str, tuple[int, str]]


def digest(text: str) -> str:
    """The mark of a mirrored state's ingredients (sha256, hex)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class MirrorStateStore(ModelScoreStore):
    """``mirror_state`` and ``mirror_tasks``, and the answers' part of each instance's mark."""

    def mirrored_subset(self, subset: str) -> MirroredSubset | None:
        """What the last mirror recorded of ``subset``, if anything."""
        row = self._conn.execute(
            "SELECT ls_project_id, context FROM mirror_state WHERE subset_key = ?", (subset,)
        ).fetchone()
        if row is None:
            return None
        tasks = {
            ref: (int(task), mark)
            for ref, task, mark in self._conn.execute(
                "SELECT hume_ref, ls_task_id, mark FROM mirror_tasks WHERE subset_key = ?",
                (subset,),
            )
        }
        return MirroredSubset(int(row[0]), row[1], tasks)

    def record_mirrored(
        self,
        subset: str,
        project_id: int,
        context: str,
        tasks: Mapping[str, tuple[int, str]],
        *,
        whole: bool,
    ) -> None:
        """Record a subset's mirror: its project, context and the marks of ``tasks`` (hume_ref
        → (task id, mark)); ``whole`` replaces every recorded task of the subset."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO mirror_state (subset_key, ls_project_id, context, mirrored_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (subset_key) DO UPDATE SET "
                "ls_project_id = excluded.ls_project_id, context = excluded.context, "
                "mirrored_at = excluded.mirrored_at",
                (subset, int(project_id), context, now()),
            )
            if whole:
                conn.execute("DELETE FROM mirror_tasks WHERE subset_key = ?", (subset,))
            conn.executemany(
                "INSERT INTO mirror_tasks (hume_ref, subset_key, ls_task_id, mark) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (hume_ref) DO UPDATE SET "
                "subset_key = excluded.subset_key, ls_task_id = excluded.ls_task_id, "
                "mark = excluded.mark",
                [(ref, subset, int(task), mark) for ref, (task, mark) in tasks.items()],
            )

    def forget_mirror(self) -> None:
        """Drop every recorded mirror (the next mirror reconciles the whole study)."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM mirror_tasks")
            conn.execute("DELETE FROM mirror_state")

    def answer_marks(self, subset: str) -> dict[str, str]:
        """Per instance of ``subset`` (hume_id), its live answers as stored (slot, annotation
        id, status and answer text, in annotation order), one string: what the mirror makes its
        annotations and counters from. Read as text, never decoded, so that it stays cheap at
        100,000 answers; an instance without answers is not listed."""
        rows = self._conn.execute(
            "SELECT a.hume_id, a.slot, a.ls_annotation_id, a.status, a.answer "
            "FROM annotations a JOIN instances i ON i.hume_id = a.hume_id "
            "WHERE i.subset_key = ? AND a.deleted_at IS NULL "
            "ORDER BY a.hume_id, a.slot, a.ls_annotation_id",
            (subset,),
        )
        out: dict[str, list[str]] = {}
        for hume_id, slot, ann, status, answer in rows:
            out.setdefault(hume_id, []).append(f"{slot}\x1f{ann}\x1f{status}\x1f{answer}")
        return {h: "\x1e".join(parts) for h, parts in out.items()}
