"""Reranking: the study concern (filled in by the study layer's conversion)."""

from __future__ import annotations


class RerankingStudy:
    """Reranking's study behaviour."""
