"""Classification's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from hume_sync.study.settings_fields import Count, LabelSet, TypeSettings
from ml_backend.procedures.classification import DEFAULT_SAMPLES_PER_LABEL


class ClassificationSettings(TypeSettings):
    """``samples_per_label``: train examples per label mteb's logistic regression learns from
    (mteb's default unless set); ``label_set``: the labels annotators choose from (items with
    another label are left out of the sample), else every label of the data."""

    samples_per_label: Count = DEFAULT_SAMPLES_PER_LABEL
    label_set: LabelSet | None = None
