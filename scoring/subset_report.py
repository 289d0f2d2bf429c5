"""Everything the report says about one task-language subset, computed from plain inputs.

Given gold, the human annotators' answers, the LLM annotators' answers and the embedding models'
task scores, :func:`evaluate_subset` returns the human score by HUME's aggregation with its
confidence interval, each annotator's and LLM's score, agreement (human–human, and human–LLM
apart), the models placed against the human interval, items on which humans disagreed,
candidate gold errors, and how many items would tighten the interval to ±0.05. Every number
carries the name of its method.

Everything that differs by task type (aggregation, agreement statistics, interval, per-item
bootstrap records, disagreement and gold-error rules, sample-size rule) comes from the subset's
task type object, duck-typed to :class:`scoring.rules.ScoringRules`; this module holds only what
every type shares, and never asks which type it has.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import scoring.agreement as agreement
import scoring.intervals as intervals
import scoring.panel as panel
from scoring.alt_test import AltTestResult, alt_tests
from scoring.errors import ScoringError
from scoring.records import Agreement, Interval, Score, plain_summary
from scoring.rules import ScoringRules, items_by_bootstrap_scaling
from scoring.score_memo import shared_scores

TARGET_HALF_WIDTH = 0.05
BOOTSTRAP_RESAMPLES = 2000
#: Human − best model within this counts as "close" in the difficulty column.
CLOSE_GAP = 0.05
#: An interval narrower than this has zero width (rounding leaves 1e-16 where all values agree).
ZERO_WIDTH = 1e-9


@dataclass
class SubsetInput:
    """Plain inputs for one subset (item shapes are the task type's own)."""

    key: str
    task_name: str
    hf_subset: str
    #: The task type object: every type-specific rule is asked of it.
    task_type: ScoringRules
    language: str
    gold: Mapping[Hashable, Any]
    humans: Mapping[str, Mapping[Hashable, Any]]
    llms: Mapping[str, Mapping[Hashable, Any]] = field(default_factory=dict)
    #: Items each LLM failed on (unparsable, outside the label set, endpoint errors): counted,
    #: never scored as a default answer.
    llm_failures: Mapping[str, int] = field(default_factory=dict)
    models: Mapping[str, float] = field(default_factory=dict)
    #: Embedding models' per-item answers where stored (as shown to annotators): what the
    #: paired comparison with humans scores, item by item.
    model_answers: Mapping[str, Mapping[Hashable, Any]] = field(default_factory=dict)
    texts: Mapping[Hashable, str] = field(default_factory=dict)
    #: Stored item contents (query and candidates, ...), where the type shows an answer
    #: against its texts (``score_item_marks``) in the item lists.
    contents: Mapping[Hashable, Mapping[str, Any]] = field(default_factory=dict)
    n_planned: int | None = None
    overlap: int | None = None
    seed: int = 42
    #: Human answers kept out of ``humans``, counted per annotator: invalid ones (incomplete,
    #: or not fitting the interface) are never scored; late ones (given or changed after the
    #: study was closed) are scored only when ``late_included`` (then they are in ``humans``).
    invalid: Mapping[str, int] = field(default_factory=dict)
    late: Mapping[str, int] = field(default_factory=dict)
    #: Of the late answers, those created before the close and edited after it.
    late_edited: Mapping[str, int] = field(default_factory=dict)
    #: Answers that existed at the close and were deleted after it: in ``humans`` (as they were
    #: at the close) unless ``late_included``, which lets the deletions count.
    late_deleted: Mapping[str, int] = field(default_factory=dict)
    late_included: bool = False

    def left_out(self) -> dict[str, Any]:
        """The JSON form of the invalid and late counts.

        Returns:
            ``invalid``, ``late``, ``late_edited``, ``late_deleted`` and ``late_included``.
        """
        return {
            "invalid": dict(self.invalid),
            "late": dict(self.late),
            "late_edited": dict(self.late_edited),
            "late_deleted": dict(self.late_deleted),
            "late_included": self.late_included,
        }


@dataclass
class SubsetReport:
    """The computed report of one subset (``to_dict`` gives the JSON form)."""

    input: SubsetInput
    human: Score | None
    #: The interval the report uses: the type's own (HUME's) interval, or, where that has zero
    #: width, the bootstrap over items; ``None`` with ``interval_note`` when neither exists.
    interval: Interval | None
    bootstrap: Interval | None
    agreement: list[Agreement]
    human_llm_agreement: dict[str, Agreement]
    llm_scores: dict[str, Score]
    model_positions: dict[str, str]
    human_rank: int | None
    n_raters_ranked: int
    disagreements: list[dict[str, Any]]
    gold_suspects: list[dict[str, Any]]
    planning: dict[str, Any]
    coverage: dict[str, Any]
    warnings: list[str]
    #: The type's own interval (HUME's), kept when the report uses another one.
    hume_interval: Interval | None = None
    #: Why there is no interval ("not estimable: ..."), or why the type's own was replaced.
    interval_note: str | None = None
    #: Items the aggregate decided by a tie rule and the score under other rules (the type's
    #: ``score_ties``); ``None`` for types without ties.
    ties: Mapping[str, Any] | None = None
    #: Two or more annotators and the aggregate strictly above every one of them.
    above_every_annotator: bool = False
    #: Per model or LLM with per-item answers: the paired comparison with humans over the
    #: items both answered (human − rater, its paired-bootstrap interval, the verdict).
    paired: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: The human score against the best embedding model on the subset (see :func:`difficulty`).
    difficulty: dict[str, Any] | None = None
    #: Which human (:mod:`scoring.panel`): aggregate, mean / best / worst annotator,
    #: Dawid–Skene, each with its interval or why not.
    human_panel: dict[str, Any] = field(default_factory=dict)
    #: Per model or LLM: the paired comparison with the best annotator alone and a verdict
    #: naming them ("above humans" only when that interval excludes 0).
    vs_best: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Per LLM annotator: the alternative annotator test (:mod:`scoring.alt_test`).
    alt_test: dict[str, AltTestResult] = field(default_factory=dict)

    @property
    def headline_agreement(self) -> Agreement | None:
        """The agreement the type reports as its headline, if it was computed."""
        want = self.input.task_type.score_headline_agreement
        return next((a for a in self.agreement if a.method == want), None)

    @property
    def low_agreement(self) -> bool | None:
        """HUME's revision flag on the headline agreement; None where it is undefined."""
        return _flag(self.headline_agreement, agreement.low_agreement)

    def to_dict(self) -> dict[str, Any]:
        """The report as the export's JSON writes it.

        Returns:
            A plain dict of every field, records made plain.
        """
        return {
            "subset": self.input.key,
            "task_name": self.input.task_name,
            "hf_subset": self.input.hf_subset,
            "task_type": self.input.task_type.name,
            "language": self.input.language,
            "human": None if self.human is None else _score_dict(self.human),
            "interval": None if self.interval is None else self.interval.to_dict(),
            "bootstrap": None if self.bootstrap is None else self.bootstrap.to_dict(),
            "hume_interval": None if self.hume_interval is None else self.hume_interval.to_dict(),
            "interval_note": self.interval_note,
            "ties": None if self.ties is None else dict(self.ties),
            "above_every_annotator": self.above_every_annotator,
            "paired": self.paired,
            "difficulty": self.difficulty,
            "human_panel": self.human_panel,
            "vs_best": self.vs_best,
            "alt_test": {k: v.to_dict() for k, v in self.alt_test.items()},
            "agreement": [a.to_dict() for a in self.agreement],
            "low_agreement": self.low_agreement,
            "human_llm_agreement": {k: v.to_dict() for k, v in self.human_llm_agreement.items()},
            "llms": {k: _score_dict(v) for k, v in self.llm_scores.items()},
            "llm_failures": dict(self.input.llm_failures),
            "models": dict(self.input.models),
            "model_positions": self.model_positions,
            "human_rank": self.human_rank,
            "n_raters_ranked": self.n_raters_ranked,
            "disagreements": self.disagreements,
            "gold_suspects": self.gold_suspects,
            "planning": self.planning,
            "coverage": self.coverage,
            "left_out": self.input.left_out(),
            "warnings": self.warnings,
        }


def _score_dict(s: Score) -> dict[str, Any]:
    # Per-item details (votes, mean ratings, per-query APs) are bulky: keep them out of the
    # summary; they stay on the Score object.
    return plain_summary(s)


def _flag(a: Agreement | None, fn: Any) -> bool | None:
    if a is None or not math.isfinite(a.value):
        return None
    return bool(fn(a))


# ------------------------------------------------------------------------------------------
# Agreement


def _human_llm(inp: SubsetInput) -> dict[str, Agreement]:
    if not inp.llms or not inp.humans:
        return {}
    t = inp.task_type
    ratings = t.score_agreement_answers(inp.gold, {**inp.humans, **inp.llms})
    overlap = set(inp.humans) & set(inp.llms)
    if overlap:
        raise ScoringError(f"{inp.key}: rater(s) both human and LLM: {sorted(overlap)}")
    return agreement.human_machine_agreement(
        ratings, list(inp.llms), statistic=t.score_human_machine_statistic
    )


# ------------------------------------------------------------------------------------------
# Intervals and planning


def _bootstrap(inp: SubsetInput, score: Score) -> Interval | None:
    """Seeded BCa bootstrap over items (queries for reranking), from the type's per-item records.

    :func:`evaluate_subset` takes the same interval in the panel's pass
    (:func:`scoring.panel.rate_panel`, with the annotators' where they can share it); this is
    that interval alone (the tests compare it with scipy, the export benchmark times it).

    Why :func:`scoring.intervals.bootstrap` and not ``scipy.stats.bootstrap``: where both are
    defined they agree to the last digit (same generator draws, same jackknife acceleration,
    same linear quantiles), but scipy's BCa gives NaN bounds in two cases this report meets.
    (1) A resample whose statistic is undefined: STS Spearman over resampled (gold, mean
    rating) pairs is NaN when a resample is constant on either side, e.g. 6 pairs with tied
    ratings, where 35 of 2000 resamples are constant; scipy returns ``(nan, nan)``, ours drops
    and counts those resamples (``n_resamples_dropped``). (2) Every resample equal, e.g. all
    annotators right on every item (accuracy 1.0): scipy returns ``(nan, nan)`` with a
    warning, ours falls back to the percentile interval and says why (``fallback_reason``).
    ``tests/scoring/test_subset_report.py`` runs both cases against scipy.
    """
    decomposed = inp.task_type.score_per_item(inp.gold, score)
    if decomposed is None or len(decomposed[0]) < 3:
        return None
    records, statistic = decomposed
    try:
        return intervals.bootstrap(
            records,
            statistic,
            n_resamples=BOOTSTRAP_RESAMPLES,
            seed=inp.seed,
            level=0.95,
            vectorized=intervals.is_vectorized(statistic),
        )
    except ScoringError:
        return None


def degenerate(interval: Interval | None) -> bool:
    """Whether an interval says nothing: absent, not finite, or of zero width (≤ ZERO_WIDTH).

    Args:
        interval: an interval, or None.

    Returns:
        True for an interval that cannot be reported.
    """
    return (
        interval is None
        or not (math.isfinite(interval.low) and math.isfinite(interval.high))
        or interval.high - interval.low <= ZERO_WIDTH
    )


def reported_interval(
    own: Interval | None, boot: Interval | None, n_raters: int
) -> tuple[Interval | None, str | None]:
    """The interval the report uses, and a note saying why it is not the type's own.

    The type's own (HUME's) interval where it has width; where it has none (the range across
    one annotator, Fisher z at ρ = ±1), the bootstrap over items (queries for reranking) if
    that has width; otherwise no interval: "not estimable", never a zero-width interval.

    Args:
        own: the type's own interval, if any.
        boot: the bootstrap interval over items, if any.
        n_raters: how many annotators the human score has.

    Returns:
        (interval or None, note or None); the note says why the interval is not the type's own.
    """
    if not degenerate(own):
        return own, None
    why = "none" if own is None else f"{own.method} has zero width"
    if own is not None and own.method == "annotator_range" and n_raters == 1:
        why += " (one annotator)"
    if not degenerate(boot):
        assert boot is not None
        details = {**boot.details, "replaces": None if own is None else own.method, "why": why}
        iv = Interval(boot.estimate, boot.low, boot.high, boot.level, boot.method, details)
        return iv, f"over items: {why}"
    if boot is None:
        return None, f"not estimable: {why}, and there are no items to resample"
    return None, f"not estimable: {why}, and every bootstrap resample gives the same score"


def _planning(
    inp: SubsetInput,
    score: Score,
    interval: Interval | None,
    boot: Interval | None,
    own: Interval | None,
    note: str | None,
) -> dict[str, Any]:
    n_items = int(score.n_items or 0)
    if interval is None:
        # No interval: nothing to scale from; never claim fewer items than were annotated.
        needed, method = None, note or "not estimable"
    elif degenerate(own):
        needed, method = items_by_bootstrap_scaling(n_items, interval, TARGET_HALF_WIDTH)
    else:
        needed, method = inp.task_type.score_items_for_target(score, boot, TARGET_HALF_WIDTH)
    return {
        "n_items": n_items,
        "half_width": None if interval is None else interval.half_width,
        "interval_method": None if interval is None else interval.method,
        "target_half_width": TARGET_HALF_WIDTH,
        "n_items_for_target": needed,
        "method": method,
    }


# ------------------------------------------------------------------------------------------
# Items worth a look


def _item_answers(inp: SubsetInput, item: Hashable) -> dict[str, Any]:
    return {r: a[item] for r, a in inp.humans.items() if a.get(item) is not None}


def _item_lists(inp: SubsetInput) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Items on which annotators disagree, and those on which they agree but not with gold.

    Two or more annotators per item, judged by the type's rules.
    """
    t = inp.task_type
    disagreements: list[dict[str, Any]] = []
    suspects: list[dict[str, Any]] = []
    for item, g in inp.gold.items():
        answers = _item_answers(inp, item)
        values = list(answers.values())
        if len(values) < 2:
            continue
        if t.score_disagree(values):
            listed = disagreements
        elif t.score_agree_not_gold(values, g):
            listed = suspects
        else:
            continue  # marks only for the items listed (most are neither, issue 38)
        row = {"item": str(item), "text": inp.texts.get(item, ""), "gold": g, "answers": answers}
        content = inp.contents.get(item)
        marks = None if content is None else t.score_item_marks(content, g, answers)
        if marks is not None:
            row["marks"] = marks
        listed.append(row)
    return disagreements, suspects


# ------------------------------------------------------------------------------------------


def _left_out_warnings(inp: SubsetInput) -> list[str]:
    out = []
    n_invalid = sum(inp.invalid.values())
    if n_invalid:
        out.append(
            f"{n_invalid} invalid answer(s) (incomplete, or not fitting the interface) not scored"
        )
    n_late = sum(inp.late.values())
    if n_late:
        fate = "included in the scores on request" if inp.late_included else "left out of scoring"
        out.append(f"{n_late} late answer(s) (given or changed after the close) {fate}")
    n_deleted = sum(inp.late_deleted.values())
    if n_deleted:
        fate = "the deletions count on request" if inp.late_included else "scored as at the close"
        out.append(f"{n_deleted} answer(s) deleted after the close: {fate}")
    return out


def evaluate_subsets(inputs: Sequence[SubsetInput]) -> list[SubsetReport]:
    """:func:`evaluate_subset` of each subset, their Dawid–Skene EMs run together.

    Why: a study's label subsets fitted one by one cost a tenth of an export (issue 38);
    :func:`scoring.panel.dawid_skene_many` fits them at once, each to the labels it gets alone.

    Args:
        inputs: the subsets' gold, answers, models and settings.

    Returns:
        One report per subset, in order.
    """
    try:
        fitted = panel.dawid_skene_many([(i.task_type, i.gold, i.humans) for i in inputs])
    except (ScoringError, TypeError, ValueError):  # answers the fit cannot read: each alone
        fitted = [None] * len(inputs)
    return [evaluate_subset(i, dawid_skene=d) for i, d in zip(inputs, fitted, strict=True)]


def evaluate_subset(
    inp: SubsetInput, *, dawid_skene: Mapping[Hashable, Any] | None = None
) -> SubsetReport:
    """Compute the whole report of one subset; a subset without annotations is reported empty.

    The subset's label metrics are shared within it (:func:`scoring.score_memo.shared_scores`):
    the panel scores each annotator alone on what the aggregate already scored.

    Args:
        inp: the subset's gold, answers, models and settings.
        dawid_skene: the subset's Dawid–Skene labels where :func:`evaluate_subsets` fitted
            them; fitted here where None.

    Returns:
        The report; a score that cannot be computed is a warning in it, not an error.
    """
    with shared_scores():
        return _evaluate_subset(inp, dawid_skene)


def _evaluate_subset(inp: SubsetInput, dawid_skene: Mapping[Hashable, Any] | None) -> SubsetReport:
    warnings: list[str] = []
    answered = {i for a in inp.humans.values() for i, v in a.items() if v is not None}
    planned = inp.n_planned if inp.n_planned is not None else len(inp.gold)
    n_annotations = sum(1 for a in inp.humans.values() for v in a.values() if v is not None)
    coverage = {
        "items_planned": planned,
        "items_annotated": len(answered),
        "annotations": n_annotations,
        "annotations_planned": planned * (inp.overlap or 1),
        "complete": len(answered) >= planned and n_annotations >= planned * (inp.overlap or 1),
        "n_annotators": len(inp.humans),
    }
    if not coverage["complete"]:
        warnings.append(
            f"partly annotated: {len(answered)} of {planned} items, {n_annotations} of "
            f"{coverage['annotations_planned']} annotations"
        )
    warnings += _left_out_warnings(inp)
    human = interval = boot = own = None
    note: str | None = None
    agreements: list[Agreement] = []
    rated: panel.RatedPanel | None = None
    if answered:
        try:
            human = inp.task_type.score_human(inp.gold, inp.humans)
            own = inp.task_type.score_interval(human)
            per_item = inp.task_type.score_per_item(inp.gold, human)
        except ScoringError as exc:
            warnings.append(f"human score undefined: {exc}")
        else:
            # the panel's raters and the aggregate bootstrapped together (one pass where
            # their scores are accuracies, scoring.bootstrap_batch); outside the try, as the
            # panel always was
            rated = panel.rate_panel(
                inp.task_type,
                inp.gold,
                inp.humans,
                inp.seed,
                dawid_skene,
                aggregate_items=per_item,
            )
            boot = rated.aggregate_bootstrap
            interval, note = reported_interval(own, boot, len(human.per_rater) or 1)
        humans = {r: dict(a) for r, a in inp.humans.items()}
        agreements = inp.task_type.score_agreements(inp.gold, humans)
    ties = None if human is None else inp.task_type.score_ties(human)
    above = _above_every_annotator(human)
    if above:
        assert human is not None
        best = max(human.per_rater.values())
        warnings.append(
            f"the aggregate human score {human.value:.3f} is above every annotator's own "
            f"(best {best:.3f})"
            + (
                f"; {ties['n_tied_items']} tied item(s), expected score under a random "
                f"tie-break {ties['scores']['random_expected']:.3f}"
                if ties and ties.get("n_tied_items")
                else ""
            )
        )
    llm_scores: dict[str, Score] = {}
    for name, answers in inp.llms.items():
        try:
            # One LLM annotator is scored the way one human annotator is.
            llm_scores[name] = inp.task_type.score_human(inp.gold, {"rater": answers})
        except ScoringError as exc:
            warnings.append(f"{name}: score undefined: {exc}")
    paired = _paired_all(inp) if human is not None else {}
    no_interval = "not estimable" if note and interval is None else "no human interval"
    positions = {
        name: paired[name]["position"]
        if "low" in paired.get(name, {})
        else (intervals.compare_to_interval(value, interval) if interval else no_interval)
        for name, value in {**inp.models, **{k: v.value for k, v in llm_scores.items()}}.items()
    }
    everyone = [v for v in inp.models.values()] + [s.value for s in llm_scores.values()]
    rank = None
    if human is not None:
        rank = 1 + sum(1 for v in everyone if v > human.value)
    disagreements, suspects = _item_lists(inp)
    hp, vs_best = _panel(inp, human, interval, note, dawid_skene, rated)
    planning = _planning(inp, human, interval, boot, own, note) if human and (own or note) else {}
    return SubsetReport(
        input=inp,
        human=human,
        interval=interval,
        bootstrap=boot,
        agreement=agreements,
        human_llm_agreement=_human_llm(inp),
        llm_scores=llm_scores,
        model_positions=positions,
        human_rank=rank,
        n_raters_ranked=len(everyone) + (1 if human else 0),
        disagreements=disagreements,
        gold_suspects=suspects,
        planning=planning,
        coverage=coverage,
        warnings=warnings,
        hume_interval=own,
        interval_note=note,
        ties=ties,
        above_every_annotator=above,
        paired=paired,
        difficulty=difficulty(human, inp.models),
        human_panel=hp,
        vs_best=vs_best,
        alt_test=alt_tests(
            inp.task_type,
            inp.humans,
            inp.llms,
            lambda j, llm: paired_comparison(replace(inp, humans={j: inp.humans[j]}), llm),
        ),
    )


def _panel(
    inp: SubsetInput,
    human: Score | None,
    interval: Interval | None,
    note: str | None,
    dawid_skene: Mapping[Hashable, Any] | None = None,
    rated: panel.RatedPanel | None = None,
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The human panel and each rater's paired verdict against the best annotator."""
    if human is None:
        return {}, {}
    hp = panel.human_panel(
        inp.task_type, inp.gold, inp.humans, human, interval, note, inp.seed, dawid_skene, rated
    )
    vs_best = panel.verdicts_against_best(
        hp,
        lambda hs: _paired_all(replace(inp, humans=hs)),
        inp.humans,
        (*inp.model_answers, *inp.llms),
    )
    return hp, vs_best


def difficulty(human: Score | None, models: Mapping[str, float]) -> dict[str, Any] | None:
    """Human score − the best embedding model's score on the subset, and a word for it.

    "humans ahead" (gap > +CLOSE_GAP), "close" (within ±CLOSE_GAP), "humans behind".

    Args:
        human: the human score, if any.
        models: ``{model: main score}``.

    Returns:
        ``best_model``, ``best_model_score``, ``human_minus_best`` and ``label``; None without a
        human score or a model.
    """
    if human is None or not models or not math.isfinite(human.value):
        return None
    best = max(sorted(models), key=lambda m: models[m])
    gap = human.value - models[best]
    label = "close" if abs(gap) <= CLOSE_GAP else ("humans ahead" if gap > 0 else "humans behind")
    return {
        "best_model": best,
        "best_model_score": models[best],
        "human_minus_best": gap,
        "label": label,
    }


def paired_comparison(
    inp: SubsetInput,
    answers: Mapping[Hashable, Any],
    humans_on: dict[tuple[Hashable, ...], Any] | None = None,
    *,
    model: bool = False,
) -> dict[str, Any] | None:
    """Humans against one rater (model or LLM) on the items both answered, paired.

    Like for like: the humans by the type's human rule, an LLM annotator by the same rule (as
    one annotator, which is its printed score), an embedding model (``model``) by the metric
    the report prints for it (the type's ``score_model``: for reranking the model's own
    ranking and per-query trec_eval AP, never its similarities read as marks). Each side is
    decomposed per item (``score_per_item``); one seeded set of item resamples gives both
    scores, so the (human − rater) difference keeps the pairing. ``rater_metric`` names what
    the rater's side is where it is not its printed score (the type's
    ``score_model_compared``). A model whose type has no per-item decomposition of its score
    gets ``position`` "unpaired" and ``why``. ``position`` says where the
    rater stands: "above" / "below" the humans when the interval excludes 0, else "inside".
    ``None`` where the type has no per-item decomposition or fewer than 3 items are shared.
    ``humans_on`` keeps the humans' score and records per set of shared items, so raters who
    answered the same items (every model, usually) do not score the humans again.

    Args:
        inp: the subset.
        answers: the rater's ``{item: answer}``.
        humans_on: cache of the humans' side per set of shared items, filled in place.
        model: whether the rater is an embedding model (else an LLM annotator).

    Returns:
        ``position``, the difference's interval and the two scores, or None as above.
    """
    t = inp.task_type
    answered = {i for a in inp.humans.values() for i, v in a.items() if v is not None}
    common = [i for i in inp.gold if i in answered and answers.get(i) is not None]
    gold = {i: inp.gold[i] for i in common}
    mine = {i: answers[i] for i in common}
    try:
        r = t.score_model(gold, mine) if model and common else None
        if model and common and r is None:
            return _unpaired(f"a {t.name} model score has no per-item decomposition")
        if len(common) < 3:
            return None
        if not model:
            r = t.score_human(gold, {"rater": mine})
        key = tuple(common)
        cache = {} if humans_on is None else humans_on
        if key not in cache:
            humans = {
                r: {i: a[i] for i in common if a.get(i) is not None} for r, a in inp.humans.items()
            }
            h = t.score_human(gold, {r: a for r, a in humans.items() if a})
            cache[key] = (h, t.score_per_item(gold, h))
        h, ph = cache[key]
        assert r is not None
        pr = t.score_per_item(gold, r)
        if ph is None or pr is None or len(ph[0]) != len(pr[0]):
            return None
        iv = intervals.paired_bootstrap(
            ph[0], ph[1], pr[0], pr[1], n_resamples=BOOTSTRAP_RESAMPLES, seed=inp.seed
        )
    except (ScoringError, TypeError, ValueError):  # answers the human rule cannot score
        return None
    position = "below" if iv.low > 0 else ("above" if iv.high < 0 else "inside")
    return {
        "difference": iv.estimate,
        "low": iv.low,
        "high": iv.high,
        "method": iv.method,
        "n_items": len(common),
        "human_on_items": h.value,
        "rater_on_items": r.value,
        "position": position,
        "rater_metric": (t.score_model_compared if model else None) or "its printed score",
        "details": dict(iv.details),
    }


def _unpaired(why: str) -> dict[str, Any]:
    return {"position": "unpaired", "why": why}


def _paired_all(inp: SubsetInput) -> dict[str, dict[str, Any]]:
    out = {}
    humans_on: dict[tuple[Hashable, ...], Any] = {}
    raters = [(n, a, True) for n, a in inp.model_answers.items()]
    raters += [(n, a, False) for n, a in inp.llms.items()]
    for name, answers, is_model in raters:
        cmp = paired_comparison(inp, answers, humans_on, model=is_model)
        if cmp is not None:
            out[name] = cmp
    return out


def _above_every_annotator(human: Score | None) -> bool:
    """Two or more annotators, and the aggregate strictly above each one's own score."""
    if human is None or len(human.per_rater) < 2 or not math.isfinite(human.value):
        return False
    return all(human.value > v + ZERO_WIDTH for v in human.per_rater.values())


__all__ = ["SubsetInput", "SubsetReport", "degenerate", "evaluate_subset", "evaluate_subsets"]
