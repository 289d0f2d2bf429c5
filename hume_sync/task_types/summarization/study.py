"""Summarization: the study concern (:class:`~hume_sync.study.rules.StudyRules`).

A record is one text with its machine summaries (each with its expert relevance score) and its
reference summaries, in mteb's columns (``text``, ``machine_summaries``, ``relevance``,
``human_summaries``). An instance is one text: annotators rate every machine summary, shown in
a seeded order under opaque ids; gold is ``{summary id: expert score}``. The references go with
the instance (a model's score is its similarity to them); the screen shows them only where the
spec's ``show_references`` says so. Summaries are nested, so local sources are JSONL.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hume_sync.errors import SamplingError, SourceError
from hume_sync.store import ItemRef
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
    item_id,
    permute,
)

if TYPE_CHECKING:
    from hume_sync.task_types.summarization.settings import SummarizationSettings

#: The record fields (mteb's column names), ``id`` last.
FIELDS: tuple[str, ...] = ("text", "machine_summaries", "relevance", "human_summaries", "id")


@dataclass(frozen=True)
class Summary:
    """A machine summary: its id in the source (its position in the text's list), its text
    and its expert score."""

    id: str
    text: str
    score: float


@dataclass(frozen=True)
class SummarizedText:
    """A text with its machine summaries (in the order given) and its references."""

    id: str
    text: str
    summaries: tuple[Summary, ...]
    references: tuple[str, ...]


def _text(value: Any, name: str, where: str | Path, line: int | None) -> str:
    if not isinstance(value, str) or not value.strip():
        got = "missing" if value is None else f"{type(value).__name__} {value!r}"[:60]
        raise SourceError(where, f"{name!r} must be a non-empty string, got {got}", line=line)
    return value.strip()


def _texts(value: Any, name: str, where: str | Path, line: int | None) -> list[str]:
    if not isinstance(value, list | tuple) or not value:
        raise SourceError(where, f"{name!r} must be a non-empty list of strings", line=line)
    return [_text(v, f"{name}[{n}]", where, line) for n, v in enumerate(value)]


def _score(value: Any, where: str | Path, line: int | None, n: int) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SourceError(where, f"relevance[{n}] must be a number, got {value!r}", line=line)
    if not math.isfinite(float(value)):
        raise SourceError(where, f"relevance[{n}] is not a finite number", line=line)
    return float(value)


def read_text(row: Mapping[str, Any], where: str | Path, line: int | None) -> SummarizedText:
    """One row (mteb's columns, ``id`` given) as a text, or a one-line ``SourceError``."""
    rid = as_id(row.get("id"), where, line, "id")
    summaries = _texts(row.get("machine_summaries"), "machine_summaries", where, line)
    relevance = row.get("relevance")
    if not isinstance(relevance, list | tuple) or len(relevance) != len(summaries):
        raise SourceError(
            where,
            f"'relevance' must be a list of {len(summaries)} scores, one per machine summary",
            line=line,
        )
    if len(summaries) < 2:
        raise SourceError(where, "a text needs at least two machine summaries", line=line)
    if len(set(summaries)) != len(summaries):
        raise SourceError(where, f"text {rid!r} lists the same machine summary twice", line=line)
    return SummarizedText(
        id=rid,
        text=_text(row.get("text"), "text", where, line),
        summaries=tuple(
            Summary(str(n), s, _score(g, where, line, n))
            for n, (s, g) in enumerate(zip(summaries, relevance, strict=True))
        ),
        references=tuple(_texts(row.get("human_summaries"), "human_summaries", where, line)),
    )


def records_from_mteb(data: Any, task: Any = None, *, where: str = "<mteb>") -> list[Any]:
    """One split of an mteb ``Summarization`` task, read by the task's own column names.

    Ids are the row positions unless the split has an ``id`` column.
    """
    cols = {
        "text": getattr(task, "text_column_name", "text"),
        "machine_summaries": getattr(task, "machine_summaries_column_name", "machine_summaries"),
        "relevance": getattr(task, "relevancy_column_name", "relevance"),
        "human_summaries": getattr(task, "human_summaries_column_name", "human_summaries"),
    }
    names = list(getattr(data, "column_names", None) or (data if isinstance(data, Mapping) else []))
    for col in cols.values():
        if col not in names:
            raise SourceError(where, f"no column {col!r} (has: {', '.join(map(str, names))})")
    columns = {ours: list(data[theirs]) for ours, theirs in cols.items()}
    n = len(columns["text"])
    ids = [str(i) for i in data["id"]] if "id" in names else [str(k) for k in range(n)]
    out = [
        read_text({"id": ids[k], **{c: v[k] for c, v in columns.items()}}, where, None)
        for k in range(n)
    ]
    seen: set[str] = set()
    for r in out:
        if r.id in seen:
            raise SourceError(where, f"id {r.id!r} appears twice")
        seen.add(r.id)
    return out


def text_instance(r: SummarizedText, pos: SourcePositions, id_scheme: str) -> Instance:
    """A text as one instance: its summaries named by ``id_scheme`` in the order shown, gold
    the expert score of each."""
    refs = tuple(
        ItemRef(item_id(id_scheme, n, s.id), s.id, int(s.id))
        for n, s in enumerate(r.summaries, start=1)
    )
    return Instance(
        source_id=r.id,
        content={
            "text": r.text,
            "candidates": [
                {"id": ref.item_id, "text": s.text}
                for ref, s in zip(refs, r.summaries, strict=True)
            ],
            "references": list(r.references),
        },
        gold={ref.item_id: s.score for ref, s in zip(refs, r.summaries, strict=True)},
        source_position=pos.records.get(r.id),
        items=refs,
    )


def _shuffled(texts: Sequence[SummarizedText], rng: np.random.Generator) -> list[SummarizedText]:
    """Each text's summaries in a seeded order (a source may list them by system)."""
    return [
        SummarizedText(t.id, t.text, tuple(permute(list(t.summaries), rng)), t.references)
        for t in texts
    ]


def _counts(texts: Sequence[SummarizedText]) -> dict[str, int]:
    constant = sum(len({s.score for s in t.summaries}) == 1 for t in texts)
    return {"summaries": sum(len(t.summaries) for t in texts), "texts_constant_gold": constant}


class SummarizationStudy(StudyRules[Any]):
    """Summarization's study behaviour (the ``StudyRules`` hooks)."""

    @property
    def study_settings(self) -> type[SummarizationSettings]:
        from hume_sync.task_types.summarization.settings import SummarizationSettings

        return SummarizationSettings

    study_record_fields: tuple[str, ...] = FIELDS
    study_formats = ("jsonl",)
    study_formats_reason = "summaries and their scores are nested lists"
    study_item_list = "candidates"

    def study_check_fields(self, fields: SubsetFields) -> None:
        if fields.size is None and fields.sampling == "sample":
            fields.fail("size", "required (texts to sample)")

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> SummarizedText:
        return read_text(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[Any], tuple[TextItem, ...] | None]:
        """The texts of one split of an mteb ``Summarization`` task (no train pool).

        mteb's v1 tasks (``SummEval``, ``SummEvalFr``) score with its deprecated evaluator,
        which averages scipy result objects (mteb issue 1156): a model's hume score would not
        be their number, so they are refused in favour of the ``.v2`` task on the same data.
        """
        evaluator = getattr(mteb_task, "evaluator", None)
        if getattr(evaluator, "__name__", "").startswith("Deprecated"):
            metadata = getattr(mteb_task, "metadata", None)
            newer = getattr(metadata, "superseded_by", None) or "its .v2 task"
            raise SourceError(
                where, f"mteb scores this task with its deprecated evaluator; read {newer}"
            )
        return records_from_mteb(data, mteb_task, where=where), None

    def study_sample(
        self, records: Sequence[Any], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        """``size`` texts at random (from the id-ordered source), presented in a seeded order,
        each with its summaries shuffled."""
        if params.size is None:
            raise SamplingError("size is required to sample texts")
        pool: list[SummarizedText] = by_id(records)
        k = min(params.size, len(pool))
        idx = sorted(int(i) for i in rng.choice(len(pool), size=k, replace=False))
        texts = _shuffled([pool[i] for i in idx], rng)
        notes = [f"only {k} of {params.size} texts available"] if k < params.size else []
        counts = _counts(texts)
        if counts["texts_constant_gold"]:
            notes.append(
                f"{counts['texts_constant_gold']} text(s) with constant expert scores: "
                "mteb skips them, so they count for no score"
            )
        return Sample(
            records=permute(texts, rng),
            report=SampleReport(
                method="random-texts",
                requested=params.size,
                sampled=k,
                available=len(pool),
                per_label=counts,
                shortfalls={"texts": params.size - k} if k < params.size else {},
                notes=notes,
            ),
        )

    def study_take_all_details(
        self,
        pool: list[Any],
        rng: np.random.Generator,
        params: SamplingParams,
        notes: list[str],
    ) -> tuple[list[Any], dict[str, int]]:
        """Every text kept, its summaries shuffled; texts mteb would skip are counted."""
        texts = _shuffled(pool, rng)
        counts = _counts(texts)
        if counts["texts_constant_gold"]:
            notes.append(
                f"{counts['texts_constant_gold']} text(s) with constant expert scores (kept; "
                "mteb skips them)"
            )
        return texts, counts

    def study_to_instances(
        self, records: Sequence[Any], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        out = []
        for r in records:
            if not isinstance(r, SummarizedText):
                raise SamplingError(f"record {r.id!r} is not a {self.name} record")
            out.append(text_instance(r, positions, id_scheme))
        return out

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[Any],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        """Whether the references are shown (the screen reads it) and the rating scale."""
        settings: SummarizationSettings = params.settings
        return {"show_references": settings.show_references, "rating_scale": [1, 5]}
