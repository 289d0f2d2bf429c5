"""Turn several annotators' answers into one human score, exactly as the HUME paper did.

One module per registered task type, named as the type (``scoring/aggregation/<name>.py``),
holds that type's rule (arXiv 2510.10062, and HUME's result-export script); :mod:`.common`
holds what they share (aligning answers to gold, the mean over annotators) and names no type.
A type's scoring rules (``hume_sync/task_types/<name>/scoring.py``) import its own module only;
``tests/test_type_maths_convention.py`` keeps the modules in step with the registry.
"""

__all__: list[str] = []
