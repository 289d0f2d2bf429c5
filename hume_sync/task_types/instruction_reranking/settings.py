"""Instruction reranking's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from hume_sync.study.settings_fields import CountOfTwo, TypeSettings


class InstructionRerankingSettings(TypeSettings):
    """``candidates``: N candidates per query (all kept unless set). FollowIR's queries rank up
    to a thousand documents, more than a person can mark; a query's list is cut to N keeping
    every changed document (what p-MRR follows) and, where there is one, a document relevant
    under both instructions, the rest drawn at random. Models are scored on the same N
    candidates, so people and models compare like for like; the full-list mteb score is not
    the number beside them."""

    candidates: CountOfTwo | None = None
