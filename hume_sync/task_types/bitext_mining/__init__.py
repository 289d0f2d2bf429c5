"""The bitext-mining task type: one class composed of its concerns (see base.py).

MTEB's ``BitextMining``: a sentence and its translation among many. People choose among a few
candidates (gold, the models' near misses, random fillers); see :mod:`.study`. Registered in
:mod:`hume_sync.task_types` like the other types; nothing else names it.
"""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.bitext_mining.interface import BitextMiningInterface
from hume_sync.task_types.bitext_mining.llm import BitextMiningLLM
from hume_sync.task_types.bitext_mining.model import BitextMiningModel
from hume_sync.task_types.bitext_mining.scoring import BitextMiningScoring
from hume_sync.task_types.bitext_mining.study import BitextMiningStudy


class BitextMining(
    BitextMiningStudy,
    BitextMiningInterface,
    BitextMiningModel,
    BitextMiningLLM,
    BitextMiningScoring,
    TaskType,
):
    name = "bitext_mining"
    mteb_type = "BitextMining"
