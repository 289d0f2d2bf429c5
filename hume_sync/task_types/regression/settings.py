"""Regression's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator

from hume_sync.study.settings_fields import Count, ScoreRange, TypeSettings
from ml_backend.procedures.regression import DEFAULT_TRAIN_SAMPLES, STRATIFY_BINS


def _step(value: Any) -> float | None:
    if value is None:
        return None
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value <= 0:
        raise ValueError(f"must be a number > 0, got {value!r}")
    return float(value)


class RegressionSettings(TypeSettings):
    """``value_range``: the bounds annotators answer within, ``[low, high]`` (the data's smallest
    and largest value unless set); ``step``: the granularity of an answer (unless set, one unit
    of the finest decimal the data's values are written with: 1 for years, 0.1 for ``3.8``);
    ``bins``: value quantiles the sample is stratified over; ``train_samples``: the most train
    texts mteb's linear regression fits on (mteb's ``n_samples`` unless set)."""

    value_range: ScoreRange | None = None
    step: Annotated[float | None, BeforeValidator(_step)] = None
    bins: Count = STRATIFY_BINS
    train_samples: Count = DEFAULT_TRAIN_SAMPLES
