"""Reranking: the interface concern (filled in by the interface layer's conversion)."""

from __future__ import annotations


class RerankingInterface:
    """Reranking's interface behaviour."""
