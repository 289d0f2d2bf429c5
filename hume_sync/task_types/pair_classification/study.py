"""Pair classification: the study concern (reading sources, sampling, instances, spec fields).

A record is a :class:`LabelledPair`: two texts and a binary label (1: the relation holds —
paraphrase, duplicate, entailment; 0: it does not), MTEB's ``PairClassification`` shape. A
source may label pairs 0/1 or by name (SICK's ``entailment_judgment``); names are kept as read
and resolved when the subset is sampled, by the spec's ``label_set``: the source's label names
to use, the first one counting as 1 and the others as 0 (``[ENTAILMENT, NEUTRAL, CONTRADICTION]``
for SICK; ``[ENTAILMENT, CONTRADICTION]`` leaves the neutral pairs out, as classification leaves
out labels outside its ``label_set``). Sources:

* local files, JSONL / CSV / TSV, one row per pair, read by the study's own reader
  (:func:`hume_sync.study.sources.load_records`, which calls
  :meth:`PairClassificationStudy.study_record_from_row` per row); SICK's release file is a TSV
  whose columns :data:`SICK_COLUMNS` maps (spec: ``format: tsv``, ``columns``, ``label_set``);
* an mteb ``PairClassification`` split (:func:`records_from_mteb`): the task's columns
  (``sentence1``, ``sentence2``, ``labels``), one row per pair or mteb v1's single row of lists.

Sampling draws the same number of pairs of each label where it can (a label with too few gives
all it has and the other fills up; both reported), from the subset's own seeded generator, and
shows the sample in a seeded shuffled order, never grouped by label. Instances keep gold apart
from the content annotators see; content holds the two texts only.

Implements :class:`hume_sync.study.rules.StudyRules`, whose template methods
(``study_sample_subset``, ``study_take_all``, ``study_instances``) call the hooks below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hume_sync.errors import SamplingError, SourceError
from hume_sync.study.readers import as_id
from hume_sync.study.records import TextItem
from hume_sync.study.rules import StudyRules, SubsetFields
from hume_sync.study.sampling import (
    Instance,
    Sample,
    SampleReport,
    SamplingParams,
    SourcePositions,
)

#: The record fields, in the positional order used when a CSV/TSV has no header.
FIELDS: tuple[str, ...] = ("sentence1", "sentence2", "label", "id")
#: SICK's release format (``SICK_test_annotated.txt`` and friends): entailment vs the rest.
SICK_COLUMNS: Mapping[str, str] = {
    "id": "pair_ID",
    "sentence1": "sentence_A",
    "sentence2": "sentence_B",
    "label": "entailment_judgment",
}
#: SICK's three judgments as a ``label_set``: entailment (1) against the other two (0).
SICK_LABEL_SET: tuple[str, ...] = ("ENTAILMENT", "NEUTRAL", "CONTRADICTION")
#: mteb's column names (``AbsTaskPairClassification``).
MTEB_COLUMNS: tuple[str, str, str] = ("sentence1", "sentence2", "labels")

if TYPE_CHECKING:
    from hume_sync.task_types.pair_classification.settings import PairClassificationSettings


@dataclass(frozen=True)
class LabelledPair:
    """One pair: two texts and the gold label, 1 or 0 (or, before the subset's ``label_set``
    resolved it, the source's label name)."""

    id: str
    sentence1: str
    sentence2: str
    label: int | str


# --------------------------------------------------------------------------------------------
# Reading


def _text(value: Any, name: str, where: str | Path, line: int | None) -> str:
    if not isinstance(value, str):
        raise SourceError(
            where, f"{name!r} must be a string, got {type(value).__name__}", line=line
        )
    if not value.strip():
        raise SourceError(where, f"{name!r} is empty", line=line)
    return value.strip()


def _label(value: Any, where: str | Path, line: int | None) -> int | str:
    """1/0 from a source label, or its name (kept for the subset's ``label_set``).

    0/1 in any spelling (int, 0.0/1.0, "0"/"1", true/false) is the label; any other number is
    an error (a 3-class label read as binary would be silently wrong); other text is a name.
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        if value in (0, 1):
            return int(value)
        raise SourceError(where, f"label must be 0 or 1, got {value!r}", line=line)
    if not isinstance(value, str) or not value.strip():
        raise SourceError(where, f"label {value!r} is neither 0/1 nor a label name", line=line)
    text = value.strip()
    if text in ("0", "1"):
        return int(text)
    try:
        float(text)
    except ValueError:
        pass
    else:
        raise SourceError(where, f"label must be 0 or 1, got {value!r}", line=line)
    return text


def resolve_labels(
    records: Sequence[LabelledPair], label_set: Sequence[str] | None
) -> tuple[list[LabelledPair], list[str]]:
    """Records with 1/0 labels, and notes on what was left out.

    With named labels, ``label_set`` (the spec's) lists the names to use: the first counts as 1,
    the others as 0, and pairs with a name outside it are left out (counted in a note). Names
    without a ``label_set``, a ``label_set`` for 0/1 labels, or a positive name no pair has
    are errors: each means the spec and the source do not fit.
    """
    names = sorted({r.label for r in records if isinstance(r.label, str)})
    if label_set is None:
        if names:
            raise SamplingError(
                f"the source labels pairs by name ({', '.join(names[:5])}); list the names to "
                "use in label_set, the one that counts as 1 first"
            )
        return list(records), []
    if not names:
        raise SamplingError("label_set lists label names, but the source labels pairs 0/1")
    labels = list(label_set)
    if labels[0] not in names:
        raise SamplingError(
            f"no pair has the positive label {labels[0]!r} (the first of label_set); "
            f"the source's labels: {names[:10]!r}"
        )
    kept = [
        LabelledPair(r.id, r.sentence1, r.sentence2, int(r.label == labels[0]))
        for r in records
        if isinstance(r.label, str) and r.label in labels
    ]
    left_out = len(records) - len(kept)
    notes = [f"{left_out} pair(s) with labels outside label_set were dropped"] if left_out else []
    return kept, notes


def _record(row: Mapping[str, Any], where: str | Path, line: int | None) -> LabelledPair:
    """One row (fields mapped; ``id`` given) as a pair, or a one-line ``SourceError``."""
    if "label" not in row or row["label"] is None:
        raise SourceError(where, "missing field 'label'", line=line)
    return LabelledPair(
        id=as_id(row.get("id"), where, line, "id"),
        sentence1=_text(row.get("sentence1"), "sentence1", where, line),
        sentence2=_text(row.get("sentence2"), "sentence2", where, line),
        label=_label(row["label"], where, line),
    )


def _check_unique(records: Sequence[LabelledPair], where: str | Path) -> None:
    seen: set[str] = set()
    for r in records:
        if r.id in seen:
            raise SourceError(where, f"id {r.id!r} appears twice")
        seen.add(r.id)


def _column_names(data: Any) -> list[str]:
    names = getattr(data, "column_names", None)
    if names is not None:
        return list(names)
    if isinstance(data, Mapping):
        return list(data)
    raise SourceError("<mteb>", f"cannot read columns of a {type(data).__name__}")


def records_from_mteb(
    data: Any,
    *,
    columns: tuple[str, str, str] = MTEB_COLUMNS,
    where: str = "<mteb>",
) -> list[LabelledPair]:
    """An mteb ``PairClassification`` split (a ``datasets.Dataset`` or a dict of columns).

    mteb v1 stored a split as one row whose cells are the whole lists; like mteb
    (``Dataset.from_dict(data_split[0])``), such a split is unpacked first. Ids are the row
    positions unless the split has an ``id`` column.
    """
    names = _column_names(data)
    for col in columns:
        if col not in names:
            raise SourceError(where, f"no column {col!r} (has: {', '.join(names)})")
    first, second, labels = (list(data[c]) for c in columns)
    if len(labels) == 1 and isinstance(labels[0], list):  # v1: a single row of lists
        first, second, labels = first[0], second[0], labels[0]
        ids = [str(n) for n in range(len(labels))]
    else:
        ids = (
            [str(i) for i in data["id"]] if "id" in names else [str(n) for n in range(len(labels))]
        )
    if not len(first) == len(second) == len(labels) == len(ids):
        raise SourceError(where, "the columns differ in length")
    out = [
        _record({"id": rid, "sentence1": a, "sentence2": b, "label": lab}, where, None)
        for rid, a, b, lab in zip(ids, first, second, labels, strict=True)
    ]
    _check_unique(out, where)
    return out


# --------------------------------------------------------------------------------------------
# Sampling and instances


def sample_pairs(records: Sequence[LabelledPair], size: int, rng: np.random.Generator) -> Sample:
    """``size`` pairs, half of each label where possible, in a seeded shuffled order.

    Records are put in id order first, so which pairs are drawn does not depend on file order.
    An odd size gives the extra pair to a label chosen by the generator; a label with too few
    pairs gives all it has and the other label fills the rest (a shortfall in the report).
    Labels must be resolved (:func:`resolve_labels`).
    """
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise SamplingError(f"size must be a positive integer, got {size!r}")
    pool = sorted(records, key=lambda r: r.id)
    if not pool:
        raise SamplingError("no pairs to sample from")
    groups = {lab: [r for r in pool if r.label == lab] for lab in (0, 1)}
    if len(groups[0]) + len(groups[1]) != len(pool):
        raise SamplingError("labels must be resolved to 0/1 before sampling")
    order = [int(x) for x in rng.permutation(2)]  # which label gets an odd pair first
    quota = {0: 0, 1: 0}
    remaining = min(size, len(pool))
    while remaining:
        for lab in order:
            if remaining and quota[lab] < len(groups[lab]):
                quota[lab] += 1
                remaining -= 1
    even = size // 2
    shortfalls = {str(lab): even - len(groups[lab]) for lab in (0, 1) if len(groups[lab]) < even}
    notes = [
        f"label {lab} has only {len(groups[int(lab)])} pair(s), {short} short of {even}"
        for lab, short in shortfalls.items()
    ]
    chosen: list[LabelledPair] = []
    for lab in (0, 1):
        items = groups[lab]
        idx = sorted(rng.choice(len(items), size=quota[lab], replace=False)) if quota[lab] else []
        chosen.extend(items[i] for i in idx)
    if len(chosen) < size:
        notes.append(f"only {len(chosen)} of {size} pairs available")
    shuffled = [chosen[i] for i in rng.permutation(len(chosen))]
    return Sample(
        records=shuffled,
        report=SampleReport(
            method="balanced-per-label",
            requested=size,
            sampled=len(chosen),
            available=len(pool),
            per_label={str(lab): quota[lab] for lab in (0, 1)},
            shortfalls=shortfalls,
            notes=notes,
        ),
    )


def pair_instance(record: LabelledPair, source_position: int | None = None) -> Instance:
    """The stored instance of a pair: the two texts as content, the 1/0 label as gold."""
    if not isinstance(record, LabelledPair) or isinstance(record.label, str):
        raise SamplingError(f"record {getattr(record, 'id', record)!r} is not a labelled pair")
    return Instance(
        source_id=record.id,
        content={"sentence1": record.sentence1, "sentence2": record.sentence2},
        gold=int(record.label),
        source_position=source_position,
    )


# --------------------------------------------------------------------------------------------
# The mixin


class PairClassificationStudy(StudyRules[LabelledPair]):
    """Pair classification's study behaviour (the ``StudyRules`` hooks)."""

    @property
    def study_settings(self) -> type[PairClassificationSettings]:
        from hume_sync.task_types.pair_classification.settings import PairClassificationSettings

        return PairClassificationSettings

    study_record_fields: tuple[str, ...] = FIELDS

    def study_check_fields(self, fields: SubsetFields) -> None:
        """``size`` is required to sample and must allow a pair of each label."""
        if fields.size is None:
            if fields.sampling == "sample":
                fields.fail("size", "required (pairs to sample)")
        elif fields.size < 2:
            fields.fail("size", f"must be at least 2 (a pair of each label), got {fields.size}")

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> LabelledPair:
        """One row of a local file (fields mapped, ``id`` a string) as a pair."""
        return _record(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[LabelledPair], tuple[TextItem, ...] | None]:
        """The pairs of one split of an mteb ``PairClassification`` task (no train pool)."""
        columns = (
            getattr(mteb_task, "input1_column_name", MTEB_COLUMNS[0]),
            getattr(mteb_task, "input2_column_name", MTEB_COLUMNS[1]),
            getattr(mteb_task, "label_column_name", MTEB_COLUMNS[2]),
        )
        if not all(isinstance(c, str) for c in columns):
            raise SourceError(where, f"not a text pair task (columns {columns!r})")
        return records_from_mteb(data, columns=columns, where=where), None

    def study_sample(
        self, records: Sequence[LabelledPair], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        """Balanced per label (see :func:`sample_pairs`), after ``label_set`` resolved names."""
        if params.size is None:
            raise SamplingError("size is required to sample pairs")
        resolved, notes = resolve_labels(records, params.settings.label_set)
        sample = sample_pairs(resolved, params.size, rng)
        sample.report.notes[:0] = notes
        return sample

    def study_take_all_details(
        self,
        pool: list[LabelledPair],
        rng: np.random.Generator,
        params: SamplingParams,
        notes: list[str],
    ) -> tuple[list[LabelledPair], dict[str, int]]:
        """A source taken whole: labels resolved, counted per label (nothing else is drawn)."""
        resolved, dropped = resolve_labels(pool, params.settings.label_set)
        notes.extend(dropped)
        return resolved, {str(lab): sum(r.label == lab for r in resolved) for lab in (0, 1)}

    def study_to_instances(
        self, records: Sequence[LabelledPair], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        """Stored instances in presentation order (a pair has no items to name)."""
        return [pair_instance(r, positions.records.get(r.id)) for r in records]

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[LabelledPair],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        """The subset's stored config: the source names used, the first counted as 1 (how gold
        was made, not gold itself; the interface never shows it)."""
        label_set = params.settings.label_set
        return {"label_set": list(label_set) if label_set else None}
