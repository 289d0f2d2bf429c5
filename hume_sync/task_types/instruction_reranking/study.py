"""Instruction reranking: the study concern (:class:`~hume_sync.study.rules.StudyRules`).

A record is one query of a FollowIR-style set: its text, its original instruction (``og``), the
changed instruction that makes some relevant documents non-relevant, and its candidates with
their relevance under each. mteb stores the two versions as queries ``<id>-og`` and
``<id>-changed`` with their own qrels and one ``top_ranked`` list; local JSONL files hold one
row per query (``id``, ``query``, ``instruction_og``, ``instruction_changed``, ``candidates``:
``id``, ``text``, ``relevant_og``, ``relevant_changed``).

The subset has two arms, ``og`` and ``changed`` (:attr:`StudyRules.study_arms`): planning
stores one subset per arm with the same sampled queries and candidate order, and seating keeps
an annotator of one arm out of the other, so nobody sees both versions of a query (a person who
read the original instruction would carry it into the changed one). p-MRR pairs the two arms'
answers query by query (:mod:`hume_sync.report.instruction_following`).

The changed documents p-MRR follows are those relevant under the original instruction and not
under the changed one: FollowIR's definition of its ``qrel_diff``, derived here from the qrels
so that a source needs nothing else (mteb's task classes download ``qrel_diff`` separately).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
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
    from hume_sync.task_types.instruction_reranking.settings import InstructionRerankingSettings

#: The two arms: the query under its original and under its changed instruction.
ARMS: tuple[str, str] = ("og", "changed")
FIELDS: tuple[str, ...] = ("query", "instruction_og", "instruction_changed", "candidates", "id")


@dataclass(frozen=True)
class Candidate:
    """A candidate document, its relevance under each instruction and its place in the
    source's list (models rank the candidates in that order, as mteb does)."""

    id: str
    text: str
    relevant_og: bool
    relevant_changed: bool
    position: int


@dataclass(frozen=True)
class InstructedQuery:
    """A query with its two instructions and its candidates (source order)."""

    id: str
    query: str
    instruction_og: str
    instruction_changed: str
    candidates: tuple[Candidate, ...]

    @property
    def changed(self) -> tuple[str, ...]:
        """The candidates the changed instruction makes non-relevant (FollowIR's qrel_diff)."""
        return tuple(c.id for c in self.candidates if c.relevant_og and not c.relevant_changed)


def _text(value: Any, name: str, where: str | Path, line: int | None) -> str:
    if not isinstance(value, str) or not value.strip():
        got = "missing" if value is None else f"{type(value).__name__} {value!r}"[:60]
        raise SourceError(where, f"{name!r} must be a non-empty string, got {got}", line=line)
    return value.strip()


def _flag(value: Any, name: str, where: str | Path, line: int | None) -> bool:
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    raise SourceError(where, f"{name} must be true/false or 1/0, got {value!r}", line=line)


def read_query(row: Mapping[str, Any], where: str | Path, line: int | None) -> InstructedQuery:
    """One local row as a query, or a one-line ``SourceError``."""
    raw = row.get("candidates")
    if not isinstance(raw, list) or not raw:
        raise SourceError(where, "candidates must be a non-empty list", line=line)
    cands: list[Candidate] = []
    for n, c in enumerate(raw):
        if not isinstance(c, Mapping):
            raise SourceError(where, f"candidate {n} must be an object", line=line)
        cid = as_id(c.get("id"), where, line, f"candidate {n} id")
        for key in ("relevant_og", "relevant_changed"):
            if key not in c:
                raise SourceError(where, f"candidate {cid!r}: missing field {key!r}", line=line)
        cands.append(
            Candidate(
                cid,
                _text(c.get("text"), f"candidate {cid} text", where, line),
                _flag(c["relevant_og"], f"candidate {cid!r} relevant_og", where, line),
                _flag(c["relevant_changed"], f"candidate {cid!r} relevant_changed", where, line),
                n,
            )
        )
    return _query(
        as_id(row.get("id"), where, line, "id"),
        _text(row.get("query"), "query", where, line),
        _text(row.get("instruction_og"), "instruction_og", where, line),
        _text(row.get("instruction_changed"), "instruction_changed", where, line),
        cands,
        where,
        line,
    )


def _query(
    qid: str,
    text: str,
    og: str,
    changed: str,
    cands: list[Candidate],
    where: str | Path,
    line: int | None,
) -> InstructedQuery:
    if len({c.id for c in cands}) != len(cands):
        raise SourceError(where, f"query {qid!r} lists a candidate twice", line=line)
    if og == changed:
        raise SourceError(where, f"query {qid!r}: its two instructions are the same", line=line)
    return InstructedQuery(qid, text, og, changed, tuple(cands))


def records_from_mteb(split: Mapping[str, Any], *, where: str = "<mteb>") -> list[InstructedQuery]:
    """mteb's layout (``corpus``, ``queries`` with ``instruction``, ``relevant_docs``,
    ``top_ranked``), its ``<id>-og`` and ``<id>-changed`` queries paired by ``<id>``.

    Texts are built as mteb builds them for models (a document's title before its text), and
    candidates are the original query's ``top_ranked`` list, which must be the changed one's.
    """
    corpus, queries = split["corpus"], split["queries"]
    qrels: Mapping[str, Mapping[str, Any]] = split.get("relevant_docs") or {}
    top: Mapping[str, Sequence[Any]] = split.get("top_ranked") or {}
    titles = corpus["title"] if "title" in corpus.column_names else [None] * len(corpus)
    docs = {
        str(d): (f"{t} {(x or '').strip()}".strip() if t else (x or "").strip())
        for d, x, t in zip(corpus["id"], corpus["text"], titles, strict=True)
    }
    if "instruction" not in queries.column_names:
        raise SourceError(where, "queries have no 'instruction' column")
    versions: dict[str, dict[str, tuple[str, str]]] = {}
    for qid, text, instr in zip(
        queries["id"], queries["text"], queries["instruction"], strict=True
    ):
        base, _, arm = str(qid).rpartition("-")
        if arm not in ARMS or not base:
            raise SourceError(where, f"query id {qid!r} does not end in -og or -changed")
        versions.setdefault(base, {})[arm] = (str(text or "").strip(), str(instr or "").strip())
    out = []
    for base, both in versions.items():
        if set(both) != set(ARMS):
            raise SourceError(where, f"query {base!r} lacks its {set(ARMS) - set(both)} version")
        ids = [str(d) for d in top.get(f"{base}-og") or qrels.get(f"{base}-og") or {}]
        if [str(d) for d in top.get(f"{base}-changed") or ids] != ids:
            raise SourceError(where, f"query {base!r}: its two versions rank other candidates")
        missing = [d for d in ids if d not in docs]
        if missing:
            raise SourceError(where, f"query {base!r}: candidate {missing[0]!r} not in the corpus")
        rel = {arm: qrels.get(f"{base}-{arm}") or {} for arm in ARMS}
        cands = [
            Candidate(
                d, docs[d], int(rel["og"].get(d, 0)) > 0, int(rel["changed"].get(d, 0)) > 0, n
            )
            for n, d in enumerate(ids)
        ]
        if both["og"][0] != both["changed"][0]:
            raise SourceError(where, f"query {base!r}: its two versions have other texts")
        out.append(
            _query(base, both["og"][0], both["og"][1], both["changed"][1], cands, where, None)
        )
    return out


def _instance(q: InstructedQuery, pos: SourcePositions, id_scheme: str) -> Instance:
    """A query as one instance holding both arms (split by :meth:`study_arm_instances`)."""
    refs = tuple(
        ItemRef(item_id(id_scheme, n, c.id), c.id, c.position)
        for n, c in enumerate(q.candidates, start=1)
    )
    cands = [{"id": ref.item_id, "text": c.text} for ref, c in zip(refs, q.candidates, strict=True)]
    return Instance(
        source_id=q.id,
        content={
            "query": q.query,
            "instructions": {"og": q.instruction_og, "changed": q.instruction_changed},
            "candidates": cands,
        },
        gold={
            arm: {
                ref.item_id: int(getattr(c, f"relevant_{arm}"))
                for ref, c in zip(refs, q.candidates, strict=True)
            }
            for arm in ARMS
        },
        source_position=pos.records.get(q.id),
        items=refs,
    )


def _shown(q: InstructedQuery, n: int | None, rng: np.random.Generator) -> InstructedQuery:
    """The query's candidates as annotators see them: cut to ``n`` where set (every changed
    document kept, and one relevant under both instructions where there is one; the rest drawn),
    in a drawn order (sources often list the relevant ones first)."""
    cands = list(q.candidates)
    if n is not None and len(cands) > n:
        must = [c for c in cands if c.id in set(q.changed)][:n]
        both = [c for c in cands if c.relevant_og and c.relevant_changed]
        if both and len(must) < n:
            must.append(both[int(rng.integers(len(both)))])
        rest = [c for c in cands if c not in must]
        more = rng.choice(len(rest), size=n - len(must), replace=False)
        keep = {c.id for c in must} | {rest[int(m)].id for m in more}
        cands = [c for c in cands if c.id in keep]
    return replace(q, candidates=tuple(permute(cands, rng)))


class InstructionRerankingStudy(StudyRules[Any]):
    """Instruction reranking's study behaviour (the ``StudyRules`` hooks)."""

    @property
    def study_settings(self) -> type[InstructionRerankingSettings]:
        from hume_sync.task_types.instruction_reranking.settings import (
            InstructionRerankingSettings,
        )

        return InstructionRerankingSettings

    study_record_fields: tuple[str, ...] = FIELDS
    study_formats = ("jsonl",)
    study_formats_reason = "candidates are nested"
    study_item_list = "candidates"
    study_arms = ARMS

    def study_check_fields(self, fields: SubsetFields) -> None:
        if fields.size is None and fields.sampling == "sample":
            fields.fail("size", "required (queries to sample)")

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> InstructedQuery:
        return read_query(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[Any], tuple[TextItem, ...] | None]:
        if not isinstance(data, Mapping) or "queries" not in data:
            raise SourceError(where, "expected mteb's retrieval layout (corpus, queries, qrels)")
        return list(records_from_mteb(data, where=where)), None

    def study_sample(
        self, records: Sequence[Any], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        """``size`` queries among those with a changed document (p-MRR has nothing to follow
        in the others), each query's candidates in a drawn order (sources often list the
        relevant ones first); both arms show that same order."""
        assert params.size is not None, "the spec requires size"
        pool = by_id(records)
        eligible = [q for q in pool if q.changed]
        notes = []
        if len(eligible) < len(pool):
            notes.append(f"{len(pool) - len(eligible)} query(ies) without a changed document")
        if not eligible:
            raise SamplingError(
                "no query has a document its changed instruction makes non-relevant"
            )
        k = min(params.size, len(eligible))
        if k < params.size:
            notes.append(f"only {k} of {params.size} queries have a changed document")
        chosen = [eligible[int(i)] for i in sorted(rng.choice(len(eligible), k, replace=False))]
        shown = [_shown(q, params.settings.candidates, rng) for q in chosen]
        return Sample(
            records=permute(shown, rng),
            report=SampleReport(
                method="queries-with-changed-documents",
                requested=params.size,
                sampled=k,
                available=len(pool),
                per_label=_counts(shown),
                shortfalls={"queries": params.size - k} if k < params.size else {},
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
        without = sum(not q.changed for q in pool)
        if without:
            notes.append(f"{without} query(ies) without a changed document (kept)")
        shown = [_shown(q, params.settings.candidates, rng) for q in pool]
        return shown, _counts(shown)

    def study_to_instances(
        self, records: Sequence[Any], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        out = []
        for r in records:
            if not isinstance(r, InstructedQuery):
                raise SamplingError(f"record {r.id!r} is not an instruction reranking record")
            out.append(_instance(r, positions, id_scheme))
        return out

    def study_arm_instances(self, instances: Sequence[Instance], arm: str) -> list[Instance]:
        """The query with one instruction, gold the relevance under it; ids, order and
        candidates are the same in both arms, so the report can pair them."""
        return [
            replace(
                inst,
                content={
                    "query": inst.content["query"],
                    "instruction": inst.content["instructions"][arm],
                    "candidates": inst.content["candidates"],
                },
                gold=inst.gold[arm],
            )
            for inst in instances
        ]

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[Any],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        return {"candidates": params.settings.candidates}


def _counts(queries: Sequence[InstructedQuery]) -> dict[str, int]:
    return {
        "candidates": sum(len(q.candidates) for q in queries),
        "relevant_og": sum(c.relevant_og for q in queries for c in q.candidates),
        "relevant_changed": sum(c.relevant_changed for q in queries for c in q.candidates),
        "changed": sum(len(q.changed) for q in queries),
    }
