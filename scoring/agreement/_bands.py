"""Interpretation bands of an agreement value, and HUME's low/high agreement flags."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from scoring.errors import InvalidInputError
from scoring.records import Agreement
from scoring.validation import choose

Scale = Literal["kappa", "correlation", "proportion"]

_SCALE_BY_METHOD: dict[str, Scale] = {
    "kappa": "kappa",
    "alpha": "kappa",
    "ari": "kappa",
    "spearman": "correlation",
    "kendall": "correlation",
    "pearson": "correlation",
    "percentage": "proportion",
}


def kappa_band(value: float) -> str:
    """Band of a κ-like value (κ, α, ARI) as in the HUME paper.

    Args:
        value: the statistic.

    Returns:
        ``"poor"`` (< 0), ``"slight"``, ``"fair"``, ``"moderate"``, ``"substantial"`` (upper
        bounds 0.2, 0.4, 0.6, 0.8 inclusive), ``"excellent"``; ``"undefined"`` for NaN.
    """
    if not math.isfinite(value):
        return "undefined"
    if value < 0:
        return "poor"
    for upper, name in ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial")):
        if value <= upper:
            return name
    return "excellent"


def correlation_band(value: float) -> str:
    """Band of a correlation (ρ, τ): negative / weak (≤0.4) / moderate (≤0.7) / strong.

    Args:
        value: the correlation.

    Returns:
        ``"negative"``, ``"weak"``, ``"moderate"`` or ``"strong"``; ``"undefined"`` for NaN.
    """
    if not math.isfinite(value):
        return "undefined"
    if value < 0:
        return "negative"
    if value <= 0.4:
        return "weak"
    if value <= 0.7:
        return "moderate"
    return "strong"


def agreement_band(value: float, scale: Scale) -> str:
    """Band of ``value`` on the given scale (``"kappa"``, ``"correlation"``, ``"proportion"``).

    Args:
        value: the statistic.
        scale: which bands apply; a proportion (percentage agreement) is not chance-corrected
            and gets ``"uncorrected"``.

    Returns:
        The band name; ``"undefined"`` for NaN.

    Raises:
        InvalidInputError: ``scale`` is none of the three.
    """
    choose(scale, ("kappa", "correlation", "proportion"), "agreement scale")
    if scale == "kappa":
        return kappa_band(value)
    if scale == "correlation":
        return correlation_band(value)
    return "undefined" if not math.isfinite(value) else "uncorrected"


def _scale_of(a: Agreement) -> Scale:
    """The scale recorded in ``details["scale"]``, else guessed from the method name."""
    scale = a.details.get("scale") if isinstance(a.details, Mapping) else None
    if scale == "kappa" or scale == "correlation" or scale == "proportion":
        return scale
    name = a.method.lower()
    # The last matching key in the method name wins ("reranking:mean_binary_kappa" -> kappa).
    found: tuple[int, Scale] | None = None
    for key, sc in _SCALE_BY_METHOD.items():
        pos = name.rfind(key)
        if pos >= 0 and (found is None or pos > found[0]):
            found = (pos, sc)
    if found is None:
        raise InvalidInputError(f"cannot tell the scale of agreement method {a.method!r}")
    return found[1]


def low_agreement(a: Agreement) -> bool:
    """True when the task should be revised: κ-like < 0.4 or correlation < 0.6 (HUME's rule).

    An undefined (NaN) agreement is neither low nor high: its band ``"undefined"`` and warnings
    say why. Percentage agreement is not chance-corrected and cannot be flagged: that raises.

    Args:
        a: an agreement; its scale is ``details["scale"]``, else read from its method name.

    Returns:
        Whether the value is below the threshold of its scale.

    Raises:
        InvalidInputError: ``a`` is a percentage agreement, or its scale cannot be told.
    """
    scale = _scale_of(a)
    if scale == "proportion":
        raise InvalidInputError(
            "percentage agreement is not chance-corrected; flag on a kappa instead"
        )
    if not math.isfinite(a.value):
        return False
    return a.value < (0.4 if scale == "kappa" else 0.6)


def high_agreement(a: Agreement) -> bool:
    """True when the task is a reliable target: κ-like > 0.6 or correlation > 0.7.

    Args:
        a: an agreement; its scale is ``details["scale"]``, else read from its method name.

    Returns:
        Whether the value is above the threshold of its scale (False for NaN).

    Raises:
        InvalidInputError: ``a`` is a percentage agreement, or its scale cannot be told.
    """
    scale = _scale_of(a)
    if scale == "proportion":
        raise InvalidInputError(
            "percentage agreement is not chance-corrected; flag on a kappa instead"
        )
    if not math.isfinite(a.value):
        return False
    return a.value > (0.6 if scale == "kappa" else 0.7)
