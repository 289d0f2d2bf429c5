"""The multilabel classification task type: one class composed of its concerns (see base.py).

MTEB's ``MultilabelClassification``: a text and every label that applies to it. People tick the
labels (Label Studio's Choices, multiple); humans are scored by mteb's main score, exact-match
accuracy; models by mteb's own kNN procedure on the subset's train pool. Registered in
:mod:`hume_sync.task_types` like the other types; nothing else names it.
"""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.multilabel_classification.interface import MultilabelInterface
from hume_sync.task_types.multilabel_classification.llm import MultilabelLLM
from hume_sync.task_types.multilabel_classification.model import MultilabelModel
from hume_sync.task_types.multilabel_classification.scoring import MultilabelScoring
from hume_sync.task_types.multilabel_classification.study import MultilabelStudy


class MultilabelClassification(
    MultilabelStudy,
    MultilabelInterface,
    MultilabelModel,
    MultilabelLLM,
    MultilabelScoring,
    TaskType,
):
    name = "multilabel_classification"
    mteb_type = "MultilabelClassification"
