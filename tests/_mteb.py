"""Running mteb's own task classes in tests: ``AbsTask.evaluate`` on data the test provides.

Shared by the parity tests (``tests/ml_backend/test_parity.py`` compares the procedures,
``test_store_parity.py`` the whole store path). The data always comes from the test itself,
never from hume, so the two sides of a comparison never share code.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

TOL = 1e-6
ENCODE_KWARGS = {"batch_size": 32, "show_progress_bar": False}


def run_mteb(
    task_name: str,
    subset: str,
    data: Any,
    model: Any,
    folder: Path,
    **attrs: Any,
) -> tuple[dict[str, Any], Any]:
    """Evaluate ``model`` with mteb's task class on ``data``; return (scores, predictions).

    ``data`` goes in as ``task.dataset`` (what the task's ``load_data`` would have loaded);
    ``attrs`` override task attributes (e.g. ``samples_per_label``); mteb's per-item predictions
    are read back from its ``prediction_folder`` output.
    """
    import mteb

    task = mteb.get_task(task_name)
    task.dataset = data
    task.data_loaded = True
    for key, value in attrs.items():
        setattr(task, key, value)
    folder.mkdir(parents=True, exist_ok=True)
    scores = task.evaluate(
        model,
        "test",
        subsets_to_run=[subset],
        encode_kwargs=dict(ENCODE_KWARGS),
        prediction_folder=folder,
    )
    predictions = json.loads((folder / task.prediction_file_name).read_text())
    return dict(scores[subset]), predictions[subset]["test"]


def max_diff(ours: Mapping[str, Any], theirs: Mapping[str, Any], keys: Sequence[str]) -> float:
    """Largest |ours - theirs| over ``keys`` (both must have them; NaN only matches NaN)."""
    worst = 0.0
    for key in keys:
        a, b = float(ours[key]), float(theirs[key])
        if math.isnan(a) or math.isnan(b):
            assert math.isnan(a) and math.isnan(b), key
            continue
        worst = max(worst, abs(a - b))
    return worst


def report(what: str, value: float, main_score: float | None = None) -> None:
    extra = "" if main_score is None else f" (main score {main_score:.6f})"
    print(f"\n[parity] {what}: max |ours - mteb| = {value:.3g}{extra}")
