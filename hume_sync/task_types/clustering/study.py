"""Clustering: the study concern (filled in by the study layer's conversion)."""

from __future__ import annotations


class ClusteringStudy:
    """Clustering's study behaviour."""
