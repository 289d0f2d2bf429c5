"""Classification: the study concern (filled in by the study layer's conversion)."""

from __future__ import annotations


class ClassificationStudy:
    """Classification's study behaviour."""
