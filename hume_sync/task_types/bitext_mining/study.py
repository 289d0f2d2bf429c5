"""Bitext mining: the study concern (reading sources, sampling, candidates, instances).

A source record is a :class:`BitextPair`, mteb's ``BitextMining`` row: a sentence
(``sentence1``, the subset's ``language``) and its translation (``sentence2``, the
``target_language``). Local files are JSONL / CSV / TSV with those two fields and an ``id``; an
mteb task is read by name (its ``sentence1`` / ``sentence2`` columns, one language pair per
subset).

mteb asks a model for each sentence's translation among *every* target sentence; a person can
only weigh a few. So each sampled sentence becomes a :class:`MiningItem` with ``candidates``
translations: its own, the nearest neighbours that the spec's ``neighbour_models`` find for it
in the whole target side (the near misses that make the choice hard), and ``random_fillers``
drawn from that side at random. The candidates are shuffled with the subset's seed, and nothing
shown says which source produced one. The model is scored on the same candidates as well
(``model.py``), so people and models are compared like for like.

Candidate ids: a target sentence has one id on every item of its subset (``t1``, ``t2``, ...
in order of first appearance in the shuffled presentation; its source id under the ``source``
id scheme), so that a choice names a target sentence, the label mteb's F1 counts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    permute,
)

if TYPE_CHECKING:
    from hume_sync.task_types.bitext_mining.settings import BitextMiningSettings

#: The record fields, in the positional order used when a CSV/TSV has no header.
FIELDS: tuple[str, ...] = ("sentence1", "sentence2", "id")
#: mteb's column names (``AbsTaskBitextMining._DEFAULT_PAIR``).
MTEB_COLUMNS: tuple[str, str] = ("sentence1", "sentence2")


@dataclass(frozen=True)
class BitextPair:
    """A sentence and its translation, as the source gives them."""

    id: str
    sentence1: str
    sentence2: str


@dataclass(frozen=True)
class MiningItem:
    """A sampled sentence with its candidate translations in the order shown; the one whose
    id is the item's own is the translation (gold)."""

    id: str
    sentence1: str
    candidates: tuple[BitextPair, ...]


# --------------------------------------------------------------------------------------------
# Reading


def _text(value: Any, name: str, where: str | Path, line: int | None) -> str:
    if value is None:
        raise SourceError(where, f"missing field {name!r}", line=line)
    if not isinstance(value, str):
        raise SourceError(
            where, f"{name!r} must be a string, got {type(value).__name__}", line=line
        )
    if not value.strip():
        raise SourceError(where, f"{name!r} is empty", line=line)
    return value.strip()


def read_pair(row: Mapping[str, Any], where: str | Path, line: int | None) -> BitextPair:
    """One row (fields mapped, ``id`` given) as a pair, or a one-line ``SourceError``."""
    return BitextPair(
        id=as_id(row.get("id"), where, line, "id"),
        sentence1=_text(row.get("sentence1"), "sentence1", where, line),
        sentence2=_text(row.get("sentence2"), "sentence2", where, line),
    )


def records_from_mteb(data: Any, *, where: str = "<mteb>") -> list[BitextPair]:
    """One subset and split of an mteb ``BitextMining`` task (``sentence1``, ``sentence2``).

    Ids are the row positions (mteb's gold is the row index) unless the split has an ``id``
    column. A split with a ``gold`` column (BUCC: ragged sides, gold pairs listed apart) is
    refused: its items are not one sentence and its translation.
    """
    names = list(getattr(data, "column_names", None) or (data if isinstance(data, Mapping) else []))
    if "gold" in names:
        raise SourceError(where, "tasks with a separate gold list (BUCC) are not supported")
    for col in MTEB_COLUMNS:
        if col not in names:
            raise SourceError(where, f"no column {col!r} (has: {', '.join(map(str, names))})")
    first, second = list(data["sentence1"]), list(data["sentence2"])
    if len(first) != len(second):
        raise SourceError(where, "sentence1 and sentence2 differ in length")
    ids = [str(i) for i in data["id"]] if "id" in names else [str(n) for n in range(len(first))]
    out = [
        read_pair({"id": rid, "sentence1": a, "sentence2": b}, where, None)
        for rid, a, b in zip(ids, first, second, strict=True)
    ]
    _check_unique(out, where)
    return out


def _check_unique(records: Sequence[BitextPair], where: str | Path) -> None:
    seen: set[str] = set()
    for r in records:
        if r.id in seen:
            raise SourceError(where, f"id {r.id!r} appears twice")
        seen.add(r.id)


# --------------------------------------------------------------------------------------------
# Candidates


#: How the study finds each model's nearest targets: ``(models, sentences, targets, depth)`` to
#: one ``(sentences, depth)`` array of target positions per model.
Search = Callable[[Sequence[str], Sequence[str], Sequence[str], int], list[np.ndarray]]


def _near_misses(
    items: Sequence[BitextPair],
    pool: Sequence[BitextPair],
    settings: BitextMiningSettings,
    search: Search | None,
) -> dict[str, list[int]]:
    """Per item, the pool positions of its nearest targets by each model, interleaved by rank
    (every model's best first), gold left out: the hard candidates."""
    n_near = settings.candidates - 1 - settings.random_fillers
    if not settings.neighbour_models or n_near == 0:
        return {it.id: [] for it in items}
    if search is None:
        from hume_sync.task_types.bitext_mining.neighbours import neighbours_by_name

        search = neighbours_by_name
    depth = n_near * len(settings.neighbour_models) + 1
    ranked = search(
        settings.neighbour_models,
        [it.sentence1 for it in items],
        [p.sentence2 for p in pool],
        depth,
    )
    position = {p.id: n for n, p in enumerate(pool)}
    out: dict[str, list[int]] = {}
    for k, it in enumerate(items):
        order = [
            int(per_model[k][r])
            for r in range(depth)
            for per_model in ranked
            if r < per_model.shape[1]  # a target side smaller than the depth
        ]
        out[it.id] = [j for j in dict.fromkeys(order) if j != position[it.id]]
    return out


def build_candidates(
    items: Sequence[BitextPair],
    pool: Sequence[BitextPair],
    rng: np.random.Generator,
    settings: BitextMiningSettings,
    notes: list[str],
    *,
    search: Search | None = None,
) -> list[MiningItem]:
    """Each item with its candidates: gold, the models' near misses, random fillers, shuffled.

    ``pool`` is the whole target side (in id order); a candidate's text differs from every
    other candidate's of the item. Where the models' neighbours run short (duplicates, a small
    target side), random fillers take their place; where the pool runs short, an item has
    fewer candidates. Both are counted in ``notes``. ``search`` finds the models' neighbours
    (default: the spec's models loaded by name, :mod:`.neighbours`).
    """
    near = _near_misses(items, pool, settings, search)
    n_near = settings.candidates - 1 - settings.random_fillers
    if not settings.neighbour_models:
        notes.append("no neighbour_models: every wrong candidate is drawn at random")
    out: list[MiningItem] = []
    short_near = short = 0
    by_id_ = {p.id: p for p in pool}
    for it in items:
        gold = by_id_[it.id]
        chosen, texts = [gold], {gold.sentence2}
        for j in near[it.id]:
            if len(chosen) - 1 >= n_near:
                break
            if pool[j].sentence2 not in texts:
                chosen.append(pool[j])
                texts.add(pool[j].sentence2)
        if settings.neighbour_models and len(chosen) - 1 < n_near:
            short_near += 1
        rest = [p for p in pool if p.sentence2 not in texts]
        need = min(settings.candidates - len(chosen), len(rest))
        picks = sorted(rng.choice(len(rest), size=need, replace=False)) if need > 0 else []
        for j in picks:
            if rest[int(j)].sentence2 not in texts:
                chosen.append(rest[int(j)])
                texts.add(rest[int(j)].sentence2)
        if len(chosen) < settings.candidates:
            short += 1
        out.append(MiningItem(it.id, it.sentence1, tuple(permute(chosen, rng))))
    if short_near:
        notes.append(f"{short_near} item(s) had too few distinct neighbours; random fillers added")
    if short:
        notes.append(f"{short} item(s) have fewer than {settings.candidates} candidates")
    return out


# --------------------------------------------------------------------------------------------
# Instances


def target_ids(items: Sequence[MiningItem], id_scheme: str) -> dict[str, str]:
    """The id each target sentence has on every item of the subset (see the module doc)."""
    ids: dict[str, str] = {}
    for it in items:
        for c in it.candidates:
            if c.id not in ids:
                ids[c.id] = c.id if id_scheme == "source" else f"t{len(ids) + 1}"
    return ids


def mining_instance(item: MiningItem, ids: Mapping[str, str], pos: SourcePositions) -> Instance:
    """The stored instance: the sentence and its candidates shown, the translation's id gold."""
    refs = tuple(ItemRef(ids[c.id], c.id, pos.records.get(c.id)) for c in item.candidates)
    return Instance(
        source_id=item.id,
        content={
            "sentence": item.sentence1,
            "candidates": [
                {"id": ref.item_id, "text": c.sentence2}
                for ref, c in zip(refs, item.candidates, strict=True)
            ],
        },
        gold=ids[item.id],
        source_position=pos.records.get(item.id),
        items=refs,
    )


# --------------------------------------------------------------------------------------------
# The mixin


class BitextMiningStudy(StudyRules[Any]):
    """Bitext mining's study behaviour (the ``StudyRules`` hooks)."""

    @property
    def study_settings(self) -> type[BitextMiningSettings]:
        from hume_sync.task_types.bitext_mining.settings import BitextMiningSettings

        return BitextMiningSettings

    study_record_fields: tuple[str, ...] = FIELDS

    def study_check_fields(self, fields: SubsetFields) -> None:
        """``size`` to sample; the target language; fillers that leave room for gold."""
        if fields.size is None and fields.sampling == "sample":
            fields.fail("size", "required (sentences to sample)")
        settings: BitextMiningSettings = fields.settings
        if settings.target_language is None:
            fields.fail("target_language", "required (the language of the translations)")
        if settings.random_fillers > settings.candidates - 1:
            fields.fail(
                "random_fillers",
                f"must be at most {settings.candidates - 1} (candidates minus the translation), "
                f"got {settings.random_fillers}",
            )

    def study_reading_languages(self, config: Mapping[str, Any], language: str) -> tuple[str, ...]:
        """The sentence's language and the candidates' (``target_language``): a person who
        reads only one of them cannot tell a translation from a near miss."""
        target = config.get("target_language")
        return (language, target) if isinstance(target, str) and target else (language,)

    def study_record_from_row(
        self, row: Mapping[str, Any], where: str | Path, line: int | None
    ) -> BitextPair:
        """One row of a local file (fields mapped, ``id`` a string) as a pair."""
        return read_pair(row, where, line)

    def study_mteb_records(
        self, mteb_task: Any, data: Any, train_data: Any, where: str
    ) -> tuple[list[Any], tuple[TextItem, ...] | None]:
        """The pairs of one subset of an mteb ``BitextMining`` task (no train pool)."""
        if getattr(mteb_task, "parallel_subsets", False):
            raise SourceError(where, "tasks with parallel subsets (language columns) are not read")
        return list(records_from_mteb(data, where=where)), None

    def study_sample(
        self, records: Sequence[Any], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        """``size`` sentences at random (from the id-ordered source), each with its candidates
        from the whole target side; presented in a seeded order."""
        if params.size is None:
            raise SamplingError("size is required to sample sentences")
        pool: list[BitextPair] = by_id(records)
        if len(pool) < 2:
            raise SamplingError("a bitext source needs at least two pairs")
        k = min(params.size, len(pool))
        idx = sorted(int(i) for i in rng.choice(len(pool), size=k, replace=False))
        notes: list[str] = []
        if k < params.size:
            notes.append(f"only {k} of {params.size} sentences available")
        items = build_candidates([pool[i] for i in idx], pool, rng, params.settings, notes)
        return Sample(
            records=permute(items, rng),
            report=SampleReport(
                method="random-sentences+candidates",
                requested=params.size,
                sampled=k,
                available=len(pool),
                per_label={"candidates": sum(len(it.candidates) for it in items)},
                shortfalls={"sentences": params.size - k} if k < params.size else {},
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
        """Every sentence kept, each with its candidates from the whole target side."""
        items = build_candidates(pool, pool, rng, params.settings, notes)
        return items, {"candidates": sum(len(it.candidates) for it in items)}

    def study_to_instances(
        self, records: Sequence[Any], positions: SourcePositions, id_scheme: str
    ) -> list[Instance]:
        """Stored instances in presentation order, target sentences named alike on every item."""
        items = [r for r in records if isinstance(r, MiningItem)]
        if len(items) != len(records):
            bad = next(r for r in records if not isinstance(r, MiningItem))
            raise SamplingError(f"record {bad.id!r} is not a bitext_mining record")
        ids = target_ids(items, id_scheme)
        return [mining_instance(it, ids, positions) for it in items]

    def study_subset_config(
        self,
        params: SamplingParams,
        records: Sequence[Any],
        train: Sequence[TextItem],
        instances: Sequence[Instance],
    ) -> dict[str, Any]:
        """How the candidates were made (never which is which) and the target language."""
        settings: BitextMiningSettings = params.settings
        return {
            "target_language": settings.target_language,
            "candidates": settings.candidates,
            "random_fillers": settings.random_fillers,
            "neighbour_models": list(settings.neighbour_models),
        }
