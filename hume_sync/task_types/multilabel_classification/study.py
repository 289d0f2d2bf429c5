"""Multilabel classification: the study concern (:class:`~hume_sync.study.rules.StudyRules`).

A text and its label set per instance (gold: the sorted labels; possibly none). The sample is
``size`` texts drawn uniformly at random without replacement: exact-match accuracy on a simple
random sample estimates the source's, whereas balancing by label cannot be done for sets without
reweighting (mteb itself scores whole splits, stratifying only splits above 3,000 rows). A
subset carries a train pool (mteb's train split, or ``train_path``), from which mteb's kNN
learns.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hume_sync.errors import SamplingError, SourceError
from hume_sync.study.records import TextItem
from hume_sync.study.rules import StudyRules, SubsetFields
from hume_sync.study.sampling import (
    Instance,
    Sample,
    SampleReport,
    SamplingParams,
    SourcePositions,
    by_id,
    not_a_record_of,
    permute,
)
from hume_sync.task_types.multilabel_classification.records import (
    encode_labels,
    labelled_text,
    labels_of,
    read_labels,
)
from label_studio_configs.multilabel_classification import NONE_CHOICE

if TYPE_CHECKING:
    from hume_sync.task_types.multilabel_classification.settings import (
        MultilabelClassificationSettings,
    )


def label_names(data: Any, label_column: str) -> list[str] | None:
    """The class names of a ``Sequence(ClassLabel)`` label column, if it has them."""
    feature = getattr(data, "features", {}).get(label_column)
    inner = feature[0] if isinstance(feature, list) and feature else None
    inner = inner or getattr(feature, "feature", None)
    names = getattr(inner, "names", None)
    return [str(n) for n in names] if names else None


def records_from_mteb(
    data: Any, *, text_column: str, label_column: str, names: list[str] | None, where: str
) -> list[TextItem]:
    """One split of an mteb multilabel task (a text column, a list-of-labels column)."""
    cols = list(getattr(data, "column_names", None) or [])
    for col in (text_column, label_column):
        if col not in cols:
            raise SourceError(where, f"no column {col!r} (has: {', '.join(cols)})")
    texts, labels = data[text_column], data[label_column]
    ids = [str(x) for x in data["id"]] if "id" in cols else [str(n) for n in range(len(texts))]
    if len(set(ids)) != len(ids):
        ids = [str(n) for n in range(len(texts))]
    out = []
    for rid, text, row_labels in zip(ids, texts, labels, strict=True):
        if not isinstance(text, str) or not text.strip():
            raise SourceError(where, f"row {rid}: empty or non-text {text_column!r}")
        named = [names[x] if names and isinstance(x, int) else x for x in row_labels or []]
        found = read_labels(named, where, None)
        out.append(TextItem(id=rid, text=text.strip(), label=encode_labels(found)))
    return out


def per_label(records: Sequence[TextItem]) -> dict[str, int]:
    """Items holding each label (``(none)`` for the items with no label)."""
    counts: Counter[str] = Counter()
    for r in records:
        counts.update(labels_of(r) or ("(none)",))
    return dict(sorted(counts.items()))


class MultilabelStudy(StudyRules):
    """Multilabel classification's study behaviour."""

    @property
    def study_settings(self) -> type[MultilabelClassificationSettings]:
        from hume_sync.task_types.multilabel_classification.settings import (
            MultilabelClassificationSettings,
        )

        return MultilabelClassificationSettings

    study_record_fields = ("text", "labels", "id")
    study_formats = ("jsonl",)
    study_formats_reason = "an item's labels are a list"
    study_has_train_pool = True

    def study_check_fields(self, fields: SubsetFields) -> None:
        if fields.size is None and fields.sampling == "sample":
            fields.fail("size", "required (texts to sample)")
        label_set = fields.settings.label_set
        if label_set is not None and NONE_CHOICE in label_set:
            fields.fail("label_set", f"{NONE_CHOICE!r} is reserved for the empty answer")

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> TextItem:
        return labelled_text(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[TextItem], tuple[TextItem, ...] | None]:
        """The texts of one split (and the train split) of an mteb ``MultilabelClassification``
        task, labels named by the column's class names where it has them."""
        text_col = getattr(mteb_task, "input_column_name", "text")
        label_col = getattr(mteb_task, "label_column_name", "label")
        if not isinstance(text_col, str):
            raise SourceError(where, "multimodal multilabel tasks are not supported")
        names = label_names(data, label_col) or (
            label_names(train_data, label_col) if train_data is not None else None
        )
        records = records_from_mteb(
            data, text_column=text_col, label_column=label_col, names=names, where=where
        )
        train = None
        if train_data is not None:
            train = tuple(
                records_from_mteb(
                    train_data,
                    text_column=text_col,
                    label_column=label_col,
                    names=names,
                    where=f"{where} (train)",
                )
            )
        return records, train

    def _pool(
        self, records: Sequence[TextItem], params: SamplingParams, notes: list[str]
    ) -> list[TextItem]:
        """The id-ordered source, less the items with a label outside ``label_set``."""
        pool = by_id(records)
        label_set = params.settings.label_set
        if label_set is None:
            return pool
        allowed = set(label_set)
        kept = [r for r in pool if set(labels_of(r)) <= allowed]
        if len(kept) < len(pool):
            notes.append(
                f"{len(pool) - len(kept)} item(s) with labels outside label_set were dropped"
            )
        return kept

    def study_sample(
        self, records: Sequence[TextItem], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        """``size`` texts uniformly at random (see the module doc), shown in a seeded order."""
        if params.size is None or params.size <= 0:
            raise SamplingError(f"size must be > 0, got {params.size}")
        notes: list[str] = []
        pool = self._pool(records, params, notes)
        if not pool:
            raise SamplingError("no items to sample from")
        k = min(params.size, len(pool))
        idx = sorted(int(i) for i in rng.choice(len(pool), size=k, replace=False))
        chosen = [pool[i] for i in idx]
        if k < params.size:
            notes.append(f"only {k} of {params.size} items available")
        return Sample(
            records=permute(chosen, rng),
            report=SampleReport(
                method="simple-random",
                requested=params.size,
                sampled=k,
                available=len(pool),
                per_label=per_label(chosen),
                shortfalls={"items": params.size - k} if k < params.size else {},
                notes=notes,
            ),
        )

    def study_whole_source(self, pool: list[TextItem], notes: list[str]) -> list[TextItem]:
        return pool

    def study_take_all_details(
        self,
        pool: list[TextItem],
        rng: np.random.Generator,
        params: SamplingParams,
        notes: list[str],
    ) -> tuple[list[TextItem], dict[str, int]]:
        return pool, per_label(pool)

    def study_to_instances(
        self, records: Sequence[TextItem], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        """One text per instance; gold is its label set (a sorted list)."""
        out = []
        for r in records:
            if not isinstance(r, TextItem):
                raise not_a_record_of(r, self.name)
            out.append(
                Instance(r.id, {"text": r.text}, list(labels_of(r)), positions.records.get(r.id))
            )
        return out

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[TextItem],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        """The labels annotators tick from (the spec's, else every label of the data and its
        train pool), and ``none_choice``: whether "no label applies" is offered, which it is
        when any text of the source or its train pool has no label."""
        labels: set[str] = set()
        empty = False
        for r in (*records, *train):
            found = labels_of(r)
            labels.update(found)
            empty = empty or not found
        label_set = params.settings.label_set
        return {
            "label_set": list(label_set) if label_set else sorted(labels),
            "none_choice": empty,
        }
