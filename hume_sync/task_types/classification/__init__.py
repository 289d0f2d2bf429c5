"""The classification task type: one class composed of its concerns (see base.py)."""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.classification.interface import ClassificationInterface
from hume_sync.task_types.classification.llm import ClassificationLLM
from hume_sync.task_types.classification.model import ClassificationModel
from hume_sync.task_types.classification.scoring import ClassificationScoring
from hume_sync.task_types.classification.study import ClassificationStudy


class Classification(
    ClassificationStudy,
    ClassificationInterface,
    ClassificationModel,
    ClassificationLLM,
    ClassificationScoring,
    TaskType,
):
    name = "classification"
    mteb_type = "Classification"
