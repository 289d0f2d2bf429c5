"""Pair classification's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from hume_sync.study.settings_fields import LabelSet, TypeSettings


class PairClassificationSettings(TypeSettings):
    """``label_set``: the source's label names to use, the first one counting as 1 and the
    others as 0 (pairs with another name are left out); needed when a source names its labels."""

    label_set: LabelSet | None = None
