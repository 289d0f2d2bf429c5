"""STS's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from hume_sync.study.settings_fields import Count, ScoreRange, TypeSettings

#: Default number of equal-width score bins for STS sampling.
DEFAULT_STS_BINS = 5


class STSSettings(TypeSettings):
    """``bins``: equal-width bins over the gold scale the sample spreads over; ``score_range``:
    the gold scale, ``[low, high]`` (annotators answer on it; taken from the data unless set)."""

    bins: Count = DEFAULT_STS_BINS
    score_range: ScoreRange | None = None
