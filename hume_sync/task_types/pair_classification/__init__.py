"""The pair-classification task type: one class composed of its concerns (see base.py).

MTEB's ``PairClassification``: two texts, a binary label (paraphrase, duplicate, entailment).
Registered in :mod:`hume_sync.task_types` like the other types; nothing else names it.
"""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.pair_classification.interface import PairClassificationInterface
from hume_sync.task_types.pair_classification.llm import PairClassificationLLM
from hume_sync.task_types.pair_classification.model import PairClassificationModel
from hume_sync.task_types.pair_classification.scoring import PairClassificationScoring
from hume_sync.task_types.pair_classification.study import PairClassificationStudy


class PairClassification(
    PairClassificationStudy,
    PairClassificationInterface,
    PairClassificationModel,
    PairClassificationLLM,
    PairClassificationScoring,
    TaskType,
):
    name = "pair_classification"
    mteb_type = "PairClassification"
