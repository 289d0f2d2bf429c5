"""Reranking: the model concern (filled in by the model layer's conversion)."""

from __future__ import annotations


class RerankingModel:
    """Reranking's model behaviour."""
