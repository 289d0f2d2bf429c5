"""Reranking: the study concern (:class:`~hume_sync.study.rules.StudyRules`).

A query with its candidates per instance; annotators mark each candidate relevant or not. The
candidates are nested, so sources are JSONL; candidate order is shuffled for annotators (sources
often list the relevant ones first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hume_sync.study.readers import build_query, records_from_reranking_rows, records_from_retrieval
from hume_sync.study.records import QueryItem, Record, TextItem
from hume_sync.study.rules import StudyRules, SubsetFields
from hume_sync.study.sampling import (
    Instance,
    Sample,
    SamplingParams,
    SourcePositions,
    not_a_record_of,
    permute,
    query_instance,
    sample_reranking,
)

if TYPE_CHECKING:
    from hume_sync.task_types.reranking.settings import RerankingSettings


class RerankingStudy(StudyRules):
    """Reranking's study behaviour."""

    @property
    def study_settings(self) -> type[RerankingSettings]:
        from hume_sync.task_types.reranking.settings import RerankingSettings

        return RerankingSettings

    study_record_fields = ("query", "candidates", "id", "instruction")
    study_formats = ("jsonl",)
    study_formats_reason = "candidates are nested"
    study_item_list = "candidates"

    def study_check_fields(self, fields: SubsetFields) -> None:
        if fields.size is None:
            fields.fail("size", "required (queries to sample)")

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> Record:
        return build_query(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[Record], tuple[TextItem, ...] | None]:
        """mteb v2's retrieval-style splits (corpus, queries, qrels), else v1's rows."""
        if isinstance(data, Mapping) and "queries" in data:
            return list(records_from_retrieval(data, where=where)), None
        return list(records_from_reranking_rows(data, where=where)), None

    def study_sample(
        self, records: Sequence[Record], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        assert params.size is not None, "the spec requires size"
        return sample_reranking(
            records,  # type: ignore[arg-type]
            params.size,
            rng,
            n_candidates=params.settings.candidates,
            shuffle_candidates=params.settings.shuffle_candidates,
        )

    def study_take_all_details(
        self,
        pool: list[Record],
        rng: np.random.Generator,
        params: SamplingParams,
        notes: list[str],
    ) -> tuple[list[Record], dict[str, int]]:
        """Every query kept; odd candidate counts and queries without a relevant candidate
        reported; candidates shuffled unless ``shuffle_candidates`` is false."""
        settings: RerankingSettings = params.settings
        queries: list[QueryItem] = [q for q in pool if isinstance(q, QueryItem)]
        if settings.candidates is not None:
            odd = sum(len(q.candidates) != settings.candidates for q in queries)
            if odd:
                notes.append(f"{odd} query(ies) do not have {settings.candidates} candidates")
        no_rel = sum(not any(c.relevant for c in q.candidates) for q in queries)
        if no_rel:
            notes.append(f"{no_rel} query(ies) without a relevant candidate (kept)")
        if settings.shuffle_candidates:
            pool = [
                QueryItem(q.id, q.query, tuple(permute(list(q.candidates), rng))) for q in queries
            ]
        n_rel = sum(c.relevant for q in queries for c in q.candidates)
        n_all = sum(len(q.candidates) for q in queries)
        return pool, {"relevant": n_rel, "not_relevant": n_all - n_rel}

    def study_to_instances(
        self, records: Sequence[Record], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        out = []
        for r in records:
            if not isinstance(r, QueryItem):
                raise not_a_record_of(r, self.name)
            out.append(query_instance(r, positions, id_scheme))
        return out

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[Record],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        settings: RerankingSettings = params.settings
        return {
            "candidates": settings.candidates,
            "shuffle_candidates": settings.shuffle_candidates,
        }
