"""Pair classification: the study concern (reading sources, sampling, instances, spec fields).

A record is a :class:`LabelledPair`: two texts and a binary label (1: the relation holds —
paraphrase, duplicate, entailment; 0: it does not), MTEB's ``PairClassification`` shape.
Sources:

* local files, JSONL / CSV / TSV with a column map (:func:`read_pair_file`); a source whose label
  column holds names (SICK's ``entailment_judgment``) names the ones that count as 1 with
  ``positive_labels``. :func:`read_sick` is that call for the SICK release format;
* an mteb ``PairClassification`` split (:func:`records_from_mteb`): columns ``sentence1``,
  ``sentence2``, ``labels``, either one row per pair or mteb v1's single row of lists.

Sampling draws the same number of pairs of each label where it can (a class with too few gives
all it has and the other class fills up; both reported), with a seeded generator per subset,
and shows the sample in a seeded shuffled order, never grouped by label. Instances keep gold
apart from the content annotators see; content holds the two texts only.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hume_sync.errors import SamplingError, SourceError
from hume_sync.study.sampling import (
    Instance,
    Sample,
    SampleReport,
    subset_rng,
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
SICK_POSITIVE: tuple[str, ...] = ("ENTAILMENT",)
SICK_JUDGMENTS: frozenset[str] = frozenset({"ENTAILMENT", "NEUTRAL", "CONTRADICTION"})
#: mteb's column names (``AbsTaskPairClassification``).
MTEB_COLUMNS: tuple[str, str, str] = ("sentence1", "sentence2", "labels")

#: Spec fields this type reads, and the other types' fields it refuses (a typo or a copied
#: entry must not be silently ignored).
SPEC_FIELDS: tuple[str, ...] = ("size", "instructions", "pair_labels", "positive_labels")
SPEC_FORBIDDEN: tuple[str, ...] = (
    "samples_per_label",
    "labels",
    "items_per_label",
    "candidates",
    "shuffle_candidates",
    "bins",
    "score_range",
    "label_set",
)


@dataclass(frozen=True)
class LabelledPair:
    """One pair: two texts and the gold label, 1 or 0."""

    id: str
    sentence1: str
    sentence2: str
    label: int


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


def _label(value: Any, where: str | Path, line: int | None, positive: Sequence[str] | None) -> int:
    """1/0 from a source label: named labels when ``positive`` is given, else 0/1 values."""
    if positive is not None:
        if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
            raise SourceError(where, f"label {value!r} is not a label name", line=line)
        return int(str(value).strip() in positive)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float) and value in (0, 1):
        return int(value)
    if isinstance(value, str) and value.strip() in ("0", "1"):
        return int(value.strip())
    raise SourceError(
        where,
        f"label must be 0 or 1, got {value!r} (name the positive labels with positive_labels)",
        line=line,
    )


def _record(
    row: Mapping[str, Any],
    where: str | Path,
    line: int | None,
    positive: Sequence[str] | None,
    fallback_id: str,
    allowed: frozenset[str] | None = None,
) -> LabelledPair:
    raw_id = row.get("id")
    if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
        rid = fallback_id
    elif isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
        raise SourceError(where, f"id must be a string or an integer, got {raw_id!r}", line=line)
    else:
        rid = str(raw_id).strip()
    if "label" not in row or row["label"] is None:
        raise SourceError(where, "missing field 'label'", line=line)
    if allowed is not None and str(row["label"]).strip() not in allowed:
        raise SourceError(
            where, f"label {row['label']!r} is not one of {sorted(allowed)!r}", line=line
        )
    return LabelledPair(
        id=rid,
        sentence1=_text(row.get("sentence1"), "sentence1", where, line),
        sentence2=_text(row.get("sentence2"), "sentence2", where, line),
        label=_label(row["label"], where, line, positive),
    )


def _check_unique(records: Sequence[LabelledPair], where: str | Path) -> None:
    seen: set[str] = set()
    for r in records:
        if r.id in seen:
            raise SourceError(where, f"id {r.id!r} appears twice")
        seen.add(r.id)


def _delimited(
    path: Path, fmt: str, columns: Mapping[str, str | int], header: bool
) -> Iterator[tuple[int, dict[str, Any]]]:
    kwargs: dict[str, Any] = (
        {"delimiter": "\t", "quoting": csv.QUOTE_NONE} if fmt == "tsv" else {"delimiter": ","}
    )
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, **kwargs)
        if header:
            names = [n.strip() for n in next(reader, [])]
            if not names:
                raise SourceError(path, "empty file")
            index = {n: i for i, n in enumerate(names)}
            positions: dict[str, int] = {}
            for fld in FIELDS:
                col = columns.get(fld, fld)
                if isinstance(col, int):
                    positions[fld] = col
                elif col in index:
                    positions[fld] = index[col]
                elif fld != "id" or fld in columns:
                    raise SourceError(
                        path, f"no column {col!r} for field {fld!r} in header", line=1
                    )
        else:
            positions = (
                {f: int(c) for f, c in columns.items()}
                if columns
                else {f: i for i, f in enumerate(FIELDS) if f != "id"}
            )
        try:
            for row in reader:
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) <= max(positions.values()):
                    raise SourceError(
                        path,
                        f"expected at least {max(positions.values()) + 1} columns, "
                        f"found {len(row)}",
                        line=reader.line_num,
                    )
                yield reader.line_num, {f: row[p] for f, p in positions.items()}
        except csv.Error as exc:
            raise SourceError(
                path, f"malformed {fmt.upper()}: {exc}", line=reader.line_num
            ) from None


def _jsonl(path: Path, columns: Mapping[str, str | int]) -> Iterator[tuple[int, dict[str, Any]]]:
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise SourceError(path, f"invalid JSON: {exc.msg}", line=lineno) from None
            if not isinstance(obj, dict):
                raise SourceError(path, "each line must be a JSON object", line=lineno)
            yield lineno, {**obj, **{f: obj.get(str(c)) for f, c in columns.items()}}


def read_pair_file(
    path: str | Path,
    *,
    fmt: str | None = None,
    columns: Mapping[str, str | int] | None = None,
    header: bool = True,
    positive_labels: Sequence[str] | None = None,
    allowed_labels: Iterable[str] | None = None,
) -> list[LabelledPair]:
    """Pairs from a local JSONL / CSV / TSV file, in file order (the source order).

    ``columns`` maps the fields ``id``, ``sentence1``, ``sentence2``, ``label`` to source
    columns (names, or positions without a header). Rows without an id get their line number.
    With ``positive_labels`` the label column holds names and those count as 1;
    ``allowed_labels`` then lists every name the column may hold.
    """
    path = Path(path)
    fmt = fmt or {".jsonl": "jsonl", ".csv": "csv", ".tsv": "tsv", ".txt": "tsv"}.get(
        path.suffix.lower()
    )
    if fmt not in ("jsonl", "csv", "tsv"):
        raise SourceError(path, "cannot tell the format; give jsonl, csv or tsv")
    if not path.is_file():
        raise SourceError(path, "file not found")
    positive = tuple(positive_labels) if positive_labels is not None else None
    allowed = frozenset(allowed_labels) if allowed_labels is not None else None
    rows: Iterable[tuple[int, dict[str, Any]]] = (
        _jsonl(path, columns or {})
        if fmt == "jsonl"
        else _delimited(path, fmt, columns or {}, header)
    )
    try:
        records = [_record(row, path, line, positive, str(line), allowed) for line, row in rows]
    except UnicodeDecodeError:
        raise SourceError(path, "not UTF-8 text; save the file as UTF-8") from None
    if not records:
        raise SourceError(path, "no pairs in the file")
    _check_unique(records, path)
    return records


def read_sick(
    path: str | Path, *, positive_labels: Sequence[str] = SICK_POSITIVE
) -> list[LabelledPair]:
    """SICK's release file as pairs: label 1 for ``ENTAILMENT``, 0 for NEUTRAL / CONTRADICTION.

    Every judgment must be one of SICK's three (a stray value means a wrong file or column).
    """
    return read_pair_file(
        path,
        fmt="tsv",
        columns=SICK_COLUMNS,
        positive_labels=positive_labels,
        allowed_labels=SICK_JUDGMENTS,
    )


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
        _record({"id": rid, "sentence1": a, "sentence2": b, "label": lab}, where, None, None, rid)
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
    """
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise SamplingError(f"size must be a positive integer, got {size!r}")
    pool = sorted(records, key=lambda r: r.id)
    if not pool:
        raise SamplingError("no pairs to sample from")
    groups = {lab: [r for r in pool if r.label == lab] for lab in (0, 1)}
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
        records=shuffled,  # type: ignore[arg-type]
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


def take_all_pairs(records: Sequence[LabelledPair], rng: np.random.Generator) -> Sample:
    """Every pair (the source is the sample), shown in a seeded shuffled order."""
    pool = sorted(records, key=lambda r: r.id)
    if not pool:
        raise SamplingError("no pairs to sample from")
    per_label = {str(lab): sum(r.label == lab for r in pool) for lab in (0, 1)}
    return Sample(
        records=[pool[i] for i in rng.permutation(len(pool))],  # type: ignore[misc]
        report=SampleReport(
            method="all",
            requested=len(pool),
            sampled=len(pool),
            available=len(records),
            per_label=per_label,
        ),
    )


def pair_instances(
    sample: Sequence[LabelledPair], source: Sequence[LabelledPair] | None = None
) -> list[Instance]:
    """Stored instances in presentation order: the two texts as content, the label as gold.

    ``source`` (the records as loaded) gives each instance its ``source_position``, the order
    models see pairs in (mteb's numbers do not depend on it, but the store keeps one order).
    """
    positions = {r.id: n for n, r in enumerate(source if source is not None else sample)}
    return [
        Instance(
            source_id=r.id,
            content={"sentence1": r.sentence1, "sentence2": r.sentence2},
            gold=int(r.label),
            source_position=positions.get(r.id),
        )
        for r in sample
    ]


# --------------------------------------------------------------------------------------------
# The mixin


class PairClassificationStudy:
    """Pair classification's study behaviour: spec fields, sources, sampling, instances."""

    study_record_fields: tuple[str, ...] = FIELDS
    study_spec_fields: tuple[str, ...] = SPEC_FIELDS
    study_spec_forbidden: tuple[str, ...] = SPEC_FORBIDDEN
    study_mteb_columns: tuple[str, str, str] = MTEB_COLUMNS

    def study_check_fields(
        self, fields: Mapping[str, Any], *, sampling: str = "sample"
    ) -> list[tuple[str, str]]:
        """Problems of a subset's merged spec fields, as (field, reason); empty when fine."""
        problems = [
            (key, "not used by pair_classification tasks")
            for key in SPEC_FORBIDDEN
            if key in fields
        ]
        size = fields.get("size")
        if size is None:
            if sampling == "sample":
                problems.append(("size", "required (pairs to sample)"))
        elif isinstance(size, bool) or not isinstance(size, int) or size < 2:
            problems.append(("size", f"must be an integer >= 2, got {size!r}"))
        positive = fields.get("positive_labels")
        if positive is not None and (
            isinstance(positive, str)
            or not isinstance(positive, Sequence)
            or not positive
            or not all(isinstance(p, str) and p.strip() for p in positive)
        ):
            problems.append(("positive_labels", "must be a non-empty list of label names"))
        labels = fields.get("pair_labels")
        if labels is not None:
            from label_studio_configs import pair_classification as lsc_pair
            from label_studio_configs.errors import ConfigError

            try:
                keyed = {int(str(k)): v for k, v in dict(labels).items()}
                lsc_pair.labels_of(keyed)
            except (ConfigError, TypeError, ValueError) as exc:
                problems.append(("pair_labels", f"must be {{1: text, 0: text}} ({exc})"))
        return problems

    def study_read_file(
        self,
        path: str | Path,
        *,
        fmt: str | None = None,
        columns: Mapping[str, str | int] | None = None,
        header: bool = True,
        positive_labels: Sequence[str] | None = None,
    ) -> list[LabelledPair]:
        """Pairs from a local file (see :func:`read_pair_file`)."""
        return read_pair_file(
            path, fmt=fmt, columns=columns, header=header, positive_labels=positive_labels
        )

    def study_read_sick(self, path: str | Path) -> list[LabelledPair]:
        """Pairs from SICK's release file, entailment vs the rest."""
        return read_sick(path)

    def study_records_from_mteb(self, data: Any, *, where: str = "<mteb>") -> list[LabelledPair]:
        """Pairs from an mteb split (see :func:`records_from_mteb`)."""
        return records_from_mteb(data, where=where)

    def study_sample(
        self,
        records: Sequence[LabelledPair],
        *,
        seed: int,
        task: str,
        subset: str,
        size: int | None = None,
        sampling: str = "sample",
    ) -> Sample:
        """The subset's sample, drawn with its own generator (study seed + task/subset name)."""
        rng = subset_rng(seed, task, subset)
        if sampling == "all":
            return take_all_pairs(records, rng)
        if sampling != "sample":
            raise SamplingError(f"unknown sampling mode {sampling!r}")
        if size is None:
            raise SamplingError("size is required to sample pairs")
        return sample_pairs(records, size, rng)

    def study_instances(
        self, sample: Sequence[LabelledPair], source: Sequence[LabelledPair] | None = None
    ) -> list[Instance]:
        """Instances (content without gold, gold apart) of a sample."""
        return pair_instances(sample, source)

    def study_content(self, record: LabelledPair) -> dict[str, str]:
        """What annotators see of a pair: the two texts."""
        return {"sentence1": record.sentence1, "sentence2": record.sentence2}

    def study_gold(self, record: LabelledPair) -> int:
        """A pair's gold label, 1 or 0 (never part of the content)."""
        return int(record.label)
