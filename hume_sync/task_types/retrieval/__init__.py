"""The retrieval task type: one class composed of its concerns (see base.py).

People grade a TREC-style pool per query (what several systems retrieve from the whole corpus,
plus qrels' relevant documents; built at ``init``, :mod:`.pooling`), and their grades order the
pool, scored as mteb scores a model's ranking (by the subset's main score: nDCG@10 unless its task
names another, :meth:`Retrieval.for_subset`); models are scored on the same pool.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Self

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.retrieval.interface import RetrievalInterface
from hume_sync.task_types.retrieval.llm import RetrievalLLM
from hume_sync.task_types.retrieval.model import RetrievalModel
from hume_sync.task_types.retrieval.scoring import RetrievalScoring
from hume_sync.task_types.retrieval.study import RetrievalStudy


class Retrieval(
    RetrievalStudy, RetrievalInterface, RetrievalModel, RetrievalLLM, RetrievalScoring, TaskType
):
    name = "retrieval"
    mteb_type = "Retrieval"
    exports_judgments = True

    def for_subset(self, config: Mapping[str, Any]) -> Self:
        """The type scoring by the subset's main score (stored at ``init`` where it is not
        nDCG@10); ``self`` for an nDCG@10 subset."""
        main = config.get("main_score")
        if not main or main == self.score_main_name:
            return self
        configured = copy.copy(self)
        configured.main_score = str(main)
        return configured

    @property
    def study_mteb_types(self) -> tuple[str, ...]:
        """Retrieval, instruction retrieval (the instruction is shown beside the query) and
        any-to-any retrieval where it is text to text (mteb's ``AbsTaskRetrieval`` all three;
        a task with another modality is refused when read,
        :func:`hume_sync.study.sources.mteb_task_info`)."""
        return ("Retrieval", "InstructionRetrieval", "Any2AnyRetrieval")
