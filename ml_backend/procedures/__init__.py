"""MTEB's scoring procedure per task type, returning per-item model answers and the task score.

One module per registered task type, named as the type (``ml_backend/procedures/<name>.py``),
re-implements what the installed mteb 2.x evaluator does for it; :mod:`.common` holds what they
share (the result shape, the model's similarity) and names no type. A type's model procedure
(``hume_sync/task_types/<name>/model.py``) imports its own module only;
``tests/test_type_maths_convention.py`` keeps the modules in step with the registry.
"""

from __future__ import annotations

from ml_backend.procedures.common import ProcedureResult

#: The result every procedure returns, named here for the ``ModelProcedure`` protocol.
__all__ = ["ProcedureResult"]
