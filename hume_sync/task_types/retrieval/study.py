"""Retrieval: the study concern (:class:`~hume_sync.study.rules.StudyRules`).

A source is a corpus, queries and qrels (:mod:`.source`); its records are the qrels lines. A
subset draws ``size`` queries with the study seed from those with a judged-relevant document
(a query without one cannot be scored, and is never drawn), and each drawn query becomes one
instance: the query (and its instruction) with its pool (:mod:`.pooling`), the documents in a
seeded order under opaque ids. Gold is qrels' grade of each pooled document it judges; an
unjudged pooled document has no gold, which is what judged@10 and the condensed score read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

import hume_sync.task_types.retrieval.pooling as pooling
from hume_sync.errors import SamplingError
from hume_sync.store.records import ItemRef
from hume_sync.study.records import TextItem
from hume_sync.study.rules import StudyRules, SubsetFields
from hume_sync.study.sampling import (
    Instance,
    Sample,
    SampleReport,
    SamplingParams,
    SourcePositions,
    item_id,
    permute,
)
from hume_sync.study.sources import file_sha256
from hume_sync.task_types.retrieval.source import (
    Collection,
    Judgment,
    check_judgments,
    judgments_from_mteb,
    read_judgment,
)
from scoring.aggregation.retrieval import DEFAULT_MAIN, main_metric
from scoring.errors import InvalidInputError

if TYPE_CHECKING:
    from hume_sync.task_types.retrieval.settings import RetrievalSettings


@dataclass(frozen=True)
class PooledQuery:
    """A drawn query with its pool, in the order people see the documents.

    Attributes:
        id: the query's id.
        query: its text.
        instruction: its instruction (instruction retrieval), or None.
        docs: the pooled documents as ``(doc_id, text)``, shuffled.
        qrels: qrels' grade of every document judged for the query (pooled or not).
        position: the query's place in its source; ``doc_positions`` the documents' in the corpus.
    """

    id: str
    query: str
    instruction: str | None
    docs: tuple[tuple[str, str], ...]
    qrels: Mapping[str, int]
    position: int | None
    doc_positions: Mapping[str, int]


def group_qrels(judgments: Sequence[Judgment]) -> dict[str, dict[str, int]]:
    """Per query, its judged documents' grades (qrels order)."""
    out: dict[str, dict[str, int]] = {}
    for j in judgments:
        out.setdefault(j.query_id, {})[j.doc_id] = j.grade
    return out


def eligible_queries(collection: Collection, qrels: Mapping[str, Mapping[str, int]]) -> list[str]:
    """The queries with a judged-relevant document, in the source's query order."""
    return [q for q in collection.queries if any(g > 0 for g in qrels.get(q, {}).values())]


def main_score_and_depth(collection: Collection, settings: RetrievalSettings) -> tuple[str, int]:
    """The subset's main score and its pool depth, decided at ``init``.

    The main score is an mteb task's own (``TaskMetadata.main_score``), a local folder's the
    spec's ``main_score`` (default nDCG@10). A pool of depth 10 cannot score nDCG@20 fairly (a
    document below every system's top 10 is never judged), so the default depth is the main
    score's cut-off where that is deeper; a depth the spec sets wins.

    Raises:
        SamplingError: an mteb task whose main score no pooled ranking gives (InstructIR's
            robustness@10), or a spec ``main_score`` that differs from the task's own.
    """
    own = collection.main_score
    given = settings.main_score
    if own is not None:
        try:
            main_metric(own)
        except InvalidInputError:
            raise SamplingError(
                f"{collection.where}: its main score {own} cannot be computed from a pooled "
                "ranking and qrels (it compares rankings a single pool does not give); hume "
                "refuses the task rather than score it by another measure"
            ) from None
        if given is not None and given != own:
            raise SamplingError(
                f"{collection.where}: main_score {given} differs from the task's own ({own}); "
                "an mteb task is scored by its own main score"
            )
    main = own or given or DEFAULT_MAIN
    if "pool_depth" in settings.model_fields_set:
        return main, settings.pool_depth
    return main, max(settings.pool_depth, main_metric(main)[1])


class RetrievalStudy(StudyRules):
    """Retrieval's study behaviour (see the module docstring)."""

    def study_refuses_mteb_task(self, metadata: Any) -> str | None:
        """A task whose main score no pooled ranking gives (InstructIR's robustness@10)."""
        try:
            main_metric(str(metadata.main_score))
        except InvalidInputError:
            return f"its main score {metadata.main_score} needs rankings one pool does not give"
        return None

    @property
    def study_settings(self) -> type[RetrievalSettings]:
        from hume_sync.task_types.retrieval.settings import RetrievalSettings

        return RetrievalSettings

    study_record_fields = ("query-id", "corpus-id", "score", "id")
    study_formats = ("tsv",)
    study_formats_reason = (
        "give a BEIR folder's qrels file, <folder>/qrels/<split>.tsv; corpus.jsonl and "
        "queries.jsonl are read from <folder>"
    )
    study_item_list = "candidates"

    def study_check_fields(self, fields: SubsetFields) -> None:
        if fields.size is None and fields.sampling != "all":
            fields.fail("size", "required (queries to sample)")

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> Judgment:
        return read_judgment(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[Judgment], tuple[TextItem, ...] | None]:
        main = getattr(getattr(mteb_task, "metadata", None), "main_score", None)
        return judgments_from_mteb(data, where=where, main_score=main), None

    def study_sample(
        self, records: Sequence[Judgment], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        assert params.size is not None, "the spec requires size"
        return self._pooled_sample(records, rng, params, params.size, "sample")

    def study_take_all(
        self, records: Sequence[Judgment], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        """Every query with a judged-relevant document (``sampling: all``), each pooled."""
        return self._pooled_sample(records, rng, params, None, "all")

    def _pooled_sample(
        self,
        records: Sequence[Judgment],
        rng: np.random.Generator,
        params: SamplingParams,
        size: int | None,
        method: str,
    ) -> Sample:
        if not records:
            raise SamplingError("no qrels")
        judgments = list(records)
        check_judgments(judgments)
        collection = judgments[0].collection
        main_score_and_depth(collection, params.settings)  # refuse before pooling, not after
        qrels = group_qrels(judgments)
        eligible = eligible_queries(collection, qrels)
        if not eligible:
            raise SamplingError("no query has a judged-relevant document")
        notes: list[str] = []
        skipped = len(collection.queries) - len(eligible)
        if skipped:
            notes.append(f"{skipped} query(ies) without a judged-relevant document never drawn")
        k = len(eligible) if size is None else min(size, len(eligible))
        shortfalls = {}
        if size is not None and k < size:
            shortfalls["queries"] = size - k
            notes.append(f"only {k} of {size} queries have a judged-relevant document")
        if size is None:
            drawn = eligible
        else:
            drawn = [eligible[int(i)] for i in sorted(rng.choice(len(eligible), k, replace=False))]
        settings: RetrievalSettings = params.settings
        _, depth = main_score_and_depth(collection, settings)
        texts = {q: _model_query(*collection.queries[q]) for q in drawn}
        result = pooling.build_pools(
            texts,
            qrels,
            collection.docs,
            depth=depth,
            models=settings.pool_models,
            bm25=settings.pool_lexical,
            task_name=params.task_name,
        )
        doc_pos = _doc_positions(collection, {d for p in result.pools.values() for d in p.docs})
        queries = []
        for q in drawn:
            docs = permute(list(result.pools[q].docs), rng)
            text, instruction = collection.queries[q]
            queries.append(
                PooledQuery(
                    id=q,
                    query=text,
                    instruction=instruction,
                    docs=tuple((d, collection.docs[d]) for d in docs),
                    qrels=qrels[q],
                    position=collection.query_position(q),
                    doc_positions={d: doc_pos[d] for d in docs},
                )
            )
        shown = permute(queries, rng)
        summary = result.summary()
        sizes = summary["pool_size"]
        notes.append(
            f"pools of depth {result.depth}: {sizes['total']} documents, "
            f"{sizes['min']}–{sizes['max']} per query (mean {sizes['mean']})"
        )
        per_label = {f"pooled by {s}": n for s, n in summary["contributed"].items()}
        per_label.update({f"only {s}": n for s, n in summary["unique"].items()})
        per_label["pooled documents"] = sizes["total"]
        grades = sorted({g for judged in qrels.values() for g in judged.values()})
        return Sample(
            records=shown,
            report=SampleReport(
                method=method,
                requested=size if size is not None else len(eligible),
                sampled=len(shown),
                available=len(eligible),
                per_label={**per_label, **{f"grade {g}": _count(queries, g) for g in grades}},
                shortfalls=shortfalls,
                notes=notes,
            ),
        )

    def study_to_instances(
        self, records: Sequence[Any], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        out = []
        for r in records:
            if not isinstance(r, PooledQuery):
                raise SamplingError(f"not a pooled retrieval query: {r!r}")
            refs = tuple(
                ItemRef(item_id(id_scheme, n, d), d, r.doc_positions.get(d))
                for n, (d, _) in enumerate(r.docs, start=1)
            )
            content: dict[str, Any] = {"query": r.query}
            if r.instruction:
                content["instruction"] = r.instruction
            content["candidates"] = [
                {"id": ref.item_id, "text": text}
                for ref, (_, text) in zip(refs, r.docs, strict=True)
            ]
            gold = {
                ref.item_id: int(r.qrels[ref.source_id]) for ref in refs if ref.source_id in r.qrels
            }
            out.append(Instance(r.id, content, gold, r.position, refs))
        return out

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[Any],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        """The grade labels (the spec's, else by the qrels' grades), the pooling settings and
        the main score where it is not nDCG@10 (a subset scored by nDCG@10 keeps the config
        it had before main scores were recorded, and so its hash)."""
        settings: RetrievalSettings = params.settings
        from hume_sync.task_types.retrieval.settings import (
            BINARY_GRADE_LABELS,
            DEFAULT_GRADE_LABELS,
        )

        labels = settings.grade_labels
        if labels is None:
            top = max((j.grade for j in records if isinstance(j, Judgment)), default=2)
            labels = BINARY_GRADE_LABELS if top <= 1 else DEFAULT_GRADE_LABELS
        judged = [j for j in records if isinstance(j, Judgment)]
        corpus = dict(judged[0].collection.origin) if judged else {}
        if "beir" in corpus:  # a changed corpus must change the stored config (and its hash)
            corpus["corpus_sha256"] = file_sha256(Path(corpus["beir"]) / "corpus.jsonl")
        main, depth = DEFAULT_MAIN, settings.pool_depth
        if judged:
            main, depth = main_score_and_depth(judged[0].collection, settings)
        return {
            "corpus": corpus,
            "grade_labels": list(labels),
            "pool_depth": depth,
            "pool_models": list(settings.pool_models),
            "pool_lexical": settings.pool_lexical,
            **({"main_score": main} if main != DEFAULT_MAIN else {}),
        }


def _model_query(text: str, instruction: str | None) -> str:
    return f"{text} {instruction}" if instruction else text


def _doc_positions(collection: Collection, wanted: set[str]) -> dict[str, int]:
    out = {}
    for n, d in enumerate(collection.docs):
        if d in wanted:
            out[d] = n
    return out


def _count(queries: Sequence[PooledQuery], grade: int) -> int:
    """Pooled documents qrels grade ``grade``."""
    return sum(1 for q in queries for d, _ in q.docs if q.qrels.get(d) == grade)
