"""Reranking: the llm concern (filled in by the llm layer's conversion)."""

from __future__ import annotations


class RerankingLLM:
    """Reranking's llm behaviour."""
