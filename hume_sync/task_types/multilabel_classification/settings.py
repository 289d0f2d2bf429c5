"""Multilabel classification's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from hume_sync.study.settings_fields import Count, LabelSet, TypeSettings
from ml_backend.procedures.multilabel_classification import DEFAULT_SAMPLES_PER_LABEL


class MultilabelClassificationSettings(TypeSettings):
    """``samples_per_label``: mteb's per-label target when it draws the train samples its kNN
    learns from (mteb's default unless set); ``label_set``: the labels annotators tick from
    (items with a gold label outside it are left out of the sample), else every label of the
    data."""

    samples_per_label: Count = DEFAULT_SAMPLES_PER_LABEL
    label_set: LabelSet | None = None
