"""Principled, reproducible sampling of study instances from loaded records.

Each subset draws from its own ``numpy.random.Generator`` seeded by the study seed and a stable
hash of ``<task>/<subset>``, so adding or removing a task never changes another task's sample.
Records are put in id order before drawing, so *which* records are drawn does not depend on file
order either (the order models see does: see below).

Which sampler a subset uses is its task type's choice (``study_sample`` of
:class:`~hume_sync.study.rules.StudyRules`); the samplers here are the building blocks:

- classification: balanced across labels (round-robin allocation: ``size // n_labels`` each, the
  leftovers to labels in a seeded order; a label with too few items gives all it has and the
  deficit goes to the others; both are reported);
- clustering: K labels among those with at least n items, n items each → one set;
- reranking: queries with ≥ 1 relevant candidate; candidates kept, or sampled down to N keeping at
  least one relevant; candidate order shuffled (source order often leaks relevance);
- sts: equal-width bins over the gold range, sampled evenly across bins (same allocation as
  classification, bins in place of labels).

Every sampler returns a :class:`Sample`: the records in presentation order (seeded shuffle, never
grouped by label) and a :class:`SampleReport` with counts and shortfalls.
:meth:`~hume_sync.study.rules.StudyRules.study_instances` turns a sample into the stored instance
shape (content without gold, gold), from the instance builders at the end of this module.

Two orders, kept apart on purpose. The *presentation* order (instances, clustering items,
reranking candidates) is a seeded shuffle: it is what annotators see, and it must not encode gold.
The *source* order is where each record stood in its source; mteb's numbers depend on it
(classification undersampling, MiniBatchKMeans), so every :class:`Instance` and :class:`ItemRef`
carries its ``source_position`` and models run in that order, never in the presentation order.
Items and candidates shown to annotators get opaque ids (their 1-based presentation position)
unless ``id_scheme="source"`` (stores created before schema 2, whose tasks already show source ids).
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol, TypeVar

import numpy as np

from hume_sync.errors import SamplingError
from hume_sync.store import ItemRef
from hume_sync.study.records import PairItem, QueryItem, Record, TextItem


@dataclass
class SampleReport:
    """What a sampler did: requested vs drawn, per-label (or per-bin) counts, shortfalls, notes."""

    method: str
    requested: int
    sampled: int
    available: int
    per_label: dict[str, int] = field(default_factory=dict)
    shortfalls: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Sample:
    records: list[Record]
    report: SampleReport


@dataclass(frozen=True)
class Instance:
    """One stored instance: ``content`` is what annotators see, ``gold`` is kept apart.

    ``source_position`` is the record's 0-based position in its source (a clustering set: the
    first position of its items); ``items`` maps the ids in ``content`` back to the source.
    """

    source_id: str
    content: dict[str, Any]
    gold: Any
    source_position: int | None = None
    items: tuple[ItemRef, ...] = ()


#: How the ids of items and candidates in ``content`` are made: ``opaque`` (1-based presentation
#: position; carries nothing) or ``source`` (the source's own ids, as schema-1 stores have them).
ID_SCHEMES = ("opaque", "source")


@dataclass(frozen=True)
class SourcePositions:
    """Where each record (and each reranking candidate) stood in its source, by id."""

    records: Mapping[str, int]
    candidates: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, records: Sequence[HasId]) -> SourcePositions:
        """Positions of ``records`` as given (the loader's order is the source order)."""
        return cls(
            records={r.id: n for n, r in enumerate(records)},
            candidates={
                r.id: {c.id: n for n, c in enumerate(r.candidates)}
                for r in records
                if isinstance(r, QueryItem)
            },
        )


def stable_hash(text: str) -> int:
    """64-bit hash that is the same in every process (unlike ``hash()``)."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def subset_rng(seed: int, task: str, subset: str) -> np.random.Generator:
    """The generator of one subset: depends only on the study seed and the subset's name."""
    return np.random.default_rng([seed, stable_hash(f"{task}/{subset}")])


class HasId(Protocol):
    """A source record as sampling sees it: anything with a stable id."""

    @property
    def id(self) -> str: ...


_R = TypeVar("_R", bound=HasId)
_K = TypeVar("_K", bound=Hashable)


def by_id(records: Sequence[_R]) -> list[_R]:
    """Records in id order: which records are drawn must not depend on the file's order."""
    return sorted(records, key=lambda r: r.id)


def permute(items: list[Any], rng: np.random.Generator) -> list[Any]:
    """A seeded shuffle (the presentation order)."""
    return [items[i] for i in rng.permutation(len(items))]


@dataclass(frozen=True)
class SamplingParams:
    """A subset's sampling settings, as its spec gives them (see :class:`SubsetSpec`): the
    sampling mode, the size, and the type's own settings (``StudyRules.study_settings``,
    validated by the spec; each type reads its own fields, ``params.settings.label_set``)."""

    sampling: str = "sample"
    size: int | None = None
    settings: Any = None
    #: The spec's task name: the encoding context a type that embeds while sampling uses, so
    #: that ``predict`` (which encodes under the same name) finds those embeddings cached.
    task_name: str | None = None

    @classmethod
    def of(cls, subset: Any, task_name: str | None = None) -> SamplingParams:
        """The settings of a parsed subset (anything with the attributes but ``task_name``: a
        ``SubsetSpec``) of the task ``task_name``."""
        given = {f.name: getattr(subset, f.name) for f in fields(cls) if f.name != "task_name"}
        return cls(**given, task_name=task_name)


def label_counts(records: Sequence[Record]) -> dict[str, int]:
    """How many records carry each label (labelled texts only)."""
    out: dict[str, int] = {}
    for r in records:
        if isinstance(r, TextItem):
            out[r.label] = out.get(r.label, 0) + 1
    return out


def _allocate(capacity: Mapping[_K, int], total: int, rng: np.random.Generator) -> dict[_K, int]:
    """Spread ``total`` over strata as evenly as their capacities allow.

    Round-robin over the strata in a seeded order: every stratum gets ``total // n`` where it can,
    the remainder goes to the first strata of that order, and what a small stratum cannot take
    goes on to the others. Deterministic for a given generator state.
    """
    keys = list(capacity)
    order = [keys[i] for i in rng.permutation(len(keys))]
    quota = dict.fromkeys(keys, 0)
    remaining = min(total, sum(capacity.values()))
    while remaining > 0:
        progressed = False
        for key in order:
            if remaining == 0:
                break
            if quota[key] < capacity[key]:
                quota[key] += 1
                remaining -= 1
                progressed = True
        if not progressed:  # pragma: no cover - guarded by the min() above
            break
    return quota


def sample_classification(
    records: Sequence[TextItem],
    size: int,
    rng: np.random.Generator,
    *,
    label_set: Sequence[str] | None = None,
) -> Sample:
    """Balanced per label; items outside ``label_set`` (if given) are dropped and reported."""
    if size <= 0:
        raise SamplingError(f"size must be > 0, got {size}")
    notes: list[str] = []
    pool = by_id(records)
    if label_set is not None:
        allowed = set(label_set)
        dropped = [r for r in pool if r.label not in allowed]
        if dropped:
            notes.append(f"{len(dropped)} item(s) with labels outside label_set were dropped")
        pool = [r for r in pool if r.label in allowed]
    groups: dict[str, list[TextItem]] = defaultdict(list)
    for r in pool:
        groups[r.label].append(r)
    labels = sorted(set(label_set) if label_set is not None else groups)
    if not pool:
        raise SamplingError("no items to sample from")
    capacity = {lab: len(groups.get(lab, [])) for lab in labels}
    quota = _allocate(capacity, size, rng)
    even = size // len(labels)
    shortfalls = {lab: even - capacity[lab] for lab in labels if capacity[lab] < even}
    for lab, short in shortfalls.items():
        notes.append(f"label {lab!r} has only {capacity[lab]} item(s), {short} short of {even}")
    chosen: list[Record] = []
    for lab in labels:
        items = groups.get(lab, [])
        idx = sorted(rng.choice(len(items), size=quota[lab], replace=False)) if quota[lab] else []
        chosen.extend(items[i] for i in idx)
    if len(chosen) < size:
        notes.append(f"only {len(chosen)} of {size} items available")
    return Sample(
        records=permute(chosen, rng),
        report=SampleReport(
            method="balanced-per-label",
            requested=size,
            sampled=len(chosen),
            available=len(pool),
            per_label={lab: quota[lab] for lab in labels},
            shortfalls=shortfalls,
            notes=notes,
        ),
    )


def sample_clustering(
    records: Sequence[TextItem],
    n_labels: int,
    items_per_label: int,
    rng: np.random.Generator,
    *,
    label_set: Sequence[str] | None = None,
) -> Sample:
    """K labels chosen among those with ≥ n items, n items each: one clustering set."""
    if n_labels < 2 or items_per_label < 1:
        raise SamplingError(f"need K ≥ 2 and n ≥ 1, got K={n_labels}, n={items_per_label}")
    pool = by_id(records)
    if label_set is not None:
        pool = [r for r in pool if r.label in set(label_set)]
    groups: dict[str, list[TextItem]] = defaultdict(list)
    for r in pool:
        groups[r.label].append(r)
    eligible = sorted(lab for lab, items in groups.items() if len(items) >= items_per_label)
    skipped = sorted(set(groups) - set(eligible))
    if len(eligible) < n_labels:
        raise SamplingError(
            f"need {n_labels} labels with ≥ {items_per_label} items each, only "
            f"{len(eligible)} have enough ({', '.join(eligible) or 'none'})"
        )
    picked = sorted(eligible[i] for i in rng.choice(len(eligible), size=n_labels, replace=False))
    chosen: list[Record] = []
    for lab in picked:
        items = groups[lab]
        idx = sorted(rng.choice(len(items), size=items_per_label, replace=False))
        chosen.extend(items[i] for i in idx)
    notes = []
    if skipped:
        notes.append(f"labels with fewer than {items_per_label} items: {', '.join(skipped)}")
    return Sample(
        records=permute(chosen, rng),
        report=SampleReport(
            method="k-labels-n-items",
            requested=n_labels * items_per_label,
            sampled=len(chosen),
            available=len(pool),
            per_label=dict.fromkeys(picked, items_per_label),
            notes=notes,
        ),
    )


def sample_reranking(
    records: Sequence[QueryItem],
    size: int,
    rng: np.random.Generator,
    *,
    n_candidates: int | None = None,
    shuffle_candidates: bool = True,
) -> Sample:
    """Queries with ≥ 1 relevant candidate; candidates optionally cut to N, keeping ≥ 1 relevant."""
    if size <= 0:
        raise SamplingError(f"size must be > 0, got {size}")
    pool = by_id(records)
    eligible = [q for q in pool if any(c.relevant for c in q.candidates)]
    notes = []
    if len(eligible) < len(pool):
        notes.append(f"{len(pool) - len(eligible)} query(ies) without a relevant candidate skipped")
    k = min(size, len(eligible))
    shortfalls = {}
    if k < size:
        shortfalls["queries"] = size - k
        notes.append(f"only {k} of {size} queries have a relevant candidate")
    if k == 0:
        raise SamplingError("no query has a relevant candidate")
    idx = sorted(rng.choice(len(eligible), size=k, replace=False))
    queries: list[QueryItem] = []
    few = 0
    for i in idx:
        q = eligible[i]
        cands = list(q.candidates)
        if n_candidates is not None and len(cands) > n_candidates:
            relevant = [j for j, c in enumerate(cands) if c.relevant]
            first = int(relevant[int(rng.integers(len(relevant)))])
            rest = [j for j in range(len(cands)) if j != first]
            more = rng.choice(len(rest), size=n_candidates - 1, replace=False)
            keep = sorted([first, *(rest[int(m)] for m in more)])
            cands = [cands[j] for j in keep]
        elif n_candidates is not None and len(cands) < n_candidates:
            few += 1
        if shuffle_candidates:
            cands = permute(cands, rng)
        queries.append(QueryItem(id=q.id, query=q.query, candidates=tuple(cands)))
    if few:
        notes.append(f"{few} query(ies) have fewer than {n_candidates} candidates (kept as given)")
    n_rel = sum(1 for q in queries for c in q.candidates if c.relevant)
    n_all = sum(len(q.candidates) for q in queries)
    return Sample(
        records=permute(queries, rng),
        report=SampleReport(
            method="queries-with-relevant",
            requested=size,
            sampled=len(queries),
            available=len(eligible),
            per_label={"relevant": n_rel, "not_relevant": n_all - n_rel},
            shortfalls=shortfalls,
            notes=notes,
        ),
    )


def sts_bins(
    scores: Sequence[float], n_bins: int, score_range: tuple[float, float] | None = None
) -> tuple[list[int], list[float]]:
    """Bin index of each score over ``n_bins`` equal-width bins, and the bin edges.

    The range is ``score_range`` when given (the task's gold scale), else the observed min–max.
    The top edge belongs to the last bin.
    """
    lo, hi = score_range if score_range is not None else (min(scores), max(scores))
    if hi <= lo:
        return [0] * len(scores), [lo, hi]
    width = (hi - lo) / n_bins
    edges = [lo + i * width for i in range(n_bins)] + [hi]
    out = []
    for s in scores:
        b = math.floor((s - lo) / width)
        out.append(min(max(b, 0), n_bins - 1))
    return out, edges


def sample_sts(
    records: Sequence[PairItem],
    size: int,
    rng: np.random.Generator,
    *,
    n_bins: int = 5,
    score_range: tuple[float, float] | None = None,
) -> Sample:
    """Pairs spread over the gold range: equal-width bins, sampled evenly across bins."""
    if size <= 0:
        raise SamplingError(f"size must be > 0, got {size}")
    pool = by_id(records)
    if not pool:
        raise SamplingError("no pairs to sample from")
    notes = []
    if score_range is not None:
        outside = [p for p in pool if not score_range[0] <= p.score <= score_range[1]]
        if outside:
            notes.append(f"{len(outside)} pair(s) outside score_range {list(score_range)} dropped")
            pool = [p for p in pool if score_range[0] <= p.score <= score_range[1]]
        if not pool:
            raise SamplingError(f"no pair has a score within score_range {list(score_range)}")
    bins, edges = sts_bins([p.score for p in pool], n_bins, score_range)
    groups: dict[int, list[PairItem]] = defaultdict(list)
    for p, b in zip(pool, bins, strict=True):
        groups[b].append(p)
    capacity = {b: len(groups.get(b, [])) for b in range(n_bins)}
    quota = _allocate(capacity, size, rng)
    chosen: list[Record] = []
    for b in range(n_bins):
        items = groups.get(b, [])
        idx = sorted(rng.choice(len(items), size=quota[b], replace=False)) if quota[b] else []
        chosen.extend(items[i] for i in idx)
    even = size // n_bins
    names = {
        b: f"[{edges[b]:g}, {edges[b + 1]:g}{']' if b == n_bins - 1 else ')'}"
        for b in range(n_bins)
    }
    shortfalls = {names[b]: even - capacity[b] for b in range(n_bins) if capacity[b] < even}
    if shortfalls:
        notes.append("bins with too few pairs were filled from the others")
    if len(chosen) < size:
        notes.append(f"only {len(chosen)} of {size} pairs available")
    return Sample(
        records=permute(chosen, rng),
        report=SampleReport(
            method=f"equal-width-bins({n_bins})",
            requested=size,
            sampled=len(chosen),
            available=len(pool),
            per_label={names[b]: quota[b] for b in range(n_bins)},
            shortfalls=shortfalls,
            notes=notes,
        ),
    )


def item_id(scheme: str, position: int, source_id: str) -> str:
    """The id an item or candidate is shown and answered under (see :data:`ID_SCHEMES`)."""
    return str(position) if scheme == "opaque" else source_id


def check_id_scheme(id_scheme: str) -> None:
    if id_scheme not in ID_SCHEMES:
        raise SamplingError(f"unknown id scheme {id_scheme!r} (expected one of {ID_SCHEMES})")


def not_a_record_of(record: Record, kind: str) -> SamplingError:
    return SamplingError(f"record {record.id!r} is not a {kind} record")


def set_instance(records: Sequence[Record], pos: SourcePositions, id_scheme: str) -> Instance:
    """A whole sample as one instance (a clustering set, id ``set-0``): its labelled texts as
    items named by ``id_scheme``, gold = each item's label."""
    items = [r for r in records if isinstance(r, TextItem)]
    refs = tuple(
        ItemRef(item_id(id_scheme, n, r.id), r.id, pos.records.get(r.id))
        for n, r in enumerate(items, start=1)
    )
    known = [p for p in (ref.source_position for ref in refs) if p is not None]
    return Instance(
        source_id="set-0",
        content={
            "items": [
                {"id": ref.item_id, "text": r.text} for ref, r in zip(refs, items, strict=True)
            ]
        },
        gold={ref.item_id: r.label for ref, r in zip(refs, items, strict=True)},
        source_position=min(known) if known else None,
        items=refs,
    )


def text_instance(r: TextItem, pos: SourcePositions) -> Instance:
    """A labelled text as one instance: the text shown, the label as gold."""
    return Instance(r.id, {"text": r.text}, r.label, pos.records.get(r.id))


def query_instance(r: QueryItem, pos: SourcePositions, id_scheme: str) -> Instance:
    """A query as one instance: its candidates named by ``id_scheme``, gold = relevance (0/1)."""
    cand_pos = pos.candidates.get(r.id, {})
    refs = tuple(
        ItemRef(item_id(id_scheme, n, c.id), c.id, cand_pos.get(c.id))
        for n, c in enumerate(r.candidates, start=1)
    )
    return Instance(
        r.id,
        {
            "query": r.query,
            "candidates": [
                {"id": ref.item_id, "text": c.text}
                for ref, c in zip(refs, r.candidates, strict=True)
            ],
        },
        {ref.item_id: int(c.relevant) for ref, c in zip(refs, r.candidates, strict=True)},
        pos.records.get(r.id),
        refs,
    )


def pair_instance(r: PairItem, pos: SourcePositions) -> Instance:
    """A sentence pair as one instance: both sentences shown, the score as gold."""
    return Instance(
        r.id, {"sentence1": r.sentence1, "sentence2": r.sentence2}, r.score, pos.records.get(r.id)
    )


__all__ = [
    "ID_SCHEMES",
    "Instance",
    "ItemRef",
    "Sample",
    "SampleReport",
    "SamplingError",
    "SamplingParams",
    "SourcePositions",
    "by_id",
    "label_counts",
    "pair_instance",
    "permute",
    "query_instance",
    "sample_classification",
    "sample_clustering",
    "sample_reranking",
    "sample_sts",
    "set_instance",
    "stable_hash",
    "sts_bins",
    "subset_rng",
    "text_instance",
]
