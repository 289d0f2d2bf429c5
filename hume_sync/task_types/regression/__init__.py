"""The regression task type: one class composed of its concerns (see base.py).

MTEB's ``Regression``: a text and a number (RuSciBench's citation counts and publication years).
People read the text and give the number; their mean per text is scored by mteb's Kendall τ
against gold, models by mteb's linear regression on a train pool. Registered in
:mod:`hume_sync.task_types` like the other types; nothing else names it.
"""

from __future__ import annotations

from hume_sync.task_types.base import TaskType
from hume_sync.task_types.regression.interface import RegressionInterface
from hume_sync.task_types.regression.llm import RegressionLLM
from hume_sync.task_types.regression.model import RegressionModel
from hume_sync.task_types.regression.scoring import RegressionScoring
from hume_sync.task_types.regression.study import RegressionStudy


class Regression(
    RegressionStudy,
    RegressionInterface,
    RegressionModel,
    RegressionLLM,
    RegressionScoring,
    TaskType,
):
    name = "regression"
    mteb_type = "Regression"
