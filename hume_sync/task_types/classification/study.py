"""Classification: the study concern (:class:`~hume_sync.study.rules.StudyRules`).

A labelled text per instance; the sample is balanced across labels; a subset may carry a train
pool, from which mteb's logistic regression learns (``samples_per_label`` per label).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hume_sync.errors import SourceError
from hume_sync.study.readers import (
    build_text_item,
    classification_label_names,
    records_from_classification,
)
from hume_sync.study.records import Record, TextItem
from hume_sync.study.rules import StudyRules, SubsetFields
from hume_sync.study.sampling import (
    Instance,
    Sample,
    SamplingParams,
    SourcePositions,
    label_counts,
    not_a_record_of,
    sample_classification,
    text_instance,
)

if TYPE_CHECKING:
    from hume_sync.task_types.classification.settings import ClassificationSettings


class ClassificationStudy(StudyRules):
    """Classification's study behaviour."""

    @property
    def study_settings(self) -> type[ClassificationSettings]:
        from hume_sync.task_types.classification.settings import ClassificationSettings

        return ClassificationSettings

    study_record_fields = ("text", "label", "id")
    study_has_train_pool = True

    def study_check_fields(self, fields: SubsetFields) -> None:
        if fields.size is None:
            fields.fail("size", "required (items to sample)")

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> Record:
        return build_text_item(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[Record], tuple[TextItem, ...] | None]:
        text_col = getattr(mteb_task, "input_column_name", "text")
        label_col = getattr(mteb_task, "label_column_name", "label")
        if not isinstance(text_col, str):
            raise SourceError(where, "multimodal classification tasks are not supported")
        names = classification_label_names(data, train_data, label_column=label_col)
        records: list[Record] = list(
            records_from_classification(
                data, text_column=text_col, label_column=label_col, label_names=names, where=where
            )
        )
        train = None
        if train_data is not None:
            train = tuple(
                records_from_classification(
                    train_data,
                    text_column=text_col,
                    label_column=label_col,
                    label_names=names,
                    where=f"{where} (train)",
                )
            )
        return records, train

    def study_sample(
        self, records: Sequence[Record], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        assert params.size is not None, "the spec requires size"
        return sample_classification(
            records,  # type: ignore[arg-type]
            params.size,
            rng,
            label_set=params.settings.label_set,
        )

    def study_take_all_details(
        self,
        pool: list[Record],
        rng: np.random.Generator,
        params: SamplingParams,
        notes: list[str],
    ) -> tuple[list[Record], dict[str, int]]:
        return pool, label_counts(pool)

    def study_to_instances(
        self, records: Sequence[Record], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        out = []
        for r in records:
            if not isinstance(r, TextItem):
                raise not_a_record_of(r, self.name)
            out.append(text_instance(r, positions))
        return out

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[Record],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        """The label set annotators choose from: the spec's, else every label of the data."""
        labels = {r.label for r in records if isinstance(r, TextItem)}
        labels |= {r.label for r in train}
        label_set = params.settings.label_set
        return {"label_set": list(label_set) if label_set else sorted(labels)}
