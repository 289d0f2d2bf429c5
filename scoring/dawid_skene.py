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
    """A fitted model: ``posteriors[i, k]`` is P(item ``tasks[i]`` has label ``labels[k]``),
    ``errors[w, k, c]`` P(worker ``workers[w]`` answers ``labels[k]`` | true ``labels[c]``)
    (0 on rows of labels the worker never gave), ``loss_history`` the evidence lower bound
    per answer after each iteration."""

    tasks: tuple[Hashable, ...]
    workers: tuple[Hashable, ...]
    labels: tuple[Hashable, ...]
    posteriors: NDArray[Any]
    priors: NDArray[Any]
    errors: NDArray[Any]
    loss_history: tuple[float, ...]

    def labels_by_task(self) -> dict[Hashable, Any]:
        """Each item's label of largest posterior (ties to the label given first)."""
        best = np.argmax(self.posteriors, axis=1)
        return {task: self.labels[k] for task, k in zip(self.tasks, best, strict=True)}


def _codes(values: list[Hashable]) -> tuple[tuple[Hashable, ...], NDArray[Any]]:
    """Distinct values in order of first appearance, and each value's position among them."""
    seen: dict[Hashable, int] = {}
    codes = np.fromiter((seen.setdefault(v, len(seen)) for v in values), np.intp, len(values))
    return tuple(seen), codes


def _m_step(
    posteriors: NDArray[Any], task: NDArray[Any], cell: NDArray[Any], given: NDArray[Any]
) -> NDArray[Any]:
    """Confusion matrices, shape (workers, given label, true label), from the posteriors."""
    n_cells, k = given.size, posteriors.shape[1]
    sums = np.zeros((n_cells, k))
    np.add.at(sums, cell, posteriors[task])
    floored = np.where(given[:, None], np.maximum(sums, EPS), 0.0).reshape(-1, k, k)
    errors: NDArray[Any] = floored / floored.sum(axis=1, keepdims=True)
    return errors


def _log_errors(errors: NDArray[Any], given: NDArray[Any], base: Any) -> NDArray[Any]:
    """``base``-log of each (worker, given label) row of the confusion matrices, flattened to
    (cells, true label); rows of labels never given are 0 and never read."""
    k = errors.shape[-1]
    flat = errors.reshape(-1, k)
    return np.where(given[:, None], base(np.where(given[:, None], flat, 1.0)), 0.0)


def _e_step(
    priors: NDArray[Any], log2_errors: NDArray[Any], task: NDArray[Any], cell: NDArray[Any], n: int
) -> NDArray[Any]:
    """Posteriors, shape (items, labels), from the priors and the confusion matrices."""
    sums = np.zeros((n, priors.size))
    np.add.at(sums, task, log2_errors[cell])
    log_lik = np.log2(np.maximum(priors, EPS)) + sums
    scaled = np.exp2(log_lik - log_lik.max(axis=1, keepdims=True))
    posteriors: NDArray[Any] = scaled / scaled.sum(axis=1, keepdims=True)
    return posteriors


def _elbo(
    posteriors: NDArray[Any],
    priors: NDArray[Any],
    ln_errors: NDArray[Any],
    task: NDArray[Any],
    cell: NDArray[Any],
) -> tuple[float, NDArray[Any]]:
    """Evidence lower bound per answer, and the posteriors raised to at least :data:`EPS`."""
    joint = float(np.sum(posteriors[task] * (ln_errors[cell] + np.log(np.maximum(priors, EPS)))))
    floored = np.maximum(posteriors, EPS)
    entropy = -float(np.sum(np.log(floored) * floored))
    return (joint + entropy) / task.size, floored


def fit_dawid_skene(
    rows: Iterable[tuple[Hashable, Hashable, Any]], *, n_iter: int = N_ITER, tol: float = TOL
) -> DawidSkeneFit:
    """Fit Dawid–Skene by EM to ``(item, worker, label)`` answers (see the module docstring
    for each step); ``labels`` come in order of first appearance, which breaks ties."""
    answers = list(rows)
    if not answers:
        raise InvalidInputError("Dawid–Skene: no answers")
    if any(len(a) != 3 for a in answers):
        raise InvalidInputError("Dawid–Skene: each answer must be (item, worker, label)")
    tasks, task = _codes([a[0] for a in answers])
    workers, worker = _codes([a[1] for a in answers])
    labels, label = _codes([a[2] for a in answers])
    k = len(labels)
    cell = worker * k + label  # the (worker, given label) row each answer adds to
    given = np.zeros(len(workers) * k, dtype=bool)
    given[cell] = True

    votes = np.zeros((len(tasks), k))
    np.add.at(votes, (task, label), 1.0)
    posteriors = votes / votes.sum(axis=1, keepdims=True)
    priors = posteriors.mean(axis=0)
    errors = _m_step(posteriors, task, cell, given)
    loss, history = -np.inf, []
    for _ in range(n_iter):
        posteriors = _e_step(priors, _log_errors(errors, given, np.log2), task, cell, len(tasks))
        priors = posteriors.mean(axis=0)
        errors = _m_step(posteriors, task, cell, given)
        new_loss, posteriors = _elbo(
            posteriors, priors, _log_errors(errors, given, np.log), task, cell
        )
        history.append(new_loss)
        if new_loss - loss < tol:
            break
        loss = new_loss
    return DawidSkeneFit(
        tasks=tasks,
        workers=workers,
        labels=labels,
        posteriors=posteriors,
        priors=np.maximum(priors, EPS),
        errors=errors,
        loss_history=tuple(history),
    )


def dawid_skene_labels(
    rows: Iterable[tuple[Hashable, Hashable, Any]], *, n_iter: int = N_ITER
) -> dict[Hashable, Any]:
    """Each item's Dawid–Skene label from ``(item, worker, label)`` answers."""
    return fit_dawid_skene(rows, n_iter=n_iter).labels_by_task()
