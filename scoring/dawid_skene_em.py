"""Dawid–Skene (1979) aggregation of label answers, in numpy.

Why hand-written: crowd-kit's ``DawidSkene`` (Apache-2.0) is the reference, but it runs each
EM step as pandas joins and group-bys, about 2 s per label subset (90 % of a HUME-size export,
issue 38), and importing it pulls in pandas and nltk (2.3 s). This module fits the same model
on integer-coded arrays in milliseconds, step for step as crowd-kit 1.4 does it:

- *initialisation*: each item's posterior is its share of votes per label (majority vote), the
  priors their mean over items, then one M-step;
- *M-step*: a worker's confusion matrix, column c (true label), row k (the label they gave),
  is the sum of the posteriors of c over the items where they gave k; only labels the worker
  gave have a row; each cell is raised to at least 1e-10, then each column normalised over
  those rows;
- *E-step*: log2 posterior = log2 prior (raised to at least 1e-10) + the sum of the item's
  answers' log2 confusion entries; shifted by each row's maximum, exponentiated, normalised;
- *stopping*: after each E- and M-step, the evidence lower bound per answer (natural logs;
  posteriors raised to at least 1e-10 for the entropy, and returned so raised); stop when it
  gained less than ``tol`` (1e-5) over the previous one, or after ``n_iter`` (100) iterations;
- *labels*: the label of largest posterior; a tie goes to the label given first in the
  answers' order (crowd-kit's column order under pandas 3, where ``value_counts`` keeps first
  appearance; under pandas 2 it was sorted order).

The sums run in another order than pandas' (compensated) group sums, so posteriors agree with
crowd-kit's to about 1e-12, not bit for bit; ``tests/scoring/test_dawid_skene.py`` checks the
labels and posteriors against crowd-kit on real-shaped and generated answer sets, ties included.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from scoring.errors import InvalidInputError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "EPS",
    "N_ITER",
    "TOL",
    "DawidSkeneFit",
    "dawid_skene_labels",
    "fit_dawid_skene",
    "fit_dawid_skene_many",
]

#: Floor for probabilities before their log (crowd-kit's ``_EPS``).
EPS = 1e-10
#: Most EM iterations (crowd-kit's ``n_iter`` as :mod:`scoring.panel` sets it).
N_ITER = 100
#: Stop when the evidence lower bound per answer gains less than this (crowd-kit's ``tol``).
TOL = 1e-5


@dataclass(frozen=True)
class DawidSkeneFit:
    """A fitted Dawid–Skene model.

    ``posteriors[i, k]`` is P(item ``tasks[i]`` has label ``labels[k]``), ``errors[w, k, c]``
    P(worker ``workers[w]`` answers ``labels[k]`` | true ``labels[c]``) (0 on rows of labels
    the worker never gave), ``loss_history`` the evidence lower bound per answer after each
    iteration.
    """

    tasks: tuple[Hashable, ...]
    workers: tuple[Hashable, ...]
    labels: tuple[Hashable, ...]
    posteriors: NDArray[Any]
    priors: NDArray[Any]
    errors: NDArray[Any]
    loss_history: tuple[float, ...]

    def labels_by_task(self) -> dict[Hashable, Any]:
        """Each item's label of largest posterior (ties to the label given first).

        Returns:
            ``{item: label}``.
        """
        best = np.argmax(self.posteriors, axis=1)
        return {task: self.labels[k] for task, k in zip(self.tasks, best, strict=True)}


def _codes(values: Sequence[Hashable]) -> tuple[tuple[Hashable, ...], NDArray[Any]]:
    """Distinct values in order of first appearance, and each value's position among them."""
    seen: dict[Hashable, int] = {}
    codes = np.fromiter((seen.setdefault(v, len(seen)) for v in values), np.intp, len(values))
    return tuple(seen), codes


@dataclass(frozen=True)
class _Answers:
    """The answers of one or more answer sets (a study's subsets) as integer codes.

    With flat indices for summing with ``np.bincount``.
    Items, workers and (worker, given label) cells of each set get their own codes (each set's
    after the previous set's), so no sum mixes two sets: fitted together, each set gets the
    numbers it gets alone, bit for bit (``tests/scoring/test_dawid_skene.py`` checks it). One
    index sums (answer, label) values per item, one per cell, one per worker, one per set.
    """

    n_tasks: int
    k: int
    task: NDArray[Any]  # each answer's item
    cell: NDArray[Any]  # each answer's (worker, given label) cell, in order of first appearance
    cell_worker: NDArray[Any]  # each cell's worker
    cell_label: NDArray[Any]  # each cell's given label
    by_task: NDArray[Any]  # flat (item, label) bin of each (answer, label)
    by_label_task: NDArray[Any]  # flat (label, item) bin of each (answer, label)
    by_cell: NDArray[Any]  # flat (cell, label) bin of each (answer, label)
    by_worker: NDArray[Any]  # flat (worker, label) bin of each (cell, label)
    task_set: NDArray[Any]  # each item's answer set
    answer_set: NDArray[Any]  # each answer's answer set
    by_set: NDArray[Any]  # flat (set, label) bin of each (item, label)
    set_tasks: NDArray[Any]  # each set's number of items (np.intp)
    set_answers: NDArray[Any]  # each set's number of answers (np.intp)
    task_bounds: tuple[int, ...]  # each set's first item, then the end
    #: runs of consecutive sets of as many answers and items each: (first set, sets, first
    #: answer, answers per set, first item, items per set)
    runs: tuple[tuple[int, int, int, int, int, int], ...]
    n_workers: int
    n_cells: int
    n_sets: int
    cell_set: NDArray[Any]  # each cell's answer set
    set_tasks_col: NDArray[Any]  # set_tasks as a column
    #: per run: sets [first, end), its flat answer terms [a0, a1) as (sets, terms) rows, and
    #: its flat item terms [t0, t1) likewise
    run_slices: tuple[tuple[int, int, int, int, tuple[int, int], int, int, tuple[int, int]], ...]

    def sum(self, values: NDArray[Any], bins: NDArray[Any], n: int) -> NDArray[Any]:
        """Sum ``values`` rows (shape (rows, k)) into ``n`` rows by the flat ``bins``.

        Each sum runs in the order of the rows.
        """
        sums: NDArray[Any] = np.bincount(bins, values.ravel(), n * self.k).reshape(n, self.k)
        return sums


def _m_step(given: NDArray[Any], a: _Answers) -> NDArray[Any]:
    """Confusion rows, shape (cells, true label), from ``posteriors[a.task]`` (``given``).

    Each row is P(the cell's label | true label) for the cell's worker; only labels a worker
    gave have a row.
    """
    floored: NDArray[Any] = np.maximum(a.sum(given, a.by_cell, a.n_cells), EPS)
    per_worker = a.sum(floored, a.by_worker, a.n_workers)
    floored /= per_worker.take(a.cell_worker, axis=0)
    return floored


def _e_step(floored_priors: NDArray[Any], errors: NDArray[Any], a: _Answers) -> NDArray[Any]:
    """Posteriors, shape (items, labels), from the floored priors (per set) and confusion rows.

    Worked in (label, item) layout, where numpy reduces over labels a whole row of items at a
    time: ``np.bincount`` sums each item's answers into that layout in the same order as into
    (item, label), a maximum is exact, and under 8 terms numpy sums a row in order, as adding
    the transposed rows in order does. The same numbers in a fraction of the time (issue 38).
    """
    log_lik: NDArray[Any] = np.bincount(
        a.by_label_task, np.log2(errors).take(a.cell, axis=0).ravel(), a.n_tasks * a.k
    ).reshape(a.k, a.n_tasks)
    log_lik += np.log2(floored_priors).T.take(a.task_set, axis=1)
    log_lik -= np.maximum.reduce(log_lik, axis=0)
    np.exp2(log_lik, out=log_lik)
    if a.k < 8:
        log_lik /= np.add.reduce(log_lik, axis=0)
        return np.ascontiguousarray(log_lik.T)
    scaled: NDArray[Any] = np.ascontiguousarray(log_lik.T)
    scaled /= scaled.sum(axis=1, keepdims=True)
    return scaled


def _priors(posteriors: NDArray[Any], a: _Answers) -> NDArray[Any]:
    """Each set's mean posterior per label, shape (sets, labels).

    ``np.bincount`` adds each set's rows in order from 0.0, as ``posteriors.mean(axis=0)``
    does for one set, then divides by the set's item count (an integer) as it does.
    """
    means = a.sum(posteriors, a.by_set, a.n_sets)
    means /= a.set_tasks_col
    return means


def _elbo(
    posteriors: NDArray[Any],
    given: NDArray[Any],
    floored_priors: NDArray[Any],
    errors: NDArray[Any],
    a: _Answers,
) -> tuple[list[float], NDArray[Any]]:
    """Evidence lower bound per answer of each set, and the posteriors floored at :data:`EPS`.

    ``given`` is ``posteriors[a.task]``, which the M-step read too (indexed once per
    iteration, issue 38). Each answer's log error plus its set's log prior is added per cell
    (each cell lies in one set), then indexed once per answer: the same two numbers added.
    Each set's two sums are over its own contiguous rows, taken for a run of equal-sized sets
    as the row sums of one (sets, terms) array: numpy adds each row as it adds that set's
    array alone (the same pairwise sum; the tests compare).
    """
    per_cell = np.log(errors)
    per_cell += np.log(floored_priors).take(a.cell_set, axis=0)
    joint_terms = per_cell.take(a.cell, axis=0)
    joint_terms *= given
    floored = np.maximum(posteriors, EPS)
    entropy_terms = np.log(floored)
    entropy_terms *= floored
    joint_flat = joint_terms.ravel()
    entropy_flat = entropy_terms.ravel()
    joint = np.empty(a.n_sets)
    entropy = np.empty(a.n_sets)
    for first, end, a0, a1, answer_row, t0, t1, item_row in a.run_slices:
        joint[first:end] = np.add.reduce(joint_flat[a0:a1].reshape(answer_row), axis=1)
        entropy[first:end] = np.add.reduce(entropy_flat[t0:t1].reshape(item_row), axis=1)
    losses: list[float] = ((joint + -entropy) / a.set_answers).tolist()
    return losses, floored


@dataclass(frozen=True)
class _Set:
    """One answer set's codes: what it is fitted on, and what its fitted model names."""

    tasks: tuple[Hashable, ...]
    workers: tuple[Hashable, ...]
    labels: tuple[Hashable, ...]
    task: NDArray[Any]  # each answer's item
    label: NDArray[Any]  # each answer's label
    cell: NDArray[Any]  # each answer's (worker, given label) cell
    cell_worker: NDArray[Any]  # each cell's worker
    cell_label: NDArray[Any]  # each cell's given label


def _encode(answers: list[tuple[Hashable, Hashable, Any]]) -> _Set:
    """One answer set's integer codes, each in order of first appearance.

    A (worker, label) cell is coded by the integer ``worker * labels + label`` rather than a
    tuple: the same cells in the same order, for less encoding time.
    """
    task_values, worker_values, label_values = zip(*answers, strict=True)
    tasks, task = _codes(task_values)
    workers, worker = _codes(worker_values)
    labels, label = _codes(label_values)
    # (worker, label) cells in order of first appearance, as crowd-kit's unsorted group-by
    cells, cell = _codes((worker * len(labels) + label).tolist())
    cell_worker, cell_label = np.divmod(np.array(cells, dtype=np.intp), len(labels))
    return _Set(tasks, workers, labels, task, label, cell, cell_worker, cell_label)


def _assemble(sets: list[_Set], k: int) -> _Answers:
    """The :class:`_Answers` of answer sets of ``k`` labels each.

    Each set's codes come after the previous set's.
    """
    task_parts, cell_parts, worker_parts, set_parts, cell_set_parts = [], [], [], [], []
    n_tasks = n_cells = n_workers = n_answers = 0
    task_bounds = [0]
    runs: list[list[int]] = []
    for s, one in enumerate(sets):
        answers, items = one.task.size, len(one.tasks)
        task_parts.append(one.task + n_tasks)
        cell_parts.append(one.cell + n_cells)
        worker_parts.append(one.cell_worker + n_workers)
        set_parts.append(np.full(items, s, dtype=np.intp))
        cell_set_parts.append(np.full(one.cell_worker.size, s, dtype=np.intp))
        if runs and runs[-1][3] == answers and runs[-1][5] == items:
            runs[-1][1] += 1
        else:
            runs.append([s, 1, n_answers, answers, n_tasks, items])
        n_tasks += items
        n_cells += one.cell_worker.size
        n_workers += len(one.workers)
        n_answers += answers
        task_bounds.append(n_tasks)
    task = np.concatenate(task_parts)
    cell = np.concatenate(cell_parts)
    cell_worker = np.concatenate(worker_parts)
    task_set = np.concatenate(set_parts)
    cols = np.arange(k)
    return _Answers(
        n_tasks=n_tasks,
        k=k,
        task=task,
        cell=cell,
        cell_worker=cell_worker,
        cell_label=np.concatenate([one.cell_label for one in sets]),
        by_task=(task[:, None] * k + cols).ravel(),
        by_label_task=(cols * n_tasks + task[:, None]).ravel(),
        by_cell=(cell[:, None] * k + cols).ravel(),
        by_worker=(cell_worker[:, None] * k + cols).ravel(),
        task_set=task_set,
        answer_set=task_set.take(task),
        by_set=(task_set[:, None] * k + cols).ravel(),
        set_tasks=np.array([len(one.tasks) for one in sets], dtype=np.intp),
        set_answers=np.array([one.task.size for one in sets], dtype=np.intp),
        task_bounds=tuple(task_bounds),
        runs=tuple((f, c, a0, na, t0, nt) for f, c, a0, na, t0, nt in runs),
        n_workers=n_workers,
        n_cells=n_cells,
        n_sets=len(sets),
        cell_set=np.concatenate(cell_set_parts),
        set_tasks_col=np.array([len(one.tasks) for one in sets], dtype=np.intp)[:, None],
        run_slices=tuple(
            (
                f,
                f + c,
                a0 * k,
                (a0 + c * na) * k,
                (c, na * k),
                t0 * k,
                (t0 + c * nt) * k,
                (c, nt * k),
            )
            for f, c, a0, na, t0, nt in runs
        ),
    )


def _fit(one: _Set, k: int, posteriors: Any, priors: Any, errors: Any, history: Any) -> Any:
    full = np.zeros((len(one.workers), k, k))
    full[one.cell_worker, one.cell_label] = errors
    return DawidSkeneFit(
        tasks=one.tasks,
        workers=one.workers,
        labels=one.labels,
        posteriors=posteriors,
        priors=np.maximum(priors, EPS),
        errors=full,
        loss_history=tuple(history),
    )


def _fit_group(sets: list[_Set], k: int, n_iter: int, tol: float) -> list[DawidSkeneFit]:
    """EM on answer sets of ``k`` labels each, all at once; each set stops on its own.

    A set that stops keeps its model as it was then; its rows go on being computed (they
    touch no other set's numbers) until the sets still running hold less than half of the
    answers in the arrays, and only then are the arrays built anew for those: later
    iterations cost about what theirs do, without a rebuild each time a set stops (issue 38).
    """
    a = _assemble(sets, k)
    label = np.concatenate([one.label for one in sets])
    votes = a.sum(np.eye(k).take(label, axis=0), a.by_task, a.n_tasks)
    posteriors = votes / votes.sum(axis=1, keepdims=True)
    priors = _priors(posteriors, a)
    errors = _m_step(posteriors.take(a.task, axis=0), a)
    floored_priors = np.maximum(priors, EPS)
    members = list(range(len(sets)))  # the sets in the arrays, in order
    running = list(range(len(sets)))  # the positions in ``members`` of the sets still running
    cell_bounds = _cell_bounds(sets, members)
    live_answers = a.task.size  # the answers of the sets still running
    loss = [-np.inf] * len(sets)
    history: list[list[float]] = [[] for _ in sets]
    fits: list[DawidSkeneFit | None] = [None] * len(sets)
    for _ in range(n_iter):
        posteriors = _e_step(floored_priors, errors, a)
        priors = _priors(posteriors, a)
        floored_priors = np.maximum(priors, EPS)
        given = posteriors.take(a.task, axis=0)
        errors = _m_step(given, a)
        new_loss, posteriors = _elbo(posteriors, given, floored_priors, errors, a)
        still = []
        for pos in running:
            s = members[pos]
            history[s].append(new_loss[pos])
            if new_loss[pos] - loss[s] < tol:
                rows = slice(a.task_bounds[pos], a.task_bounds[pos + 1])
                cells = slice(cell_bounds[pos], cell_bounds[pos + 1])
                fits[s] = _fit(sets[s], k, posteriors[rows], priors[pos], errors[cells], history[s])
                live_answers -= sets[s].task.size
            else:
                loss[s] = new_loss[pos]
                still.append(pos)
        if len(still) == len(running):
            continue
        running = still
        if not running:
            break
        if 2 * live_answers < a.task.size:
            floored_priors = floored_priors.take(running, axis=0)
            errors = np.concatenate(
                [errors[cell_bounds[pos] : cell_bounds[pos + 1]] for pos in running]
            )
            members = [members[pos] for pos in running]
            running = list(range(len(members)))
            cell_bounds = _cell_bounds(sets, members)
            a = _assemble([sets[s] for s in members], k)
    for pos in running:  # ran all n_iter iterations
        rows = slice(a.task_bounds[pos], a.task_bounds[pos + 1])
        cells = slice(cell_bounds[pos], cell_bounds[pos + 1])
        s = members[pos]
        fits[s] = _fit(sets[s], k, posteriors[rows], priors[pos], errors[cells], history[s])
    return [f for f in fits if f is not None]


def _cell_bounds(sets: list[_Set], members: list[int]) -> list[int]:
    """Each member set's first cell in the arrays, then the end."""
    bounds = [0]
    for s in members:
        bounds.append(bounds[-1] + sets[s].cell_worker.size)
    return bounds


def _checked(rows: Iterable[tuple[Hashable, Hashable, Any]]) -> list[Any]:
    answers = list(rows)
    if not answers:
        raise InvalidInputError("Dawid–Skene: no answers")
    if any(len(a) != 3 for a in answers):
        raise InvalidInputError("Dawid–Skene: each answer must be (item, worker, label)")
    return answers


def fit_dawid_skene_many(
    answer_sets: Iterable[Iterable[tuple[Hashable, Hashable, Any]]],
    *,
    n_iter: int = N_ITER,
    tol: float = TOL,
) -> list[DawidSkeneFit]:
    """Fit Dawid–Skene to each of several answer sets (a study's label subsets), together.

    Why together: one subset's EM is some 25 small NumPy steps per iteration, a few tens of
    microseconds each whatever the size, so a study's 15 label subsets paid 15 times the
    steps (a tenth of an export, issue 38). Sets with the same number of labels run in one
    array per step; every sum stays within its set and runs in the order it runs alone, so
    each fit is the one :func:`fit_dawid_skene` gives that set alone, bit for bit, and each
    set stops at its own iteration.

    Args:
        answer_sets: Per set, its answers, ``(item, worker, label)`` each.
        n_iter: The most EM iterations.
        tol: Stop a set when its evidence lower bound per answer gains less than this.

    Returns:
        One fitted model per set, in order.

    Raises:
        InvalidInputError: A set without answers, or an answer that is not a triple.
    """
    sets = [_encode(_checked(rows)) for rows in answer_sets]
    groups: dict[int, list[int]] = {}
    # by label count, then answer and item counts, so that equal-sized sets lie together
    for s in sorted(range(len(sets)), key=lambda s: (sets[s].task.size, len(sets[s].tasks))):
        groups.setdefault(len(sets[s].labels), []).append(s)
    fits: list[DawidSkeneFit | None] = [None] * len(sets)
    for k, members in groups.items():
        for s, fit in zip(
            members, _fit_group([sets[s] for s in members], k, n_iter, tol), strict=True
        ):
            fits[s] = fit
    return [f for f in fits if f is not None]


def fit_dawid_skene(
    rows: Iterable[tuple[Hashable, Hashable, Any]], *, n_iter: int = N_ITER, tol: float = TOL
) -> DawidSkeneFit:
    """Fit Dawid–Skene by EM to ``(item, worker, label)`` answers.

    Each step is described in the module docstring; ``labels`` come in order of first
    appearance, which breaks ties.

    Args:
        rows: The answers, ``(item, worker, label)`` each.
        n_iter: The most EM iterations.
        tol: Stop when the evidence lower bound per answer gains less than this.

    Returns:
        The fitted model.

    Raises:
        InvalidInputError: No answers, or an answer that is not a triple.
    """
    return fit_dawid_skene_many([rows], n_iter=n_iter, tol=tol)[0]


def dawid_skene_labels(
    rows: Iterable[tuple[Hashable, Hashable, Any]], *, n_iter: int = N_ITER
) -> dict[Hashable, Any]:
    """Each item's Dawid–Skene label from ``(item, worker, label)`` answers.

    Args:
        rows: The answers, ``(item, worker, label)`` each.
        n_iter: The most EM iterations.

    Returns:
        ``{item: label}``.
    """
    return fit_dawid_skene(rows, n_iter=n_iter).labels_by_task()
