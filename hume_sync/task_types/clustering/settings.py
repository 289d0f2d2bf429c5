"""Clustering's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from pydantic import ValidationInfo, field_validator

from hume_sync.study.settings_fields import Count, CountOfTwo, LabelSet, TypeSettings


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
        """K groups need K labels to be named by."""
        k = info.data.get("labels")
        if value is not None and k is not None and len(value) < k:
            raise ValueError(f"has {len(value)} labels, fewer than labels (K) = {k}")
        return value
