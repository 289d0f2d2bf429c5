"""STS: the model concern (filled in by the model layer's conversion)."""

from __future__ import annotations


class STSModel:
    """STS's model behaviour."""
