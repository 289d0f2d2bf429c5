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

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from scoring.errors import InvalidInputError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["EPS", "N_ITER", "TOL", "DawidSkeneFit", "dawid_skene_labels", "fit_dawid_skene"]

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


def _codes(values: list[Hashable]) -> tuple[tuple[Hashable, ...], NDArray[Any]]:
    """Distinct values in order of first appearance, and each value's position among them."""
    seen: dict[Hashable, int] = {}
    codes = np.fromiter((seen.setdefault(v, len(seen)) for v in values), np.intp, len(values))
    return tuple(seen), codes


@dataclass(frozen=True)
class _Answers:
    """The answers as integer codes, with flat indices for summing with ``np.bincount``.

    One index sums (answer, label) values per item, one per (worker, given label) cell.
    """

    n_tasks: int
    k: int
    task: NDArray[Any]  # each answer's item
    cell: NDArray[Any]  # each answer's (worker, given label) cell, in order of first appearance
    cell_worker: NDArray[Any]  # each cell's worker
    cell_label: NDArray[Any]  # each cell's given label
    by_task: NDArray[Any]  # flat (item, label) bin of each (answer, label)
    by_cell: NDArray[Any]  # flat (cell, label) bin of each (answer, label)
    by_worker: NDArray[Any]  # flat (worker, label) bin of each (cell, label)

    def sum(self, values: NDArray[Any], bins: NDArray[Any], n: int) -> NDArray[Any]:
        """Sum ``values`` rows (shape (rows, k)) into ``n`` rows by the flat ``bins``.

        Each sum runs in the order of the rows.
        """
        sums: NDArray[Any] = np.bincount(bins, values.ravel(), n * self.k).reshape(n, self.k)
        return sums


def _m_step(given: NDArray[Any], a: _Answers, n_workers: int) -> NDArray[Any]:
    """Confusion rows, shape (cells, true label), from ``posteriors[a.task]`` (``given``).

    Each row is P(the cell's label | true label) for the cell's worker; only labels a worker
    gave have a row.
    """
    n_cells = a.cell_worker.size
    floored = np.maximum(a.sum(given, a.by_cell, n_cells), EPS)
    per_worker = a.sum(floored, a.by_worker, n_workers)
    errors: NDArray[Any] = floored / per_worker[a.cell_worker]
    return errors


def _e_step(priors: NDArray[Any], errors: NDArray[Any], a: _Answers) -> NDArray[Any]:
    """Posteriors, shape (items, labels), from the priors and the confusion rows."""
    log_lik = np.log2(np.maximum(priors, EPS)) + a.sum(
        np.log2(errors)[a.cell], a.by_task, a.n_tasks
    )
    scaled = np.exp2(log_lik - log_lik.max(axis=1, keepdims=True))
    posteriors: NDArray[Any] = scaled / scaled.sum(axis=1, keepdims=True)
    return posteriors


def _elbo(
    posteriors: NDArray[Any],
    given: NDArray[Any],
    priors: NDArray[Any],
    errors: NDArray[Any],
    a: _Answers,
) -> tuple[float, NDArray[Any]]:
    """Evidence lower bound per answer, and the posteriors raised to at least :data:`EPS`.

    ``given`` is ``posteriors[a.task]``, which the M-step read too (indexed once per
    iteration, issue 38).
    """
    expected = np.log(errors)[a.cell] + np.log(np.maximum(priors, EPS))
    joint = float((given * expected).sum())
    floored = np.maximum(posteriors, EPS)
    entropy = -float((np.log(floored) * floored).sum())
    return (joint + entropy) / a.task.size, floored


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
    answers = list(rows)
    if not answers:
        raise InvalidInputError("Dawid–Skene: no answers")
    if any(len(a) != 3 for a in answers):
        raise InvalidInputError("Dawid–Skene: each answer must be (item, worker, label)")
    tasks, task = _codes([a[0] for a in answers])
    workers, worker = _codes([a[1] for a in answers])
    labels, label = _codes([a[2] for a in answers])
    k = len(labels)
    # (worker, label) cells in order of first appearance, as crowd-kit's unsorted group-by
    cells, cell = _codes(list(zip(worker.tolist(), label.tolist(), strict=True)))
    cell_worker = np.array([c[0] for c in cells], dtype=np.intp)  # type: ignore[index]
    cell_label = np.array([c[1] for c in cells], dtype=np.intp)  # type: ignore[index]
    cols = np.arange(k)
    a = _Answers(
        n_tasks=len(tasks),
        k=k,
        task=task,
        cell=cell,
        cell_worker=cell_worker,
        cell_label=cell_label,
        by_task=(task[:, None] * k + cols).ravel(),
        by_cell=(cell[:, None] * k + cols).ravel(),
        by_worker=(cell_worker[:, None] * k + cols).ravel(),
    )

    votes = a.sum(np.eye(k)[label], a.by_task, a.n_tasks)
    posteriors = votes / votes.sum(axis=1, keepdims=True)
    n_tasks = np.intp(len(tasks))
    priors = posteriors.mean(axis=0)
    errors = _m_step(posteriors[a.task], a, len(workers))
    loss, history = -np.inf, []
    for _ in range(n_iter):
        posteriors = _e_step(priors, errors, a)
        # posteriors.mean(axis=0), the same sum and division without its Python wrapper
        priors = np.add.reduce(posteriors, axis=0) / n_tasks
        given = posteriors[a.task]
        errors = _m_step(given, a, len(workers))
        new_loss, posteriors = _elbo(posteriors, given, priors, errors, a)
        history.append(new_loss)
        if new_loss - loss < tol:
            break
        loss = new_loss
    full = np.zeros((len(workers), k, k))
    full[cell_worker, cell_label] = errors
    return DawidSkeneFit(
        tasks=tasks,
        workers=workers,
        labels=labels,
        posteriors=posteriors,
        priors=np.maximum(priors, EPS),
        errors=full,
        loss_history=tuple(history),
    )


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
