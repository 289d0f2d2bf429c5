"""Planning a study: load each subset's source, sample it, and turn it into the rows the store
writes (:class:`~hume_sync.store.SubsetPlan`); ``init`` (:mod:`hume_sync.workflow.init`) is that
plan applied in one transaction.

Kept out of the store so that the store is data access only: it knows rows, not specs, sources or
sampling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hume_sync.errors import SamplingError
from hume_sync.store import (
    SubsetPlan,
    dumps,
    hume_id,
    subset_key,
)
from hume_sync.study import kinds
from hume_sync.study.gold_checks import check_gold_against_spec
from hume_sync.study.records import TextItem
from hume_sync.study.sampling import Instance, SamplingParams, SourcePositions, subset_rng
from hume_sync.study.sources import (
    SourceData,
    file_sha256,
    infer_format,
    load_mteb,
    load_records,
)
from hume_sync.study.spec import StudySpec, SubsetSpec, TaskSpec


def load_subset(task: TaskSpec, subset: SubsetSpec) -> SourceData:
    """Load one subset as the spec describes it (local files or MTEB)."""
    src = task.source
    kind = kinds.get(task.type)
    if src.is_mteb:
        return load_mteb(src.mteb or "", subset.name, kind=kind, split=src.split)
    assert subset.resolved_path is not None, "spec guarantees a path for local sources"
    fmt = src.format or infer_format(subset.resolved_path)
    records = load_records(
        kind, subset.resolved_path, fmt=fmt, columns=src.columns, header=src.header
    )
    origin: dict[str, Any] = {
        "path": subset.path,
        "format": fmt,
        "sha256": file_sha256(subset.resolved_path),
    }
    train: tuple[TextItem, ...] | None = None
    if subset.resolved_train_path is not None:
        tfmt = src.format or infer_format(subset.resolved_train_path)
        train_records = load_records(  # a train pool holds the type's own labelled texts
            kind,
            subset.resolved_train_path,
            fmt=tfmt,
            columns=src.columns,
            header=src.header,
        )
        train = tuple(r for r in train_records if isinstance(r, TextItem))
        origin["train_path"] = subset.train_path
        origin["train_sha256"] = file_sha256(subset.resolved_train_path)
    return SourceData(records=tuple(records), train=train, origin=origin)


Loader = Callable[[TaskSpec, SubsetSpec], SourceData]


def plan_subset(
    spec: StudySpec,
    task: TaskSpec,
    subset: SubsetSpec,
    position: int,
    loader: Loader,
    *,
    id_scheme: str = "opaque",
) -> list[SubsetPlan]:
    """Load and sample one subset into the rows it will have in the store (one stored subset
    per arm for a type with arms, :attr:`~hume_sync.study.rules.StudyRules.study_arms`).

    The loader's record order is the source order: each instance, item and train item keeps its
    position in it (what models run in), apart from the shuffled presentation order.
    """
    kind = kinds.get(task.type)
    data = loader(task, subset)
    check_gold_against_spec(spec, task, subset, data)
    rng = subset_rng(spec.seed, task.name, subset.name)
    params = SamplingParams.of(subset, task.name)
    try:
        sample = kind.study_sample_subset(data.records, rng, params)
    except SamplingError as exc:
        raise SamplingError(f"task {task.name!r} subset {subset.name!r}: {exc}") from None
    instances: list[Instance] = kind.study_instances(
        sample.records, SourcePositions.of(data.records), id_scheme=id_scheme
    )
    config: dict[str, Any] = {
        "sampling": subset.sampling,
        "size": subset.size,
        "source": dict(data.origin),
        "instructions": subset.instructions,
    }
    config.update(kind.study_subset_config(params, data.records, data.train or (), instances))
    config["report"] = sample.report.to_dict()
    config = {k: v for k, v in config.items() if v is not None}
    if not kind.study_arms:
        return [_subset_plan(task, subset, subset.name, position, config, instances, data)]
    names = {arm: arm_name(subset.name, arm) for arm in kind.study_arms}
    keys = {arm: subset_key(task.name, name) for arm, name in names.items()}
    return [
        _subset_plan(
            task,
            subset,
            names[arm],
            position + n,
            config
            | {
                "arm": arm,
                "arm_of": subset.name,
                "exclusive_with": [keys[other] for other in kind.study_arms if other != arm],
            },
            kind.study_arm_instances(instances, arm),
            data,
        )
        for n, arm in enumerate(kind.study_arms)
    ]


def arm_name(hf_subset: str, arm: str) -> str:
    """The stored subset name of one arm of ``hf_subset`` (``default-og``): a name of its own,
    so that the arm's rows, result files and comparisons never merge with another arm's."""
    return f"{hf_subset}-{arm}"


def _subset_plan(
    task: TaskSpec,
    subset: SubsetSpec,
    name: str,
    position: int,
    config: dict[str, Any],
    instances: list[Instance],
    data: SourceData,
) -> SubsetPlan:
    """The store rows of one stored subset (``name``: the spec's subset, or one of its arms)."""
    key = subset_key(task.name, name)
    rows = [
        (
            hume_id(task.name, name, inst.source_id),
            inst.source_id,
            order,
            dumps(inst.content),
            dumps(inst.gold),
            inst.source_position,
        )
        for order, inst in enumerate(instances)
    ]
    items = {
        hume_id(task.name, name, inst.source_id): inst.items for inst in instances if inst.items
    }
    train = [(r.id, r.text, r.label, n) for n, r in enumerate(data.train or ())]
    return SubsetPlan(
        key=key,
        task_name=task.name,
        hf_subset=name,
        task_type=task.type,
        language=subset.language,
        config=config,
        # The store's column, set only for the types whose settings have it.
        samples_per_label=getattr(subset.settings, "samples_per_label", None),
        overlap=subset.annotators,
        position=position,
        instances=rows,
        items=items,
        train=train,
        report=config["report"],
    )


def plan_study(
    spec: StudySpec, loader: Loader = load_subset, *, id_scheme: str = "opaque"
) -> list[SubsetPlan]:
    plans: list[SubsetPlan] = []
    for task, subset in spec.iter_subsets():
        plans += plan_subset(spec, task, subset, len(plans), loader, id_scheme=id_scheme)
    return plans
