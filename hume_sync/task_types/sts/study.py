"""STS: the study concern (filled in by the study layer's conversion)."""

from __future__ import annotations


class STSStudy:
    """STS's study behaviour."""
