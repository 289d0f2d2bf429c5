"""Clustering: the scoring concern (filled in by the scoring layer's conversion)."""

from __future__ import annotations


class ClusteringScoring:
    """Clustering's scoring behaviour."""
