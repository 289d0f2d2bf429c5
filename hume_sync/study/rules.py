"""What a task type must say for a study to be specified, read, sampled and planned.

:class:`StudyRules` is the study concern's protocol: each task type implements it in its own
package (``hume_sync/task_types/<type>/study.py``) and the study code (spec, sources, sampling,
planning, the model view) asks the type object instead of branching on its name. A new type is
therefore a new implementation, not a new ``if`` in five modules. Methods and attributes carry the
``study_`` prefix so that they never collide with the type's other concerns (``ls_``, ``llm_``,
``model_``, ``score_``).

The template methods (:meth:`StudyRules.study_sample_subset`, :meth:`StudyRules.study_take_all`,
:meth:`StudyRules.study_instances`) hold what every type shares, so that the random draws happen in
the same order for every type, and call the type's hooks where types differ.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, NoReturn, TypeVar

import numpy as np

from hume_sync.study.records import TextItem
from hume_sync.study.sampling import (
    HasId,
    Instance,
    Sample,
    SampleReport,
    SamplingParams,
    SourcePositions,
    by_id,
    check_id_scheme,
    permute,
)

if TYPE_CHECKING:  # pydantic loads only where a spec is read (the CLI's start-up stays light)
    from hume_sync.study.settings_fields import TypeSettings


@dataclass
class SubsetFields:
    """A subset's fields while the spec is read: the common ones parsed and range-checked by
    the spec, ``settings`` the type's own already validated (:attr:`StudyRules.study_settings`),
    then completed by the type (:meth:`StudyRules.study_check_fields`: what is required, what
    must agree). ``fail`` raises the spec's one-line error for ``field``."""

    sampling: str
    size: int | None
    settings: Any
    fail: Callable[[str, str], NoReturn]


#: The records a type reads from its source: the four first types share :data:`Record`; a type
#: with records of its own (pair classification's ``LabelledPair``) names them.
RecordT = TypeVar("RecordT", bound=HasId)


class StudyRules(ABC, Generic[RecordT]):
    """The study side of one task type (see the module docstring)."""

    #: The type's name in a spec and the store; its mteb name (both set by ``TaskType``).
    name: str
    mteb_type: str

    # ---- the spec

    @property
    def study_settings(self) -> type[TypeSettings] | None:
        """The type's own settings: a pydantic model (a
        :class:`~hume_sync.study.settings_fields.TypeSettings`) whose fields are the keys a task
        or a subset of this type may set beyond the common ones (size, instructions,
        annotators, sampling). The spec reads them generically, refuses another type's key
        ("not used by <type> tasks"), and sampling gets the validated object as
        ``params.settings``. None: the type has no keys of its own.

        A property, so that a type imports its model (and pydantic) only when a spec is read.
        """
        return None

    @abstractmethod
    def study_check_fields(self, fields: SubsetFields) -> None:
        """Require, default and cross-check the type's fields (``fields.fail`` on a problem)."""

    def study_reading_languages(self, config: Mapping[str, Any], language: str) -> tuple[str, ...]:
        """The languages a person must read to answer a subset: its ``language`` for most types.

        Who may take a subset's seat and how many seats the spec's per-language policy gives it
        are decided from these, every one of them (an annotator must read them all), so a type
        whose items hold a second language (bitext mining's translations) names it here rather
        than the seat planning branching on the type. ``config`` is the subset's stored config
        (or, while the spec is read, its settings as a mapping); ``language`` its own tag.
        """
        return (language,)

    # ---- reading a source

    #: The fields a record of this type is read from, in the column order of a CSV/TSV file
    #: without a header (``id`` and optional fields last).
    study_record_fields: tuple[str, ...] = ()
    #: The local file formats this type's records can be written in.
    study_formats: tuple[str, ...] = ("jsonl", "csv", "tsv")
    #: Why the other formats cannot hold this type's records (for the error message).
    study_formats_reason: str = ""
    #: Whether a subset of this type may have a train pool (``train_path``; MTEB's train split).
    study_has_train_pool: bool = False

    @property
    def study_mteb_types(self) -> tuple[str, ...]:
        """The mteb task types (``TaskMetadata.type``) this type reads."""
        return (self.mteb_type,)

    def study_accepts_mteb_type(self, mteb_type: str) -> bool:
        return mteb_type in self.study_mteb_types

    def study_refuses_mteb_task(self, metadata: Any) -> str | None:
        """Why ``init`` refuses an mteb task of a type this type reads (its ``TaskMetadata``),
        or None. ``hume-sync types`` counts such tasks apart, so its share never counts a task
        that cannot be studied; the refusal itself stays where the task is read."""
        return None

    def study_formats_problem(self) -> str:
        """The one-line reason a file in another format is refused."""
        formats = " or ".join(f.upper() for f in self.study_formats)
        reason = f" ({self.study_formats_reason})" if self.study_formats_reason else ""
        return f"{self.name} sources must be {formats}{reason}"

    @abstractmethod
    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> RecordT:
        """One row of a local file (fields already mapped, ``id`` a string) as a record."""

    @abstractmethod
    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[RecordT], tuple[TextItem, ...] | None]:
        """The records (and train pool) of one split of an mteb task of this type; ``data`` and
        ``train_data`` are the split's ``datasets`` objects (``train_data`` may be None)."""

    # ---- sampling

    @abstractmethod
    def study_sample(
        self, records: Sequence[RecordT], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        """Draw the subset's sample (``sampling: sample``) from ``records``."""

    def study_whole_source(self, pool: list[RecordT], notes: list[str]) -> list[RecordT]:
        """What ``sampling: all`` keeps of a source, in id order (default: everything)."""
        return pool

    def study_take_all_details(
        self,
        pool: list[RecordT],
        rng: np.random.Generator,
        params: SamplingParams,
        notes: list[str],
    ) -> tuple[list[RecordT], dict[str, int]]:
        """Checks and per-label counts of a source taken whole, and anything inside a record
        shown in a drawn order (reranking candidates); default: nothing."""
        return pool, {}

    def study_sample_subset(
        self, records: Sequence[RecordT], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        """The subset's sample under its sampling mode."""
        if params.sampling == "all":
            return self.study_take_all(records, rng, params)
        return self.study_sample(records, rng, params)

    def study_take_all(
        self, records: Sequence[RecordT], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        """Keep every record (the source already is the sample, as for the HUME MTEB datasets).

        Only the presentation order is drawn (items, and what the type shuffles inside them);
        it is for annotators only. Models see the records in the source's own order, which
        :meth:`study_instances` keeps as ``source_position``. Counts that differ from the spec
        (``size`` items, and the type's own) are reported, not fatal: the published sample wins
        over the spec's description of it.
        """
        notes: list[str] = []
        pool = self.study_whole_source(by_id(records), notes)
        expected = params.size
        if expected is not None and len(pool) != expected:
            notes.append(f"expected {expected} items, source has {len(pool)}")
        shown, per_label = self.study_take_all_details(pool, rng, params, notes)
        return Sample(
            records=permute(shown, rng),
            report=SampleReport(
                method="all",
                requested=expected if expected is not None else len(shown),
                sampled=len(shown),
                available=len(records),
                per_label=dict(sorted(per_label.items())),
                notes=notes,
            ),
        )

    # ---- instances and planning

    #: The content key listing an instance's items, for types whose instances have items
    #: (clustering ``items``, reranking ``candidates``); models see those in source order.
    study_item_list: str | None = None

    @abstractmethod
    def study_to_instances(
        self, records: Sequence[RecordT], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        """The stored instances of a sample, in presentation order (content apart from gold)."""

    def study_instances(
        self,
        records: Sequence[RecordT],
        positions: SourcePositions | None = None,
        *,
        id_scheme: str = "opaque",
    ) -> list[Instance]:
        """Stored instances of a sample, in presentation order: content for annotators, gold
        apart. Items and candidates are named by ``id_scheme``; ``positions`` defaults to the
        order of ``records`` themselves."""
        check_id_scheme(id_scheme)
        pos = positions if positions is not None else SourcePositions.of(records)
        return self.study_to_instances(records, pos, id_scheme)

    #: The arms of a subset: the versions of every instance that one annotator must never
    #: see together (instruction reranking's original and changed instruction). Empty for
    #: most types; otherwise planning stores one subset per arm, each with the same sampled
    #: records and presentation order, and the seats of an arm exclude the annotators who
    #: hold a seat in another arm of the same subset (``exclusive_with`` in its config).
    study_arms: tuple[str, ...] = ()

    def study_arm_instances(self, instances: Sequence[Instance], arm: str) -> list[Instance]:
        """The instances of one arm, made from the subset's sampled instances (which hold every
        arm): the content and gold an annotator of that arm sees and is scored on."""
        raise NotImplementedError(f"{self.name} has no arms")

    @abstractmethod
    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[RecordT],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        """The type's entries of the subset's stored ``config`` (labels, K, N, bins...)."""


__all__ = ["StudyRules", "SubsetFields"]
