"""STS: the llm concern (filled in by the llm layer's conversion)."""

from __future__ import annotations


class STSLLM:
    """STS's llm behaviour."""
