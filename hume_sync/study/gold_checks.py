"""Spec settings checked against the data they describe, once the data is loaded.

The spec alone cannot tell these mistakes; the data can, and each one would otherwise be accepted
silently and spoil the measurement:

- a classification or clustering ``label_set`` that lacks a gold label of the instances to be
  annotated: an annotator cannot choose the right answer, so the human score on those items is 0
  by construction (``sampling: all`` takes every item, whatever its label), and a ``label_set``
  that shares no label with the data leaves nothing to annotate;
- an STS gold score outside the subset's ``score_range``: the range sets the annotators' scale and
  the sampling bins, so a score outside it means the range (or the data) is wrong.

Each problem raises :class:`~hume_sync.errors.SpecError` naming the spec file, the task, the
field, the offending value and the data file it came from.
"""

from __future__ import annotations

from collections.abc import Iterable

from hume_sync.errors import SpecError
from hume_sync.study.sources import PairItem, Record, SourceData, TextItem
from hume_sync.study.spec import StudySpec, SubsetSpec, TaskSpec

MAX_LISTED = 5


def _data_file(task: TaskSpec, subset: SubsetSpec, data: SourceData) -> str:
    if subset.path is not None:
        return subset.path
    origin = data.origin
    name = origin.get("mteb") or origin.get("task") or task.source.mteb
    return f"MTEB task {name}" if name else "the source data"


def _listed(values: Iterable[str]) -> str:
    items = sorted(set(values))
    shown = ", ".join(repr(v) for v in items[:MAX_LISTED])
    return shown + (f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def check_gold_against_spec(
    spec: StudySpec, task: TaskSpec, subset: SubsetSpec, data: SourceData
) -> None:
    """Refuse a ``label_set`` without the gold labels, or STS gold outside ``score_range``.

    Run on the loaded data before sampling. ``sampling: sample`` draws only items whose label is
    in ``label_set`` (the others are dropped and reported), so there only a ``label_set`` that
    shares no label with the data is refused; ``sampling: all`` keeps every item, so there every
    gold label must be in ``label_set``.
    """
    field_ = f"subsets[{subset.name}]"
    source = _data_file(task, subset, data)
    # The settings of the types that have them; the records tell which checks apply.
    label_set = getattr(subset.settings, "label_set", None)
    score_range = getattr(subset.settings, "score_range", None)
    if label_set is not None:  # only labelled texts have labels to check
        allowed = set(label_set)
        data_labels = {r.label for r in data.records if isinstance(r, TextItem)}
        if data_labels and not data_labels & allowed:
            raise SpecError(
                spec.file,
                f"label_set {list(label_set)} shares no label with the gold labels of "
                f"{source} ({_listed(data_labels)})",
                task=task.name,
                field=f"{field_}.label_set",
            )
        missing = data_labels - allowed if subset.sampling == "all" else set()
        if missing:
            raise SpecError(
                spec.file,
                f"label_set {list(label_set)} lacks gold label(s) {_listed(missing)} "
                f"of the items taken from {source} (sampling: all); annotators could never be "
                "right on them (add the labels, or drop those items from the data)",
                task=task.name,
                field=f"{field_}.label_set",
            )
    if score_range is not None:  # only pairs have scores to check
        low, high = score_range
        outside = _outside(data.records, low, high)
        if outside is not None:
            item, n = outside
            more = f" (and {n - 1} more pair(s))" if n > 1 else ""
            raise SpecError(
                spec.file,
                f"gold score {item.score:g} of pair {item.id!r} in {source} is outside "
                f"score_range [{low:g}, {high:g}]{more}; fix score_range or the data",
                task=task.name,
                field=f"{field_}.score_range",
            )


def _outside(records: Iterable[Record], low: float, high: float) -> tuple[PairItem, int] | None:
    """The first pair whose gold score lies outside [low, high], and how many do."""
    bad = [r for r in records if isinstance(r, PairItem) and not low <= r.score <= high]
    return (bad[0], len(bad)) if bad else None
