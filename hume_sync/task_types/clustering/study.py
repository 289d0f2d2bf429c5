"""Clustering: the study concern (:class:`~hume_sync.study.rules.StudyRules`).

A subset is one instance: a set of K labels × n labelled texts that annotators group; gold is
each text's label. A source taken whole keeps one MTEB set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hume_sync.study.readers import build_text_item, records_from_clustering
from hume_sync.study.records import Record, TextItem
from hume_sync.study.rules import StudyRules, SubsetFields
from hume_sync.study.sampling import (
    Instance,
    Sample,
    SamplingParams,
    SourcePositions,
    label_counts,
    sample_clustering,
    set_instance,
)

if TYPE_CHECKING:
    from hume_sync.task_types.clustering.settings import ClusteringSettings


class ClusteringStudy(StudyRules):
    """Clustering's study behaviour."""

    @property
    def study_settings(self) -> type[ClusteringSettings]:
        from hume_sync.task_types.clustering.settings import ClusteringSettings

        return ClusteringSettings

    study_record_fields = ("text", "label", "id")
    study_item_list = "items"

    def study_check_fields(self, fields: SubsetFields) -> None:
        """K is required; so is n when sampling; size, if given, must be K × n."""
        settings: ClusteringSettings = fields.settings
        if settings.labels is None:
            fields.fail("labels", "required (number of groups K)")
        if fields.sampling == "sample" and settings.items_per_label is None:
            fields.fail("items_per_label", "required when sampling (items per group)")
        if settings.items_per_label is None and fields.size is None:
            fields.fail("size", "size or items_per_label is required")
        if settings.items_per_label is not None:
            total = settings.labels * settings.items_per_label
            if fields.size is not None and fields.size != total:
                fields.fail("size", f"size {fields.size} ≠ labels × items_per_label = {total}")
            fields.size = total

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> Record:
        return build_text_item(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[Record], tuple[TextItem, ...] | None]:
        records: list[Record] = list(
            records_from_clustering(
                data,
                sentences_column=getattr(mteb_task, "input_column_name", "sentences"),
                labels_column=getattr(mteb_task, "label_column_name", "labels"),
                where=where,
            )
        )
        return records, None

    def study_sample(
        self, records: Sequence[Record], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        settings: ClusteringSettings = params.settings
        assert settings.labels is not None and settings.items_per_label is not None
        return sample_clustering(
            records,  # type: ignore[arg-type]
            settings.labels,
            settings.items_per_label,
            rng,
            label_set=settings.label_set,
        )

    def study_whole_source(self, pool: list[Record], notes: list[str]) -> list[Record]:
        """One clustering set: a source with several MTEB sets keeps the first."""
        groups = sorted({r.group for r in pool if isinstance(r, TextItem) and r.group is not None})
        if len(groups) > 1:
            first = min(groups, key=lambda g: (len(g), g))
            pool = [r for r in pool if isinstance(r, TextItem) and r.group == first]
            notes.append(f"source has {len(groups)} clustering sets; kept set {first}")
        return pool

    def study_take_all_details(
        self,
        pool: list[Record],
        rng: np.random.Generator,
        params: SamplingParams,
        notes: list[str],
    ) -> tuple[list[Record], dict[str, int]]:
        per_label = label_counts(pool)
        k = params.settings.labels
        if k is not None and len(per_label) != k:
            notes.append(f"expected {k} labels, source has {len(per_label)}")
        return pool, per_label

    def study_to_instances(
        self, records: Sequence[Record], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        return [set_instance(records, positions, id_scheme)]

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[Record],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        """The labels of the set drawn (K of them), and n."""
        gold_labels = sorted(set(instances[0].gold.values())) if instances else []
        return {
            "label_set": gold_labels,
            "n_groups": len(gold_labels),
            "items_per_label": params.settings.items_per_label,
        }
