"""Reranking's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from typing import Any

from hume_sync.study.settings_fields import CountOfTwo, Flag, LabelSet, TypeSettings


class RerankingSettings(TypeSettings):
    """``candidates``: N candidates per query (a query's list is sampled down to N, keeping a
    relevant one; all kept unless set); ``shuffle_candidates``: whether annotators see the
    candidates in a drawn order (sources often list the relevant ones first). ``label_set`` is
    accepted because specs written before the type had settings of its own could set it, and
    refusing it now would stop their ``init``; reranking reads no label names."""

    candidates: CountOfTwo | None = None
    shuffle_candidates: Flag = True
    label_set: LabelSet | None = None

    def spec_dict(self) -> dict[str, Any]:
        """As specs have always been hashed: ``shuffle_candidates`` only beside ``candidates``
        (a study's hash must not change when hume does, or ``init`` would refuse it)."""
        out = super().spec_dict()
        if self.candidates is None:
            del out["shuffle_candidates"]
        return out
