"""The reranking task type: one class composed of its concerns (see base.py)."""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.reranking.interface import RerankingInterface
from hume_sync.task_types.reranking.llm import RerankingLLM
from hume_sync.task_types.reranking.model import RerankingModel
from hume_sync.task_types.reranking.scoring import RerankingScoring
from hume_sync.task_types.reranking.study import RerankingStudy


class Reranking(
    RerankingStudy, RerankingInterface, RerankingModel, RerankingLLM, RerankingScoring, TaskType
):
    name = "reranking"
    mteb_type = "Reranking"
