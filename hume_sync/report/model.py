"""The study's report as data: gathered from the store and computed by :mod:`scoring`, once.

Reads gold, the valid human annotations, the LLM annotators' answers and the embedding models'
subset scores from the study store; every number is produced by :mod:`scoring`
(:func:`scoring.subset_report.evaluate_subsets`, each subset, :mod:`scoring.comparison` across
subsets). :mod:`hume_sync.report.render` draws it and :mod:`hume_sync.report.export` writes it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hume_sync import task_types
from hume_sync.report.instruction_following import FollowingFacts
from hume_sync.report.instruction_following import gather as gather_following
from hume_sync.report.retrieval import RetrievalFacts
from hume_sync.report.retrieval import gather as gather_retrieval
from hume_sync.rules.effort_quality import EffortQuality, effort_quality
from hume_sync.rules.late_answers import CLOSED_AT, closed_at, deleted_late, lateness
from hume_sync.sealing import SealReport, check_study
from hume_sync.store import AnnotationRow, InstanceRow, Store, SubsetRow, gold
from hume_sync.task_types import RegisteredType
from scoring.comparison import (
    HumanVsModels,
    RankRow,
    SubsetInfo,
    human_vs_models,
    rank_raters,
    score_correlation,
)
from scoring.errors import ScoringError
from scoring.panel_summary import summarise as summarise_panels
from scoring.results import (
    Rater,
    SubsetScore,
    read_results_dir,
    subset_id,
)
from scoring.subset_report import (
    SubsetInput,
    SubsetReport,
    evaluate_subsets,
)
from scoring.tasks import normalise_language

HUMAN_MODEL_NAME = "baseline/Human"
#: What the report shows of a model's metadata (mteb ``ModelMeta`` fields), where it is known.
MODEL_META_FIELDS = ("n_parameters", "embed_dim", "max_tokens")


def known_types() -> list[RegisteredType]:
    """Every registered task type, in registration order (what the result readers recognise)."""
    return [task_types.get(name) for name in task_types.names()]


@dataclass
class StudyReport:
    """All that the export writes, computed once."""

    study: str
    subsets: list[SubsetReport]
    ids: dict[str, str]  # subset key -> comparison id "<task>/<language>"
    rows: list[RankRow]
    human_vs_models: HumanVsModels | None
    human_llm_correlation: dict[str, Any]
    results_models: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: When annotation closed (the store's ``closed_at``), and whether answers given after it
    #: are in the scores (``--include-late``).
    closed_at: str | None = None
    include_late: bool = False
    #: Annotators named by email (``export --with-emails``) instead of their pseudonymous keys.
    with_emails: bool = False
    #: Per model, the metadata known of it (:data:`MODEL_META_FIELDS`, absent ones left out).
    model_meta: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Every model's and LLM's sealing commitment, recomputed from the store and judged
    #: (:func:`hume_sync.sealing.check_study`).
    sealing: SealReport | None = None
    #: Table 1's human rows: each panel entry's mean over subsets with its interval
    #: (:func:`scoring.panel_summary.summarise`).
    panel_summary: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Hours so far and owed, and the quality signals, per annotator and subset, from Label
    #: Studio's ``lead_time`` (:func:`hume_sync.rules.effort_quality.effort_quality`); keyed by
    #: store annotator keys, which :attr:`annotator_names` turns into this report's names.
    #: Only the report's text shows them: ``scores.json`` stays what it was.
    effort: EffortQuality | None = None
    #: Why there is no :attr:`effort` (a stored lead_time the rules refuse), said in the report.
    effort_note: str = ""
    #: Store annotator key -> the name this report gives them (:func:`annotator_names`).
    annotator_names: dict[str, str] = field(default_factory=dict)
    #: Money per annotator-hour (``export --rate``): the sample-size table prices its hours.
    rate_per_hour: float | None = None
    #: Per retrieval subset, whole-corpus and pooled scores, missing judgments and the judgment
    #: files the export writes (:func:`hume_sync.report.retrieval.gather`).
    retrieval: list[RetrievalFacts] = field(default_factory=list)
    #: Per subset with arms (instruction reranking), p-MRR of the people and of every model
    #: (:func:`hume_sync.report.instruction_following.gather`).
    instruction_following: list[FollowingFacts] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return all(s.coverage["complete"] for s in self.subsets)

    def total_left_out(self, kind: str) -> int:
        """Answers counted in every subset's ``invalid``, ``late`` or ``late_deleted``."""
        return sum(sum(getattr(s.input, kind).values()) for s in self.subsets)


def annotator_names(store: Store, *, with_emails: bool = False) -> dict[str, str]:
    """How the report names each annotator key found in the study's annotations.

    Annotations carry pseudonymous keys (``annotator-<slot>``: the annotator's slot, stable for
    the study), which is what files that leave the team show. ``with_emails`` names registered
    annotators by email instead, for the team's own eyes. A key that is itself an email (a
    store filled by hand) gets a pseudonym ``A<n>`` (n by sorted key) unless ``with_emails``.
    """
    emails = {a.key: a.email for a in store.annotators()}
    keys = store.annotator_keys()
    if with_emails:
        return {k: emails.get(k, k) for k in keys}
    emailish = [k for k in keys if "@" in k]
    return {k: f"A{emailish.index(k) + 1}" if "@" in k else k for k in keys}


def human_answers(
    store: Store,
    sub: SubsetRow,
    closed: datetime | None,
    include_late: bool,
    names: dict[str, str],
    rows: list[AnnotationRow] | None = None,
) -> tuple[
    dict[str, dict[Hashable, Any]], dict[str, int], dict[str, int], dict[str, int], dict[str, int]
]:
    """(answers scored, invalid, late, late edited, late deleted) of one subset, per annotator.

    Invalid answers are never scored; late ones (see :mod:`hume_sync.rules.late_answers`) only
    with ``include_late``. Both are counted, never dropped from the store. The close is a line in
    time: an answer deleted in Label Studio after it is scored as it was (and counted), unless
    ``include_late`` lets the deletion count; one deleted before it is as if never given.
    ``rows``: the subset's annotations, deleted ones included, where the caller read them
    already (:func:`read_rows`); read from the store where None.
    """
    ttype = task_types.get(sub.task_type)
    humans: dict[str, dict[Hashable, Any]] = {}
    invalid: Counter[str] = Counter()
    late: Counter[str] = Counter()
    edited: Counter[str] = Counter()
    deleted: Counter[str] = Counter()
    if rows is None:
        rows = store.annotations(sub.key, include_deleted=closed is not None)
    for ann in rows:  # deleted ones too where the caller read them: skipped below while open
        who = names.get(ann.annotator, ann.annotator)
        if ann.deleted_at is not None:
            if closed is None or ann.status != "valid" or not deleted_late(ann, closed):
                continue  # gone before the close: as if never given
            deleted[who] += 1
            if include_late:
                continue  # the deletion counts
        if ann.status == "invalid":
            invalid[who] += 1
        if ann.status != "valid" or ann.answer is None:
            continue
        if closed is not None:
            is_late, was_edited = lateness(ann, closed)
            if is_late:
                late[who] += 1
                edited[who] += int(was_edited)
                if not include_late:
                    continue
        humans.setdefault(who, {})[ann.hume_id] = ttype.score_normalise_answer(ann.answer)
    late_edited = {k: v for k, v in edited.items() if v}
    return humans, dict(invalid), dict(late), late_edited, dict(deleted)


@dataclass(frozen=True)
class StudyRows:
    """Every subset's annotations (deleted ones included) and instances, read once.

    Why: the scores and the effort section both read them, and reading (decoding every answer
    and every instance's content) twice was a tenth of an export (issue 38).
    """

    annotations: dict[str, list[AnnotationRow]]
    instances: dict[str, list[InstanceRow]]
    #: ``store.subsets()`` as read with them (decoding every subset's config is not free)
    subsets: list[SubsetRow] = field(default_factory=list)

    def live_annotations(self) -> dict[str, list[AnnotationRow]]:
        """Per subset, the annotations not deleted: ``store.annotations(subset)``."""
        return {
            k: [r for r in rows if r.deleted_at is None] for k, rows in self.annotations.items()
        }


def read_rows(store: Store) -> StudyRows:
    """The :class:`StudyRows` of every subset of the study."""
    subsets = store.subsets()
    keys = [s.key for s in subsets]
    return StudyRows(
        annotations={k: store.annotations(k, include_deleted=True) for k in keys},
        instances={k: store.instances(k) for k in keys},
        subsets=subsets,
    )


def subset_inputs(
    store: Store,
    *,
    include_late: bool = False,
    with_emails: bool = False,
    rows: StudyRows | None = None,
) -> list[SubsetInput]:
    """One :class:`SubsetInput` per subset: gold, human and LLM answers, model scores.

    Human answers given or changed after the study's close are left out unless
    ``include_late``; either way they are counted in each input's ``late``. Annotators are
    named by :func:`annotator_names`. ``rows``: what :func:`read_rows` read, where the caller
    has it; read from the store where None.
    """
    names = annotator_names(store, with_emails=with_emails)
    model_scores = store.model_subset_scores()
    seed = store.study_meta().seed or 42
    closed = closed_at(store)
    out = []
    for sub in store.subsets():
        ttype = task_types.of_subset(sub)
        instances = store.instances(sub.key) if rows is None else rows.instances[sub.key]
        humans, invalid, late, late_edited, late_deleted = human_answers(
            store,
            sub,
            closed,
            include_late,
            names,
            None if rows is None else rows.annotations[sub.key],
        )
        llms: dict[str, dict[Hashable, Any]] = {}
        failures: dict[str, int] = {}
        model_answers: dict[str, dict[Hashable, Any]] = {}
        for pred in store.predictions(sub.key):
            if not pred.model_version.startswith("llm:"):
                if pred.answer is not None:  # per-item, for the paired comparison
                    model_answers.setdefault(pred.model_version, {})[pred.hume_id] = (
                        ttype.score_normalise_model_answer(pred.answer)
                    )
                continue
            if pred.answer is None:  # parse error, invalid answer or endpoint error
                failures[pred.model_version] = failures.get(pred.model_version, 0) + 1
                continue
            llms.setdefault(pred.model_version, {})[pred.hume_id] = ttype.score_normalise_answer(
                pred.answer
            )
        models = {
            mv: s.main_score
            for mv, by_subset in model_scores.items()
            if (s := by_subset.get(sub.key)) is not None and s.main_score is not None
        }
        golds = gold(store, sub.key)
        out.append(
            SubsetInput(
                key=sub.key,
                task_name=sub.task_name,
                hf_subset=sub.hf_subset,
                task_type=ttype,
                language=sub.language,
                gold={i.hume_id: ttype.score_normalise_answer(golds[i.hume_id]) for i in instances},
                humans=humans,
                llms=llms,
                llm_failures=failures,
                models=models,
                model_answers={m: a for m, a in model_answers.items() if m in models},
                texts={i.hume_id: ttype.score_item_text(i.content) for i in instances},
                contents={i.hume_id: i.content for i in instances},
                n_planned=len(instances),
                overlap=sub.overlap,
                seed=seed,
                invalid=invalid,
                late=late,
                late_edited=late_edited,
                late_deleted=late_deleted,
                late_included=include_late,
            )
        )
    return out


def _raters(reports: list[SubsetReport], ids: dict[str, str]) -> list[Rater]:
    """The study's humans, LLMs and models as :class:`Rater` objects for scoring.comparison."""
    raters: dict[tuple[str, str], Rater] = {}

    def add(name: str, kind: str, rep: SubsetReport, value: float) -> None:
        r = raters.setdefault((name, kind), Rater(name, "study", kind, Path(".")))  # type: ignore[arg-type]
        inp = rep.input
        r.scores[ids[inp.key]] = SubsetScore(
            inp.task_name, inp.hf_subset, (inp.language,), inp.task_type.name, value
        )

    for rep in reports:
        if rep.human is not None:
            add(HUMAN_MODEL_NAME, "human", rep, rep.human.value)
        for name, score in rep.llm_scores.items():
            add(name, "llm", rep, score.value)
        for name, value in rep.input.models.items():
            add(name, "model", rep, value)
    return list(raters.values())


def _results_models(results_dir: str, ids: dict[str, str]) -> tuple[list[Rater], list[str]]:
    """Models of an MTEB results folder that report the study's (HUME) subsets."""
    coll = read_results_dir(results_dir, known_types())
    wanted = set(ids.values())
    models = [r for r in coll.raters if r.kind == "model" and wanted & set(r.scores)]
    for r in models:
        r.scores = {k: v for k, v in r.scores.items() if k in wanted}
    return models, [str(p) for p in coll.problems]


def _meta_fields(meta: Any) -> dict[str, Any]:
    """The :data:`MODEL_META_FIELDS` a model_meta mapping or mteb ``ModelMeta`` knows."""
    get = meta.get if isinstance(meta, dict) else lambda k: getattr(meta, k, None)
    out = {}
    for k in MODEL_META_FIELDS:
        v = get(k)
        # mteb writes max_tokens = inf for models without a limit: not a number to print
        if isinstance(v, int | float) and math.isfinite(v) and v > 0:
            out[k] = int(v)
    return out


def model_metadata(
    names: list[str], results: list[Rater], facts: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Parameters, embedding dimension and max tokens per model, where known: from the
    ``model_meta.json`` of the results folder, else from what the loaded model said of itself
    when ``predict`` ran it (``facts``: the store's ``model_facts``); a model known to neither
    is left out. mteb's registry is not asked: importing mteb costs ~10 s per export, and the
    model that ran is a better witness than its name."""
    out = {r.name: f for r in results if (f := _meta_fields(r.meta))}
    for name in names:
        said = facts.get(name)
        if name not in out and said and (f := _meta_fields(said)):
            out[name] = f
    return out


def _effort(store: Store, rows: StudyRows) -> tuple[EffortQuality | None, str]:
    """The study's effort and quality signals, or None and why: a lead time Label Studio
    stored that the rules refuse (negative, not finite) costs the report its effort section,
    never the scores."""
    try:
        return effort_quality(
            store,
            annotations=rows.live_annotations(),
            instances=rows.instances,
            subsets=rows.subsets,
        ), ""
    except ScoringError as exc:
        return None, f"Effort and quality signals could not be computed: {exc}."


def build_report(
    store: Store,
    *,
    results_dir: str | None = None,
    include_late: bool = False,
    with_emails: bool = False,
    rate_per_hour: float | None = None,
) -> StudyReport:
    """Evaluate every subset, then compare raters across subsets (late answers and annotator
    names: see :func:`subset_inputs`); gather effort and quality signals from the store, priced
    at ``rate_per_hour`` (``export --rate``) where given."""
    read = read_rows(store)
    inputs = subset_inputs(store, include_late=include_late, with_emails=with_emails, rows=read)
    ids = {
        i.key: subset_id(i.task_name, i.hf_subset, normalise_language(i.language)) for i in inputs
    }
    if len(set(ids.values())) != len(ids):  # two subsets of one task in one language
        ids = {i.key: i.key for i in inputs}
    extra_models: list[Rater] = []
    problems: list[str] = []
    if results_dir:
        extra_models, problems = _results_models(results_dir, ids)
        for inp in inputs:
            for m in extra_models:
                if ids[inp.key] in m.scores:
                    inp.models = {**inp.models, m.name: m.scores[ids[inp.key]].main_score}
    reports = evaluate_subsets(inputs)
    raters = _raters(reports, ids)
    infos = {
        ids[r.input.key]: SubsetInfo(
            ids[r.input.key],
            r.input.task_name,
            r.input.hf_subset,
            r.input.task_type.name,
            normalise_language(r.input.language),
        )
        for r in reports
    }
    rows = rank_raters(raters, infos) if infos else []
    human = next((r for r in raters if r.kind == "human"), None)
    ranked_models = [r.rater for r in rows if r.rater.kind == "model" and r.rank is not None]
    hvm = human_vs_models(human, ranked_models, infos) if human and ranked_models else None
    correlation: dict[str, Any] = {}
    if human is not None:
        h_scores = {k: v.main_score for k, v in human.scores.items()}
        for llm in (r for r in raters if r.kind == "llm"):
            try:
                corr = score_correlation(h_scores, {k: v.main_score for k, v in llm.scores.items()})
                correlation[llm.name] = corr.to_dict()
            except ScoringError as exc:
                correlation[llm.name] = {
                    "value": None,
                    "method": "spearman_across_subsets",
                    "reason": str(exc),
                }
    effort, effort_note = _effort(store, read)
    meta = store.meta()
    return StudyReport(
        study=meta.get("study_name", "study"),
        subsets=reports,
        ids=ids,
        rows=rows,
        human_vs_models=hvm,
        human_llm_correlation=correlation,
        results_models=[m.name for m in extra_models],
        problems=problems,
        closed_at=meta.get(CLOSED_AT),
        include_late=include_late,
        with_emails=with_emails,
        model_meta=model_metadata(
            sorted({m for r in reports for m in r.input.models}), extra_models, store.model_facts()
        ),
        sealing=check_study(store),
        panel_summary=summarise_panels([(ids[r.input.key], r.human_panel) for r in reports]),
        effort=effort,
        effort_note=effort_note,
        annotator_names={
            # a seat with no answer yet is named too (the effort tables list it)
            **{a.key: a.email if with_emails else a.key for a in store.annotators()},
            **annotator_names(store, with_emails=with_emails),
        },
        rate_per_hour=rate_per_hour,
        retrieval=gather_retrieval(store, reports),
        instruction_following=gather_following(store, reports),
    )
