"""The clustering task type: one class composed of its concerns (see base.py)."""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.clustering.interface import ClusteringInterface
from hume_sync.task_types.clustering.llm import ClusteringLLM
from hume_sync.task_types.clustering.model import ClusteringModel
from hume_sync.task_types.clustering.scoring import ClusteringScoring
from hume_sync.task_types.clustering.study import ClusteringStudy


class Clustering(
    ClusteringStudy,
    ClusteringInterface,
    ClusteringModel,
    ClusteringLLM,
    ClusteringScoring,
    TaskType,
):
    name = "clustering"
    mteb_type = "Clustering"
