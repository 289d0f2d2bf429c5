"""What models see of a subset: mteb's view of the data, and the way back to what annotators see.

mteb's numbers depend on order: classification undersamples the train pool after a seeded
shuffle of the pool *in its given order*, and MiniBatchKMeans clusters a set *in its given
order*. Annotators see a seeded shuffle under opaque ids (:mod:`hume_sync.study.sampling`); a
model run on that order would score differently from mteb, and its score would move with the
study seed.
So models always run on this view, never on the presentation order:

- instances in the source's order: for sets taken whole (``sampling: all``, the HUME presets)
  that is the source itself; for a sampled subset it is *the sampled records in source order*
  (the order mteb would see if the sample were written out as a file, keeping the source's order);
- clustering items and reranking candidates in source order under their source ids (trec_eval,
  and so mteb, break exact score ties by document id);
- the classification train pool in source order.

A model's answer comes back keyed by source ids; :meth:`ModelView.shown_answer` renames it to the
ids annotators answered under, so human, model and gold answers stay keyed alike.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hume_sync.errors import ModelViewError
from hume_sync.store import InstanceRow, ItemRef, Store, gold, unknown_order_message
from hume_sync.study import kinds
from hume_sync.study.records import TextItem
from ml_backend.model_procedure import ModelProcedure


@dataclass(frozen=True)
class ModelInstance:
    """One instance as models see it: ``content`` and ``gold`` in source order and source ids;
    ``shown_ids`` maps each source item id to the id annotators see."""

    hume_id: str
    content: dict[str, Any]
    gold: Any
    shown_ids: Mapping[str, str]


@dataclass(frozen=True)
class ModelView:
    """A subset as mteb would see it (see the module docstring)."""

    subset: str
    task_type: str
    instances: tuple[ModelInstance, ...]
    train: tuple[TextItem, ...]

    @functools.cached_property
    def _by_id(self) -> dict[str, ModelInstance]:
        return {i.hume_id: i for i in self.instances}

    def shown_answer(self, hume_id: str, answer: Any) -> Any:
        """A model's answer for an instance, keyed by the ids annotators see."""
        inst = self._by_id.get(hume_id)
        if inst is None:
            raise ModelViewError(f"no instance {hume_id!r} in subset {self.subset}")
        return rename_items(answer, inst.shown_ids)


def rename_items(answer: Any, names: Mapping[str, str]) -> Any:
    """``answer`` with its item keys renamed by ``names`` (answers without items pass as they are).

    Clustering and reranking answers are ``{item_id: value}``; every key must be named, so a
    stray id is an error rather than a silently dropped item.
    """
    if not names or not isinstance(answer, Mapping):
        return answer
    unknown = [k for k in answer if k not in names]
    if unknown:
        raise ModelViewError(f"answer names unknown item(s) {unknown[:5]!r}")
    return {names[k]: v for k, v in answer.items()}


def _position(value: int | None, subset: str) -> int:
    if value is None:
        raise ModelViewError(unknown_order_message(subset))
    return value


def _model_instance(
    task: ModelProcedure, inst: InstanceRow, gold_value: Any, refs: Sequence[ItemRef], subset: str
) -> ModelInstance:
    key = task.model_items_key
    if key is None:
        return ModelInstance(inst.hume_id, dict(inst.content), gold_value, {})
    by_shown = {r.item_id: r for r in refs}
    shown = {str(item["id"]): item for item in inst.content[key]}
    if shown.keys() != by_shown.keys():
        raise ModelViewError(f"{inst.hume_id}: the stored item ids and their source map disagree")
    ordered = sorted(by_shown.values(), key=lambda r: _position(r.source_position, subset))
    content = dict(inst.content)
    content[key] = [{**shown[r.item_id], "id": r.source_id} for r in ordered]
    source_gold = {by_shown[k].source_id: v for k, v in dict(gold_value).items()}
    return ModelInstance(
        inst.hume_id, content, source_gold, {r.source_id: r.item_id for r in ordered}
    )


def model_view(store: Store, subset: str) -> ModelView:
    """The subset in mteb's order and ids, gold included (only ``hume_sync`` may call this).

    Raises ModelViewError when the source order is unknown (a store migrated from schema 1 on which
    ``init`` has not run again).
    """
    row = store.subset(subset)
    task = kinds.get(row.task_type)
    if not isinstance(task, ModelProcedure):  # the registry checks every type is one
        raise TypeError(f"task type {row.task_type!r} has no model procedure")
    golds = gold(store, subset)
    refs = store.item_refs(subset)
    rows = sorted(
        store.instances(subset), key=lambda i: (_position(i.source_position, subset), i.hume_id)
    )
    instances = tuple(
        _model_instance(task, i, golds[i.hume_id], refs.get(i.hume_id, ()), subset) for i in rows
    )
    train = tuple(store.train_items(subset)) if task.model_needs_train_pool else ()
    return ModelView(subset, row.task_type, instances, train)


def shown_ids_from_source(store: Store, subset: str, hume_id: str, answer: Any) -> Any:
    """An answer written against an instance's *source* item ids, renamed to the ids shown
    (e.g. the demo's recorded answers, which name the demo files' own item ids)."""
    refs = store.item_refs(subset).get(hume_id, ())
    names = {r.source_id: r.item_id for r in refs}
    if isinstance(answer, str) and answer in names:  # an answer that chooses one item
        return names[answer]
    return rename_items(answer, names)
