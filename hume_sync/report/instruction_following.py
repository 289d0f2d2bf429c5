"""The instruction-following part of the report: p-MRR across the two arms of a subset.

A type with arms (:attr:`~hume_sync.study.rules.StudyRules.study_arms`: instruction reranking's
original and changed instruction) stores one subset per arm, each scored like any subset. Its
main score, p-MRR, needs both: this module pairs the arms' reports query by query (the same
source query, the same candidate ids in both) while the store is open and asks the type for the
numbers — the people's panels (:meth:`score_p_mrr`), each model from its stored answers of both
arms (:meth:`model_p_mrr`, mteb's computation) — on the source's query and document ids (mteb
breaks tied scores by document id), and
:mod:`hume_sync.report.instruction_following_section` lays them out. A model's verdict is read
off the numbers printed beside it: above, inside or below the people's 95 % interval.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from hume_sync.store import Store
from scoring.errors import ScoringError
from scoring.intervals import compare_to_interval

if TYPE_CHECKING:
    from scoring.subset_report import SubsetReport


@dataclass(frozen=True)
class ModelRow:
    """One model's p-MRR (mteb's tie rule) and how it sits against the people's interval."""

    name: str
    p_mrr: float
    verdict: str  # "above", "inside" or "below" the people's interval; "" without one


@dataclass(frozen=True)
class FollowingFacts:
    """One subset's p-MRR: the people's panels, each pair of people, each model."""

    key: str
    arms: dict[str, str]  # arm -> its stored subset key
    queries: int
    annotators: dict[str, list[str]]  # arm -> its annotators, as the report names them
    human: float | None
    human_trec: float | None
    low: float | None
    high: float | None
    interval_method: str
    pairs: list[tuple[str, str, float]] = field(default_factory=list)
    models: list[ModelRow] = field(default_factory=list)
    note: str = ""  # why there is no human value

    def to_dict(self) -> dict[str, Any]:
        """The facts as plain JSON-ready data (``scores.json``'s ``instruction_following``)."""
        return asdict(self)


@dataclass(frozen=True)
class _SourceIds:
    """An arm's instances and candidates by their source ids: queries pair across the arms by
    them, and mteb breaks tied scores by the documents' own ids, not by the shown ones."""

    queries: dict[Hashable, str]
    candidates: dict[Hashable, dict[str, str]]

    @classmethod
    def of(cls, store: Store, key: str) -> _SourceIds:
        refs = store.item_refs(key)
        return cls(
            {i.hume_id: i.source_id for i in store.instances(key)},
            {h: {r.item_id: r.source_id for r in rs} for h, rs in refs.items()},
        )

    def rekey(self, values: Mapping[Hashable, Any]) -> dict[str, Any]:
        """``{hume_id: {item id: value}}`` as ``{source query: {source document: value}}``."""
        out = {}
        for h, per_item in values.items():
            if h in self.queries and per_item is not None:
                names = self.candidates.get(h, {})
                out[self.queries[h]] = {names.get(k, k): v for k, v in per_item.items()}
        return out


def _pair(store: Store, key: str, arms: dict[str, SubsetReport]) -> FollowingFacts:
    """The facts of one subset from its arms' reports (the type's first arm the original
    instruction, its second the changed one)."""
    t: Any = next(iter(arms.values())).input.task_type
    first, second = t.study_arms
    og, changed = arms[first], arms[second]
    src = {arm: _SourceIds.of(store, rep.input.key) for arm, rep in arms.items()}
    gold = {arm: src[arm].rekey(rep.input.gold) for arm, rep in arms.items()}
    humans = {
        arm: {who: src[arm].rekey(given) for who, given in rep.input.humans.items()}
        for arm, rep in arms.items()
    }
    human = human_trec = interval = None
    note, pairs = "", []
    try:
        expected, trec, interval, by_pair = t.score_p_mrr(
            humans[first], humans[second], gold[first], gold[second], seed=og.input.seed
        )
        human, human_trec = expected.value, trec.value
        pairs = [(a, b, v) for (a, b), v in sorted(by_pair.items())]
    except ScoringError as exc:
        note = f"no p-MRR of people yet: {exc}"
    models = []
    for name in sorted(set(og.input.model_answers) & set(changed.input.model_answers)):
        value = t.model_p_mrr(
            src[first].rekey(og.input.model_answers[name]),
            src[second].rekey(changed.input.model_answers[name]),
            gold[first],
            gold[second],
        ).value
        where = "" if interval is None else compare_to_interval(value, interval)
        models.append(ModelRow(name, value, where))
    return FollowingFacts(
        key=key,
        arms={arm: rep.input.key for arm, rep in arms.items()},
        queries=len(set(gold[first]) & set(gold[second])),
        annotators={arm: sorted(h) for arm, h in humans.items()},
        human=human,
        human_trec=human_trec,
        low=None if interval is None else interval.low,
        high=None if interval is None else interval.high,
        interval_method="" if interval is None else interval.method,
        pairs=pairs,
        models=models,
        note=note,
    )


def gather(store: Store, reports: list[SubsetReport]) -> list[FollowingFacts]:
    """The :class:`FollowingFacts` of every subset whose arms are both in ``reports``, read
    while ``store`` is open; the people are the answers the report scores (late ones left out
    unless ``--include-late``), named as the report names them."""
    configs = {s.key: s.config for s in store.subsets()}
    grouped: dict[str, dict[str, SubsetReport]] = {}
    for rep in reports:
        config = configs.get(rep.input.key) or {}
        if "arm" in config and hasattr(rep.input.task_type, "score_p_mrr"):
            base = f"{rep.input.task_name}/{config['arm_of']}"
            grouped.setdefault(base, {})[config["arm"]] = rep
    return [
        _pair(store, key, arms)
        for key, arms in sorted(grouped.items())
        if set(arms) == set(next(iter(arms.values())).input.task_type.study_arms)  # type: ignore[attr-defined]
    ]
