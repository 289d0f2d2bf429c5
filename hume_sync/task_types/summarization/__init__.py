"""The summarization task type: one class composed of its concerns (see base.py).

MTEB's ``Summarization`` (SummEval): a text, its machine summaries with expert relevance
scores, and reference summaries. People rate each machine summary 1–5; see :mod:`.study`.
Registered in :mod:`hume_sync.task_types` like the other types; nothing else names it.
"""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.summarization.interface import SummarizationInterface
from hume_sync.task_types.summarization.llm import SummarizationLLM
from hume_sync.task_types.summarization.model import SummarizationModel
from hume_sync.task_types.summarization.scoring import SummarizationScoring
from hume_sync.task_types.summarization.study import SummarizationStudy


class Summarization(
    SummarizationStudy,
    SummarizationInterface,
    SummarizationModel,
    SummarizationLLM,
    SummarizationScoring,
    TaskType,
):
    name = "summarization"
    mteb_type = "Summarization"
