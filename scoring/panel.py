"""Which human: the panel of human scores a model is compared with (issue 21).

"Humans" is not one number (Tedeschi et al., ACL 2023): the report gives, per subset, HUME's
aggregate (as before), the mean annotator, the best and the worst annotator, and for label
answers a model-based aggregate (Dawid–Skene, crowd-kit's EM in numpy:
:mod:`scoring.dawid_skene_em`), each with its interval, and a leave-one-out noise ceiling
(:func:`noise_ceiling`). A model is "above humans" only when its paired interval against the
**best** annotator excludes 0 (:func:`verdicts_against_best`), and each verdict names that
annotator.

Every type-specific step is asked of the task type object (``score_human``,
``score_per_item``, ``score_answers_are_labels``, ``score_consensus``); where a number cannot
be had (one annotator, no per-item form, every resample equal, fewer than 3 items) its entry
reads "not estimable" and why, never NaN or a zero-width interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

import scoring.bootstrap_batch as bootstrap_batch
import scoring.intervals as intervals
from scoring.dawid_skene_em import dawid_skene_labels, fit_dawid_skene_many
from scoring.errors import ScoringError
from scoring.records import Interval, Score
from scoring.resample_counts import counts_form, counts_form_of

if TYPE_CHECKING:
    from numpy.typing import NDArray

#: Below this many items an interval is "not estimable" (as for the paired comparison).
MIN_ITEMS = 3
BOOTSTRAP_RESAMPLES = 2000
ZERO_WIDTH = 1e-9
DAWID_SKENE_ITERATIONS = 100
#: How scores.json and the report name the Dawid–Skene entry's method.
DAWID_SKENE_METHOD = "Dawid–Skene (as crowd-kit's DawidSkene, 100 EM iterations)"

Bootstrap = Callable[[Mapping[Hashable, Any], Score], Interval | None]


def _entry(
    value: float | None, iv: Interval | None, why: str | None, **extra: Any
) -> dict[str, Any]:
    if value is None or not math.isfinite(value):
        return {"value": None, "interval": None, "note": why or "not estimable", **extra}
    ok = (
        iv is not None
        and math.isfinite(iv.low)
        and math.isfinite(iv.high)
        and iv.high - iv.low > ZERO_WIDTH
    )
    note = None if ok else (why or "not estimable: every resample gives the same score")
    return {
        "value": float(value),
        "interval": iv.to_dict() if ok and iv is not None else None,
        "note": note,
        **extra,
    }


def _per_item(t: Any, gold: Mapping[Hashable, Any], score: Score) -> tuple[Any, Any] | None:
    try:
        per_item: tuple[Any, Any] | None = t.score_per_item(gold, score)
    except ScoringError:
        return None
    return per_item


class _ResampleMemo:
    """A vectorised statistic's values per (statistic, records, index rows), for one panel.

    Why: the mean annotator's bootstrap evaluates each annotator's statistic on the very
    resamples that annotator's own bootstrap evaluated (same seed, same items), which was a
    third of the panel's bootstraps (issue 38). The memo keys on the statistic object and the
    exact bytes of the records, and compares the index rows whole, so a value is reused only
    where the same computation would be repeated: the numbers are the same bit for bit.
    """

    def __init__(self) -> None:
        #: (statistic, records, index shape) -> [(index rows, values)]; index rows are compared
        #: whole (hashing their bytes cost more than some statistics).
        self._values: dict[tuple[Any, ...], list[tuple[NDArray[Any], NDArray[Any]]]] = {}

    def indexed(self, records: Any, statistic: Callable[[Any], Any]) -> Any:
        """``statistic`` of ``records`` as a vectorised statistic of index rows.

        Args:
            records: the per-item records (an array indexed by item).
            statistic: a vectorised statistic of resampled records.

        Returns:
            A vectorised statistic: index rows (resamples, n) to one value per resample, or
            ``None`` where records are no plain numeric array (nothing to key them by).
        """
        rec = np.asarray(records)
        if rec.dtype.kind not in "biuf" or not intervals.is_vectorized(statistic):
            return None
        if counts_form_of(statistic) is not None:  # cheaper from the draw counts than kept
            return None
        key = (statistic, rec.dtype.str, rec.shape, rec.tobytes())

        def values(idx: NDArray[Any]) -> NDArray[Any]:
            idx = np.asarray(idx)
            seen = self._values.setdefault((*key, idx.dtype.str, idx.shape), [])
            for rows, out in seen:
                if np.array_equal(rows, idx):
                    return out
            out = np.asarray(statistic(np.take(rec, idx, axis=0)), dtype=float)
            out.setflags(write=False)
            seen.append((idx.copy(), out))
            return out

        return intervals.vectorized(values)


def _bootstrap_decomposed(
    decomposed: tuple[Any, Any] | None, seed: int, memo: _ResampleMemo | None
) -> tuple[Interval | None, str | None]:
    """BCa bootstrap over items of one rater's score, from its per-item records and statistic.

    None, and why, where nothing resamples.

    With ``memo``, the statistic is evaluated through it: over item indices, the same
    resamples, so the same interval.
    """
    if decomposed is None or len(decomposed[0]) < MIN_ITEMS:
        return None, f"not estimable: fewer than {MIN_ITEMS} items or no per-item form"
    records, statistic = decomposed
    indexed = None if memo is None else memo.indexed(records, statistic)
    try:
        if indexed is not None:
            iv = intervals.bootstrap(
                np.arange(len(records)),
                indexed,
                n_resamples=BOOTSTRAP_RESAMPLES,
                seed=seed,
                vectorized=True,
            )
        else:
            iv = intervals.bootstrap(
                records,
                statistic,
                n_resamples=BOOTSTRAP_RESAMPLES,
                seed=seed,
                vectorized=intervals.is_vectorized(statistic),
            )
    except ScoringError as exc:
        return None, f"not estimable: {exc}"
    return iv, None


def _rater_intervals(
    t: Any,
    raters: Sequence[tuple[Mapping[Hashable, Any], Score, _ResampleMemo | None]],
    seed: int,
) -> list[tuple[Interval | None, str | None]]:
    """:func:`_bootstrap_decomposed` of each ``(gold, score, memo)``'s per-item form, in order.

    Raters whose score is a mean of whole-number hits over the same number of items (accuracy)
    share one pass (:func:`_shared_intervals`). The rest are bootstrapped one by one.
    """
    jobs = [(_per_item(t, g, s), memo) for g, s, memo in raters]
    return _shared_intervals(jobs, seed)[0]


def _shared_intervals(
    jobs: Sequence[tuple[tuple[Any, Any] | None, _ResampleMemo | None]],
    seed: int,
) -> tuple[list[tuple[Interval | None, str | None]], dict[int, tuple[bootstrap_batch.Means, int]]]:
    """:func:`_bootstrap_decomposed` of each ``(per-item records and statistic, memo)``.

    Records that are means of whole-number hits over the same number of items, with the same
    statistic (accuracy), share one pass (:mod:`scoring.bootstrap_batch`): the same intervals,
    a fraction of the fixed cost each (issue 38); the rest are bootstrapped one by one.

    Returns:
        The intervals (or why none), in order, and for each job of a shared pass its means and
        row (the mean annotator averages them).
    """
    out: list[tuple[Interval | None, str | None] | None] = [None] * len(jobs)
    groups: dict[tuple[Any, int], list[int]] = {}
    for k, (d, _) in enumerate(jobs):
        if (
            d is not None
            and len(d[0]) >= MIN_ITEMS
            and bootstrap_batch.batchable(d[0], d[1], BOOTSTRAP_RESAMPLES)
        ):
            groups.setdefault((d[1], len(d[0])), []).append(k)
    shared: dict[int, tuple[bootstrap_batch.Means, int]] = {}
    for (statistic, _), members in groups.items():
        if len(members) < 2:
            continue
        means = bootstrap_batch.resampled_means(
            [jobs[k][0][0] for k in members],  # type: ignore[index]
            n_resamples=BOOTSTRAP_RESAMPLES,
            seed=seed,
        )
        found = bootstrap_batch.bca_of_means(means, statistic)
        for row, (k, iv) in enumerate(zip(members, found, strict=True)):
            out[k] = (None, f"not estimable: {iv}") if isinstance(iv, ScoringError) else (iv, None)
            shared[k] = (means, row)
    done = [
        found if found is not None else _bootstrap_decomposed(jobs[k][0], seed, jobs[k][1])
        for k, found in enumerate(out)
    ]
    return done, shared


def annotator_scores(
    t: Any,
    gold: Mapping[Hashable, Any],
    humans: Mapping[str, Mapping[Hashable, Any]],
    seed: int,
    memo: _ResampleMemo | None = None,
) -> dict[str, tuple[Score, Interval | None, str | None]]:
    """Each annotator's own score on the items they answered, with its bootstrap interval.

    Args:
        t: the subset's task type (its scoring rules).
        gold: ``{item: gold answer}``.
        humans: ``{annotator: {item: answer}}``.
        seed: seed of the bootstrap.
        memo: where :func:`human_panel` keeps the resampled statistics for the mean annotator.

    Returns:
        ``{annotator: (score, interval or None, why not)}``, annotators in name order.
    """
    scored = _annotators_scored(t, gold, humans)
    found = _rater_intervals(t, [(g, s, memo) for g, s in scored.values()], seed)
    return {r: (s, *iv) for (r, (_, s)), iv in zip(scored.items(), found, strict=True)}


def _annotators_scored(
    t: Any, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
) -> dict[str, tuple[dict[Hashable, Any], Score]]:
    """Each annotator's gold (the items they answered) and own score, in name order."""
    out = {}
    for r in sorted(humans):
        answers = {i: v for i, v in humans[r].items() if v is not None and i in gold}
        if not answers:
            continue
        g = {i: gold[i] for i in gold if i in answers}
        try:
            out[r] = (g, t.score_human(g, {r: answers}))
        except ScoringError:
            continue
    return out


def _mean_annotator(
    t: Any,
    gold: Mapping[Hashable, Any],
    answered: Mapping[str, Mapping[Hashable, Any]],
    scores: Mapping[str, Any],
    seed: int,
    memo: _ResampleMemo | None = None,
    shared: Sequence[tuple[bootstrap_batch.Means, int] | None] = (),
) -> dict[str, Any]:
    """Mean of the annotators' own scores, with an interval where the items allow one.

    Its interval resamples items jointly for all of them, so only where every annotator
    answered the same items (else "not estimable"). With ``memo``, each annotator's statistic
    is taken over item indices, so the resamples their own bootstrap evaluated are reused;
    with ``shared`` (per annotator, the pass their accuracy was bootstrapped in), the means
    of that pass are averaged (:func:`scoring.bootstrap_batch.percentile_of_mean`).
    """
    values = [s.value for s, _, _ in scores.values()]
    mean = float(np.mean(values))
    if len(scores) < 2:
        return _entry(mean, None, "not estimable: one annotator (the mean is that annotator)")
    parts = [_per_item(t, gold, s) for s, _, _ in scores.values()]
    sizes = {None if p is None else len(p[0]) for p in parts}
    items = {frozenset(i for i, v in answered[r].items() if v is not None) for r in scores}
    if None in sizes:
        return _entry(mean, None, "not estimable: the score has no per-item form")
    if len(sizes) != 1 or len(items) != 1:
        return _entry(mean, None, "not estimable: annotators answered different items")
    n = sizes.pop()
    assert n is not None
    if n < MIN_ITEMS:
        return _entry(mean, None, f"not estimable: fewer than {MIN_ITEMS} items")

    pass_rows = _one_pass_rows(parts, shared)
    if pass_rows is not None:
        means, rows = pass_rows
        iv = bootstrap_batch.percentile_of_mean(means, rows)
        return _entry(
            mean, iv, None, method="mean of annotators' scores; joint percentile bootstrap"
        )
    if memo is not None:
        for k, part in enumerate(parts):
            indexed = None if part is None else memo.indexed(*part)
            if indexed is not None:
                parts[k] = (np.arange(n), indexed)
    try:
        iv = intervals.bootstrap(
            np.arange(n),
            mean_of_statistics(parts),  # type: ignore[arg-type]
            n_resamples=BOOTSTRAP_RESAMPLES,
            seed=seed,
            method="percentile",
            vectorized=True,
        )
    except ScoringError as exc:
        return _entry(mean, None, f"not estimable: {exc}")
    return _entry(mean, iv, None, method="mean of annotators' scores; joint percentile bootstrap")


def _one_pass_rows(
    parts: Sequence[tuple[Any, Any] | None],
    shared: Sequence[tuple[bootstrap_batch.Means, int] | None],
) -> tuple[bootstrap_batch.Means, list[int]] | None:
    """The shared pass and rows of every annotator, where all were bootstrapped in one pass.

    On exactly these records; else None, and the mean annotator is bootstrapped as before.
    """
    if len(shared) != len(parts) or any(s is None for s in shared):
        return None
    passes = {id(s[0]) for s in shared if s is not None}
    if len(passes) != 1:
        return None
    means = shared[0][0]  # type: ignore[index]
    rows = [s[1] for s in shared if s is not None]
    for part, row in zip(parts, rows, strict=True):
        if part is None or not np.array_equal(part[0], means.records[row]):
            return None
    return means, rows


def mean_of_statistics(
    parts: Sequence[tuple[Any, Callable[[Any], Any]]],
) -> Callable[[NDArray[Any]], NDArray[Any]]:
    """The statistic "mean over annotators of each one's own statistic", vectorised.

    For :func:`intervals.bootstrap` with ``vectorized=True``: it receives index arrays of shape
    (resamples, n) and returns one value per resample.

    Why: called once per resample it made 2,000 Python calls per annotator and subset (2.3 s
    of a HUME-size export, issue 38). Here each annotator's statistic gets all resamples at
    once (one call where it is :func:`intervals.vectorized`, else one per resample as before),
    and the mean over annotators is taken per resample from a contiguous row, the same
    pairwise sum ``np.mean`` of a list makes: the interval is the one the per-resample form
    gave, bit for bit where each statistic's vectorised form is.

    Args:
        parts: Per annotator, their records (an array indexed by item) and their statistic.

    Returns:
        The vectorised statistic: index arrays (resamples, n) to one mean per resample.
    """

    def of_counts(_items: Any, counts: NDArray[Any]) -> NDArray[Any] | None:
        """The same means, each statistic from its form over draw counts where all have one."""
        columns = []
        for records, statistic in parts:
            form = counts_form_of(statistic)
            column = None if form is None else form(records, counts)
            if column is None:
                return None
            columns.append(np.asarray(column, dtype=float))
        means: NDArray[Any] = np.mean(np.ascontiguousarray(np.stack(columns, axis=1)), axis=1)
        return means

    @counts_form(of_counts)
    def values(idx: NDArray[Any]) -> NDArray[Any]:
        columns = []
        for records, statistic in parts:
            if intervals.is_vectorized(statistic):
                # np.take: records[idx], without fancy indexing's row-by-row copy
                columns.append(np.asarray(statistic(np.take(records, idx, axis=0)), dtype=float))
            else:
                columns.append(np.array([float(statistic(records[row])) for row in idx]))
        means: NDArray[Any] = np.mean(np.ascontiguousarray(np.stack(columns, axis=1)), axis=1)
        return means

    return intervals.vectorized(values)


def _dawid_skene_rows(
    t: Any, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
) -> tuple[list[tuple[Hashable, str, Any]] | None, dict[str, Any] | None]:
    """The ``(item, annotator, label)`` answers Dawid–Skene is fitted to.

    Or None and the entry saying why there is no fit.
    """
    if not getattr(t, "score_answers_are_labels", False):
        return None, _entry(None, None, "not applicable: answers are not labels")
    if len(humans) < 2:
        return None, _entry(None, None, "not estimable: one annotator")
    rows = [
        (i, r, v)
        for r, a in sorted(humans.items())
        for i, v in a.items()
        if v is not None and i in gold
    ]
    if len({v for _, _, v in rows}) < 2:
        return None, _entry(None, None, "not estimable: one label only")
    return rows, None


def dawid_skene_many(
    subsets: Sequence[tuple[Any, Mapping[Hashable, Any], Mapping[str, Mapping[Hashable, Any]]]],
) -> list[dict[Hashable, Any] | None]:
    """Each subset's Dawid–Skene labels, the EMs of all subsets run together.

    Why: one subset's EM is a hundred-odd small NumPy steps whatever its size, so a study's
    label subsets one by one cost a tenth of an export (issue 38); fitted together
    (:func:`scoring.dawid_skene_em.fit_dawid_skene_many`) each subset gets the labels it gets
    alone, bit for bit. Pass each to :func:`dawid_skene` (or :func:`human_panel`) as
    ``labels``.

    Args:
        subsets: Per subset, its task type (scoring rules), gold and ``{annotator: {item:
            answer}}``.

    Returns:
        Per subset, ``{item: label}``, or None where :func:`dawid_skene` fits nothing.
    """
    rows = [_dawid_skene_rows(t, gold, humans)[0] for t, gold, humans in subsets]
    fitted = iter(
        fit_dawid_skene_many([r for r in rows if r is not None], n_iter=DAWID_SKENE_ITERATIONS)
    )
    return [None if r is None else next(fitted).labels_by_task() for r in rows]


def dawid_skene(
    t: Any,
    gold: Mapping[Hashable, Any],
    humans: Mapping[str, Mapping[Hashable, Any]],
    seed: int,
    labels: Mapping[Hashable, Any] | None = None,
) -> dict[str, Any]:
    """Dawid–Skene (1979) aggregate of label answers, scored as one rater.

    The EM is :mod:`scoring.dawid_skene_em`: crowd-kit's ``DawidSkene(n_iter=100)`` step for step
    in numpy (crowd-kit's pandas EM cost about 2 s per subset); tests compare the two.

    Args:
        t: the subset's task type (its scoring rules).
        gold: ``{item: gold answer}``.
        humans: ``{annotator: {item: answer}}``.
        seed: seed of the bootstrap.
        labels: the fitted labels where :func:`dawid_skene_many` gave them; fitted here if None.

    Returns:
        An entry: ``value``, ``interval`` and ``note`` (why there is no value or interval);
        not applicable where answers are not labels, not estimable with one annotator or one
        label.
    """
    scored, why = _dawid_skene_scored(t, gold, humans, labels)
    if scored is None:
        assert why is not None
        return why
    ((iv, why_not),) = _rater_intervals(t, [(*scored, None)], seed)
    return _dawid_skene_entry(scored[1], iv, why_not)


def _dawid_skene_scored(
    t: Any,
    gold: Mapping[Hashable, Any],
    humans: Mapping[str, Mapping[Hashable, Any]],
    labels: Mapping[Hashable, Any] | None,
) -> tuple[tuple[dict[Hashable, Any], Score] | None, dict[str, Any] | None]:
    """The Dawid–Skene labels' gold and score, or None and the entry saying why there is none.

    The labels are fitted here where ``labels`` is None.
    """
    rows, why = _dawid_skene_rows(t, gold, humans)
    if rows is None:
        return None, why
    answers = (
        dict(labels)
        if labels is not None
        else dawid_skene_labels(rows, n_iter=DAWID_SKENE_ITERATIONS)
    )
    g = {i: gold[i] for i in gold if i in answers}
    return (g, t.score_human(g, {"dawid_skene": answers})), None


def _dawid_skene_entry(score: Score, iv: Interval | None, why_not: str | None) -> dict[str, Any]:
    return _entry(score.value, iv, why_not, method=DAWID_SKENE_METHOD)


def noise_ceiling(
    t: Any, humans: Mapping[str, Mapping[Hashable, Any]], n_min_items: int = MIN_ITEMS
) -> dict[str, Any]:
    """Leave-one-out noise ceiling: each annotator against the others' consensus, then the mean.

    Each annotator is scored against the others' consensus (the type's ``score_consensus``) on
    the items both have. For correlation scores (``score_ceiling_spearman_brown``) also the
    Spearman–Brown step-up of that mean to all k annotators, k·r / (1 + (k − 1)·r). No interval:
    the leave-one-out scores share annotators, so they are not independent draws.

    Args:
        t: the subset's task type (its scoring rules).
        humans: ``{annotator: {item: answer}}``.
        n_min_items: the fewest shared items an annotator is scored on.

    Returns:
        An entry: ``value``, ``interval`` and ``note`` (why there is no value or interval),
        with the per-annotator values.
    """
    if len(humans) < 2:
        return _entry(None, None, "not estimable: one annotator")
    per: dict[str, float] = {}
    for r in sorted(humans):
        others = {o: a for o, a in humans.items() if o != r}
        consensus = t.score_consensus(others)
        if consensus is None:
            return _entry(None, None, f"not estimable: a {t.name} answer has no consensus")
        mine = {i: v for i, v in humans[r].items() if v is not None and i in consensus}
        if len(mine) < n_min_items:
            continue
        try:
            v = t.score_rater_value({i: consensus[i] for i in mine}, mine)
        except ScoringError:
            continue
        if math.isfinite(v):
            per[r] = float(v)
    if not per:
        return _entry(None, None, f"not estimable: no annotator shares {n_min_items} items")
    mean = float(np.mean(list(per.values())))
    extra: dict[str, Any] = {"per_annotator": per, "method": "leave-one-out mean"}
    if getattr(t, "score_ceiling_spearman_brown", False):
        k = len(humans)
        denom = 1 + (k - 1) * mean
        extra["spearman_brown"] = None if denom <= 0 else k * mean / denom
        extra["spearman_brown_k"] = k
    return _entry(mean, None, "no interval: leave-one-out scores share annotators", **extra)


@dataclass
class RatedPanel:
    """A panel's raters scored, each with its bootstrap interval, from as few passes as can be.

    The annotators (name order), Dawid–Skene where it applies, and the aggregate's records
    where the caller gave them, in that order in ``found``.
    """

    scored: dict[str, tuple[dict[Hashable, Any], Score]]
    ds_scored: tuple[dict[Hashable, Any], Score] | None
    ds_why: dict[str, Any] | None
    found: list[tuple[Interval | None, str | None]]
    shared: dict[int, tuple[bootstrap_batch.Means, int]]
    memo: _ResampleMemo
    #: The aggregate's bootstrap over items, where its records were given (else None).
    aggregate_bootstrap: Interval | None = None


def rate_panel(
    t: Any,
    gold: Mapping[Hashable, Any],
    humans: Mapping[str, Mapping[Hashable, Any]],
    seed: int,
    fitted_labels: Mapping[Hashable, Any] | None = None,
    aggregate_items: tuple[Any, Any] | None = None,
) -> RatedPanel:
    """Every rater of the panel scored, then bootstrapped together where they can share a pass.

    Each annotator, Dawid–Skene, and the aggregate's per-item records when given (what
    :func:`scoring.subset_report` bootstraps for the human score's interval).

    Args:
        t: the subset's task type (its scoring rules).
        gold: ``{item: gold answer}``.
        humans: ``{annotator: {item: answer}}``.
        seed: seed of the bootstrap.
        fitted_labels: the Dawid–Skene labels where :func:`dawid_skene_many` fitted them.
        aggregate_items: the aggregate's ``score_per_item`` (records, statistic), if wanted.

    Returns:
        The rated panel, for :func:`human_panel`.
    """
    memo = _ResampleMemo()
    scored = _annotators_scored(t, gold, humans)
    ds_scored, ds_why = _dawid_skene_scored(t, gold, humans, fitted_labels)
    jobs: list[tuple[tuple[Any, Any] | None, _ResampleMemo | None]] = [
        (_per_item(t, g, s), memo) for g, s in scored.values()
    ]
    if ds_scored is not None:
        jobs.append((_per_item(t, *ds_scored), None))
    if aggregate_items is not None:
        jobs.append((aggregate_items, None))
    found, shared = _shared_intervals(jobs, seed)
    return RatedPanel(
        scored,
        ds_scored,
        ds_why,
        found,
        shared,
        memo,
        None if aggregate_items is None else found[-1][0],
    )


def human_panel(
    t: Any,
    gold: Mapping[Hashable, Any],
    humans: Mapping[str, Mapping[Hashable, Any]],
    aggregate: Score | None,
    aggregate_interval: Interval | None,
    aggregate_note: str | None,
    seed: int,
    fitted_labels: Mapping[Hashable, Any] | None = None,
    rated: RatedPanel | None = None,
) -> dict[str, Any]:
    """The panel: aggregate, mean / best / worst annotator, Dawid–Skene, with intervals.

    Args:
        t: the subset's task type (its scoring rules).
        gold: ``{item: gold answer}``.
        humans: ``{annotator: {item: answer}}``.
        aggregate: HUME's aggregate score, if any.
        aggregate_interval: its reported interval, if any.
        aggregate_note: why it has no interval, if it has none.
        seed: seed of the bootstrap.
        fitted_labels: the Dawid–Skene labels where :func:`dawid_skene_many` fitted them.
        rated: the raters already scored and bootstrapped (:func:`rate_panel`), where the
            caller had them rated with the aggregate's bootstrap; rated here where None.

    Returns:
        One entry per kind of human (``aggregate``, ``annotators``, ``mean_annotator``,
        ``best_annotator``, ``worst_annotator``, ``dawid_skene``, ``noise_ceiling``).
    """
    if rated is None:
        rated = rate_panel(t, gold, humans, seed, fitted_labels)
    scored, found, shared = rated.scored, rated.found, rated.shared
    scores = {r: (s, *iv) for (r, (_, s)), iv in zip(scored.items(), found, strict=False)}
    panel: dict[str, Any] = {
        "aggregate": _entry(
            None if aggregate is None else aggregate.value,
            aggregate_interval,
            aggregate_note,
            method="HUME's aggregation",
        ),
        "annotators": {r: _entry(s.value, iv, why) for r, (s, iv, why) in scores.items()},
    }
    if not scores:
        none = _entry(None, None, "not estimable: no annotator scored")
        panel.update(mean_annotator=none, best_annotator=none, worst_annotator=none)
    else:
        ranked = sorted(scores, key=lambda r: (-scores[r][0].value, r))
        best, worst = ranked[0], ranked[-1]
        panel["mean_annotator"] = _mean_annotator(
            t, gold, humans, scores, seed, rated.memo, [shared.get(k) for k in range(len(scores))]
        )
        panel["best_annotator"] = {**panel["annotators"][best], "annotator": best}
        panel["worst_annotator"] = {**panel["annotators"][worst], "annotator": worst}
    panel["dawid_skene"] = (
        rated.ds_why
        if rated.ds_scored is None
        else _dawid_skene_entry(rated.ds_scored[1], *found[len(scored)])
    )
    panel["noise_ceiling"] = noise_ceiling(t, humans)
    return panel


def verdicts_against_best(
    panel: Mapping[str, Any],
    compare: Callable[[Mapping[str, Mapping[Hashable, Any]]], Mapping[str, dict[str, Any]]],
    humans: Mapping[str, Mapping[Hashable, Any]],
    raters: tuple[str, ...] = (),
) -> dict[str, dict[str, Any]]:
    """Each model's or LLM's paired comparison with the best annotator alone.

    ``verdict`` names that annotator and says "above humans" only when the interval of
    (best annotator − rater) is wholly below 0.

    Args:
        panel: the subset's panel, as :func:`human_panel` gives it.
        compare: runs the paired comparison of every rater against the given humans.
        humans: ``{annotator: {item: answer}}``.
        raters: raters with per-item answers; those that share too few items with the best
            annotator get a "not estimable" entry with the reason.

    Returns:
        ``{rater: comparison with verdict}``; empty without a best annotator.
    """
    best = panel.get("best_annotator", {}).get("annotator")
    if best is None:
        return {}
    compared = compare({best: humans[best]})
    out: dict[str, dict[str, Any]] = {
        name: {
            "human": f"best annotator {best}",
            "position": "not estimable",
            "why": f"not estimable: fewer than {MIN_ITEMS} items shared with {best}",
        }
        for name in raters
        if name not in compared
    }
    for name, cmp in compared.items():
        if "low" not in cmp:
            out[name] = {**cmp, "human": f"best annotator {best}"}
            continue
        word = {"above": "above humans", "below": "below", "inside": "not separable from"}[
            cmp["position"]
        ]
        verdict = f"{word} the best annotator ({best})"
        if cmp["position"] == "above":
            verdict = f"above humans: above the best annotator ({best})"
        out[name] = {**cmp, "human": f"best annotator {best}", "verdict": verdict}
    return out


__all__ = [
    "annotator_scores",
    "dawid_skene",
    "dawid_skene_many",
    "human_panel",
    "mean_of_statistics",
    "noise_ceiling",
    "rate_panel",
    "verdicts_against_best",
]
