"""Clustering's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from pydantic import ValidationInfo, field_validator

from hume_sync.study.settings_fields import (
    Count,
    CountOfTwo,
    LabelSet,
    TypeSettings,
    check_enough_labels,
)


class ClusteringSettings(TypeSettings):
    """``labels``: the number of groups K; ``items_per_label``: n texts per group (required to
    sample, checked by the study rules); ``label_set``: the labels groups are drawn from (at
    least K of them)."""

    labels: CountOfTwo | None = None
    items_per_label: Count | None = None
    label_set: LabelSet | None = None

    @field_validator("label_set")
    @classmethod
    def _enough_for_k(cls, value: tuple[str, ...] | None, info: ValidationInfo) -> object:
        check_enough_labels(value, info.data.get("labels"))
        return value
