"""Label Studio labeling configs for the HUME task types.

One module per type (``classification``, ``clustering``, ``pair_classification``, ``reranking``,
``sts``), each with its XML template and the same functions
(:class:`~label_studio_configs.interface.TaskConfig`):

- ``render_config(*, labels=None, n_groups=None, instructions=None, language="en") -> str``
- ``task_data(hume_ref, content) -> dict`` (the Label Studio task ``data``: the content and an
  opaque reference to the study instance; never gold, nor ids that could encode it; setup adds
  the task's place, "Task n of N", through ``TaskInterface.ls_task_data``)
- ``result_to_answer(result, *, labels=None, n_groups=None, item_ids=None) -> answer``
- ``answer_to_result(answer, *, labels=None, n_groups=None, item_ids=None) -> list[dict]``

There is no registry here: each task type class of the conductor's registry implements
:class:`~label_studio_configs.interface.TaskInterface` by naming its module, and callers pass
that object around instead of a type name.
"""

from __future__ import annotations

from .errors import (
    ConfigError,
    InvalidAnswerError,
    InvalidContentError,
    InvalidResultError,
)
from .interface import TaskConfig, TaskInterface

__all__ = [
    "ConfigError",
    "InvalidAnswerError",
    "InvalidContentError",
    "InvalidResultError",
    "TaskConfig",
    "TaskInterface",
]
