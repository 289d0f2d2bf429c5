"""Clustering: the model concern (filled in by the model layer's conversion)."""

from __future__ import annotations


class ClusteringModel:
    """Clustering's model behaviour."""
