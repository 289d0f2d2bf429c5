"""The effort and quality block ``status`` shows, kept in the store until what it reads changes.

Why: the block (:mod:`hume_sync.workflow.status_effort`) reads every stored answer and
instance, 2.3–5.3 s at 100,000 answers, where the rest of an idle ``status`` costs 0.6 s and
the goal is a second for the command (issue 38). It changes only when the answers, the plan
or the annotators do, so the first ``status`` after such a change computes it and keeps it
here, and the next ones read it back.

What it depends on is checked two ways:

- the **answers generation**: every write of annotations that changes one, and every write of
  the study's plan (subsets, instances), adds one to it and empties the block, in that write's
  own transaction (:data:`~hume_sync.store.schema.INVALIDATE_EFFORT`). A block is written only
  if the generation is still the one read before the block's rows were: a pull that commits
  while ``status`` computes leaves the block unwritten, never stale.
- the **inputs**, a text its caller makes of the rest (annotators, the seat plan, the
  subsets): a block computed from other inputs is not read back.

``status`` takes no lock on the study, so keeping the block is best effort: a store it cannot
write (busy past the timeout, read-only) keeps none, and ``status`` shows what it computed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from hume_sync.errors import StoreError, StoreUnavailableError
from hume_sync.store.mirror_state import MirrorStateStore


@dataclass(frozen=True)
class KeptEffort:
    """The ``effort_cache`` row: the generation now, and the block kept at it, if any."""

    generation: int
    inputs: str | None
    block: str | None

    def block_for(self, inputs: str) -> str | None:
        """The kept block (JSON text) if it was computed from ``inputs``, else None."""
        return self.block if self.block is not None and self.inputs == inputs else None


class EffortCacheStore(MirrorStateStore):
    """``effort_cache``: the kept effort and quality block and the answers generation."""

    def kept_effort(self) -> KeptEffort:
        """The answers generation and the block kept at it (none in a store before schema 11
        that has not migrated, which cannot be: opening migrates)."""
        row = self._conn.execute(
            "SELECT generation, inputs, block FROM effort_cache WHERE id = 1"
        ).fetchone()
        if row is None:
            return KeptEffort(0, None, None)
        return KeptEffort(int(row[0]), row[1], row[2])

    def keep_effort(self, generation: int, inputs: str, block: str) -> bool:
        """Keep ``block`` (JSON text) computed from ``inputs`` at answers ``generation``.

        Returns:
            True if kept; False where the generation moved since (a write changed the answers
            or the plan: the block may mix old and new rows) or the store cannot be written now.
        """
        try:
            with self.transaction() as conn:
                kept = conn.execute(
                    "UPDATE effort_cache SET inputs = ?, block = ? WHERE id = 1 AND generation = ?",
                    (inputs, block, int(generation)),
                ).rowcount
        except (StoreError, StoreUnavailableError, sqlite3.Error):
            return False
        return kept == 1
