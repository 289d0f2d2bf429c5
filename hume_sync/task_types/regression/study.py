"""Regression: the study concern (:class:`~hume_sync.study.rules.StudyRules`).

A text and its gold number per instance. The sample is drawn at random within value quantiles
(``bins``, ten as mteb stratifies its train sample), each quantile getting its share of the
size (proportional allocation, largest remainders): Kendall's τ depends on how the values
spread, so the sample keeps the source's spread rather than flattening it. A subset may carry a
train pool (mteb's train split, or ``train_path``), which mteb's linear regression learns from.

The record is a labelled text whose label is the number *as the source writes it*
(:class:`ValuedText`): the train pool is stored as labelled texts, and the written form tells
the data's precision, from which the answer's step is taken.
"""

from __future__ import annotations

import math
from collections import Counter
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
    by_id,
    permute,
)

if TYPE_CHECKING:
    from hume_sync.task_types.regression.settings import RegressionSettings

#: The record fields, in the positional order used when a CSV/TSV has no header.
FIELDS: tuple[str, ...] = ("text", "value", "id")
#: The finest step taken from the data: values written with more decimals get this one.
MAX_DECIMALS = 6


@dataclass(frozen=True)
class ValuedText(TextItem):
    """A text and its gold number; ``label`` is the number as the source writes it."""

    value: float = math.nan


def _decimals(written: str) -> int:
    """Decimal places of a number as written (``"3.80"`` → 1, ``"2015"`` → 0, ``"1e-3"`` → 3)."""
    text = written.strip().lower()
    if "e" in text:
        return min(MAX_DECIMALS, max(0, -math.floor(math.log10(abs(float(text)) or 1.0))))
    _, _, fraction = text.partition(".")
    return min(MAX_DECIMALS, len(fraction.rstrip("0")))


def data_step(records: Sequence[TextItem]) -> float:
    """The answer's step from the data: one unit of the decimal place most values are written
    with (a tie to the finer). The most common, not the finest: a few values averaged from
    several raters (SICK's ``3.625`` among its ``3.6``) should not force every answer onto a
    thousandths grid."""
    counts = Counter(_decimals(r.label) for r in records)
    if not counts:
        return 1.0
    top = max(counts.values())
    places = max(d for d, n in counts.items() if n == top)
    return float(10.0**-places) if places else 1.0


def _value(value: Any, where: str | Path, line: int | None) -> tuple[str, float]:
    """The number and its written form; a one-line ``SourceError`` otherwise."""
    if value is None:
        raise SourceError(where, "missing field 'value'", line=line)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise SourceError(where, f"'value' must be a number, got {value!r}", line=line)
    written = value.strip() if isinstance(value, str) else str(value)
    try:
        number = float(written)
    except ValueError:
        raise SourceError(where, f"'value' must be a number, got {value!r}", line=line) from None
    if not math.isfinite(number):
        raise SourceError(where, f"'value' must be a finite number, got {value!r}", line=line)
    if isinstance(value, float):
        written = repr(value)
    return written, number


def _text(value: Any, where: str | Path, line: int | None) -> str:
    if value is None:
        raise SourceError(where, "missing field 'text'", line=line)
    if not isinstance(value, str):
        raise SourceError(where, f"'text' must be a string, got {type(value).__name__}", line=line)
    if not value.strip():
        raise SourceError(where, "'text' is empty", line=line)
    return value.strip()


def read_valued(row: Mapping[str, Any], where: str | Path, line: int | None) -> ValuedText:
    """One row (fields mapped, ``id`` given) as a valued text, or a one-line ``SourceError``."""
    written, number = _value(row.get("value"), where, line)
    return ValuedText(
        id=as_id(row.get("id"), where, line, "id"),
        text=_text(row.get("text"), where, line),
        label=written,
        value=number,
    )


def records_from_mteb(
    data: Any, *, text_column: str, value_column: str, where: str
) -> list[ValuedText]:
    """One split of an mteb ``Regression`` task, ids the row positions (mteb has none)."""
    names = list(getattr(data, "column_names", None) or (data if isinstance(data, Mapping) else []))
    for col in (text_column, value_column):
        if col not in names:
            raise SourceError(where, f"no column {col!r} (has: {', '.join(map(str, names))})")
    texts, values = list(data[text_column]), list(data[value_column])
    return [
        read_valued({"id": str(n), "text": t, "value": v}, where, None)
        for n, (t, v) in enumerate(zip(texts, values, strict=True))
    ]


# --------------------------------------------------------------------------------------------
# Sampling


def quantile_bins(values: Sequence[float], n_bins: int) -> list[int]:
    """Each value's quantile bin (equal-count edges, repeated edges merged, top edge closed)."""
    edges = np.unique(np.quantile(np.asarray(values, dtype=float), np.linspace(0, 1, n_bins + 1)))
    inner = edges[1:-1]
    return [int(b) for b in np.searchsorted(inner, values, side="right")]


def proportional_quota(
    capacity: Mapping[int, int], size: int, rng: np.random.Generator
) -> dict[int, int]:
    """``size`` split over the bins in proportion to their counts, the remainders to the
    largest fractions (ties drawn with ``rng``)."""
    total = sum(capacity.values())
    take = min(size, total)
    exact = {b: take * n / total for b, n in capacity.items()}
    quota = {b: math.floor(x) for b, x in exact.items()}
    left = take - sum(quota.values())
    order = sorted(capacity, key=lambda b: (-(exact[b] - quota[b]), float(rng.random())))
    for b in order[:left]:
        quota[b] += 1
    return quota


def sample_valued(
    records: Sequence[ValuedText],
    size: int,
    rng: np.random.Generator,
    *,
    n_bins: int,
    value_range: tuple[float, float] | None,
) -> Sample:
    """``size`` texts stratified by value quantile (see the module doc), in a seeded order."""
    pool = by_id(records)
    notes: list[str] = []
    if value_range is not None:
        inside = [r for r in pool if value_range[0] <= r.value <= value_range[1]]
        if len(inside) < len(pool):
            notes.append(
                f"{len(pool) - len(inside)} text(s) outside value_range {list(value_range)} dropped"
            )
        pool = inside
    if len(pool) < 2:
        raise SamplingError("a regression source needs at least two texts (in value_range)")
    bins = quantile_bins([r.value for r in pool], n_bins)
    groups: dict[int, list[ValuedText]] = {}
    for r, b in zip(pool, bins, strict=True):
        groups.setdefault(b, []).append(r)
    quota = proportional_quota({b: len(g) for b, g in sorted(groups.items())}, size, rng)
    chosen: list[ValuedText] = []
    for b, items in sorted(groups.items()):
        picks = sorted(int(i) for i in rng.choice(len(items), size=quota[b], replace=False))
        chosen.extend(items[i] for i in picks)
    if len(chosen) < size:
        notes.append(f"only {len(chosen)} of {size} texts available")
    return Sample(
        records=permute(chosen, rng),
        report=SampleReport(
            method=f"value-quantiles({n_bins}, proportional)",
            requested=size,
            sampled=len(chosen),
            available=len(pool),
            per_label={f"quantile {b + 1}": quota[b] for b in sorted(quota)},
            shortfalls={"texts": size - len(chosen)} if len(chosen) < size else {},
            notes=notes,
        ),
    )


# --------------------------------------------------------------------------------------------
# The mixin


class RegressionStudy(StudyRules[Any]):
    """Regression's study behaviour (the ``StudyRules`` hooks)."""

    @property
    def study_settings(self) -> type[RegressionSettings]:
        from hume_sync.task_types.regression.settings import RegressionSettings

        return RegressionSettings

    study_record_fields: tuple[str, ...] = FIELDS
    study_has_train_pool = True

    def study_check_fields(self, fields: SubsetFields) -> None:
        """``size`` to sample; a step no wider than the range."""
        if fields.size is None and fields.sampling == "sample":
            fields.fail("size", "required (texts to sample)")
        settings: RegressionSettings = fields.settings
        if settings.step is not None and settings.value_range is not None:
            low, high = settings.value_range
            if settings.step > high - low:
                fields.fail("step", f"must be at most the range's width {high - low:g}")

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> ValuedText:
        """One row of a local file (fields mapped, ``id`` a string) as a valued text."""
        return read_valued(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[Any], tuple[TextItem, ...] | None]:
        """The texts of one subset of an mteb ``Regression`` task, and its train split."""
        text_col = getattr(mteb_task, "input_column_name", "text")
        value_col = getattr(mteb_task, "label_column_name", "value")
        if not isinstance(text_col, str):
            raise SourceError(where, "multimodal regression tasks are not supported")
        records = records_from_mteb(data, text_column=text_col, value_column=value_col, where=where)
        train = None
        if train_data is not None:
            train = tuple(
                records_from_mteb(
                    train_data,
                    text_column=text_col,
                    value_column=value_col,
                    where=f"{where} (train)",
                )
            )
        return list(records), train

    def study_sample(
        self, records: Sequence[Any], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        if params.size is None:
            raise SamplingError("size is required to sample texts")
        settings: RegressionSettings = params.settings
        return sample_valued(
            records, params.size, rng, n_bins=settings.bins, value_range=settings.value_range
        )

    def study_to_instances(
        self, records: Sequence[Any], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        """A text shown, its number gold."""
        out = []
        for r in records:
            if not isinstance(r, ValuedText):
                raise SamplingError(f"record {r.id!r} is not a {self.name} record")
            out.append(Instance(r.id, {"text": r.text}, r.value, positions.records.get(r.id)))
        return out

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[Any],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        """The answer's bounds and step (the spec's, else the data's: every value of the source
        and its train pool, so that the scale says nothing about the sampled texts' gold), and
        what the model procedure reads."""
        settings: RegressionSettings = params.settings
        data = [r for r in (*records, *train) if isinstance(r, ValuedText)]
        if settings.value_range is not None:
            low, high = settings.value_range
        else:
            low, high = min(r.value for r in data), max(r.value for r in data)
        return {
            "value_range": [low, high],
            "step": settings.step if settings.step is not None else data_step(data),
            "bins": settings.bins,
            "train_samples": settings.train_samples,
        }
