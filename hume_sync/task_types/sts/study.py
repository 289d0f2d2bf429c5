"""STS: the study concern (:class:`~hume_sync.study.rules.StudyRules`).

A sentence pair per instance, gold a similarity score on the task's scale (``score_range``); the
sample spreads over that scale in equal-width bins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hume_sync.study.readers import build_pair, records_from_sts
from hume_sync.study.records import PairItem, Record, TextItem
from hume_sync.study.rules import StudyRules, SubsetFields
from hume_sync.study.sampling import (
    Instance,
    Sample,
    SamplingParams,
    SourcePositions,
    not_a_record_of,
    pair_instance,
    sample_sts,
)

if TYPE_CHECKING:
    from hume_sync.task_types.sts.settings import STSSettings


class STSStudy(StudyRules):
    """STS's study behaviour."""

    @property
    def study_settings(self) -> type[STSSettings]:
        from hume_sync.task_types.sts.settings import STSSettings

        return STSSettings

    study_record_fields = ("sentence1", "sentence2", "score", "id")

    def study_check_fields(self, fields: SubsetFields) -> None:
        if fields.size is None:
            fields.fail("size", "required (pairs to sample)")

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> Record:
        return build_pair(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[Record], tuple[TextItem, ...] | None]:
        cols = getattr(mteb_task, "column_names", ("sentence1", "sentence2"))
        return list(records_from_sts(data, columns=tuple(cols), where=where)), None

    def study_sample(
        self, records: Sequence[Record], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        assert params.size is not None, "the spec requires size"
        return sample_sts(
            records,  # type: ignore[arg-type]
            params.size,
            rng,
            n_bins=params.settings.bins,
            score_range=params.settings.score_range,
        )

    def study_to_instances(
        self, records: Sequence[Record], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        out = []
        for r in records:
            if not isinstance(r, PairItem):
                raise not_a_record_of(r, self.name)
            out.append(pair_instance(r, positions))
        return out

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[Record],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        settings: STSSettings = params.settings
        return {
            "bins": settings.bins,
            "score_range": list(settings.score_range) if settings.score_range else None,
        }
