"""The sts task type: one class composed of its concerns (see base.py)."""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.sts.interface import STSInterface
from hume_sync.task_types.sts.llm import STSLLM
from hume_sync.task_types.sts.model import STSModel
from hume_sync.task_types.sts.scoring import STSScoring
from hume_sync.task_types.sts.study import STSStudy


class STS(STSStudy, STSInterface, STSModel, STSLLM, STSScoring, TaskType):
    name = "sts"
    mteb_type = "STS"
