"""Each machine rater against the humans, kept apart from human–human agreement."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from typing import Any

from scoring.agreement._bands import Scale, agreement_band
from scoring.agreement._categorical import mean_pairwise_cohen_kappa, percentage_agreement
from scoring.agreement._clustering_sts import mean_pairwise_ari, mean_pairwise_spearman
from scoring.agreement._reranking import reranking_agreement
from scoring.agreement._result import (
    WARN_FEWER_THAN_TWO_RATERS,
    WARN_NO_HUMANS,
    WARN_UNDEFINED_COMPARISONS,
    _mean,
)
from scoring.errors import InvalidInputError
from scoring.records import Agreement
from scoring.validation import choose

_HM_STATS: dict[str, Callable[..., Agreement]] = {
    "cohen_kappa": mean_pairwise_cohen_kappa,
    "percentage_agreement": percentage_agreement,
    "spearman": mean_pairwise_spearman,
    "ari": mean_pairwise_ari,
    "reranking_spearman": lambda m, **kw: reranking_agreement(m, statistic="spearman", **kw),
    "reranking_kendall_tau": lambda m, **kw: reranking_agreement(m, statistic="kendall_tau", **kw),
    "reranking_binary_kappa": lambda m, **kw: reranking_agreement(
        m, statistic="binary_kappa", **kw
    ),
}


def human_machine_agreement(
    ratings: Mapping[Any, Any],
    machine_raters: Collection[Any],
    *,
    statistic: str = "cohen_kappa",
) -> dict[Any, Agreement]:
    """Agreement of each machine rater with the humans, kept apart from human–human agreement.

    For every machine rater m: the chosen pairwise statistic between m and each human rater
    (other machines are ignored), then the mean over humans.

    Args:
        ratings: every rater's answers, humans and machines, in the shape that the statistic's
            human–human function takes.
        machine_raters: the machine rater ids; each must occur in ``ratings``.
        statistic: one of ``cohen_kappa``, ``percentage_agreement``, ``spearman``, ``ari``,
            ``reranking_spearman``, ``reranking_kendall_tau``, ``reranking_binary_kappa``.

    Returns:
        ``{machine_id: Agreement}`` with method ``"human_machine:<statistic>"``, the per-human
        values in ``details["per_human"]``, ``n_raters`` = number of humans and ``n_items`` =
        most items shared with one human.

    Raises:
        InvalidInputError: an unknown statistic, empty ``ratings``, ``machine_raters`` given as
            a string, or a machine rater missing from ``ratings``.
    """
    choose(statistic, tuple(_HM_STATS), "human-machine statistic")
    if not isinstance(ratings, Mapping) or len(ratings) == 0:
        raise InvalidInputError("ratings: expected a non-empty mapping rater -> answers")
    if isinstance(machine_raters, str):
        raise InvalidInputError("machine_raters: expected a collection of rater ids, got a str")
    machines = list(dict.fromkeys(machine_raters))
    unknown = [m for m in machines if m not in ratings]
    if unknown:
        raise InvalidInputError(f"machine_raters not in ratings: {unknown!r}")
    humans = [r for r in ratings if r not in set(machines)]
    func = _HM_STATS[statistic]
    method = f"human_machine:{statistic}"
    out: dict[Any, Agreement] = {}
    for m in machines:
        per_human: dict[str, float] = {}
        warnings: list[str] = []
        parts: list[Agreement] = []
        for h in humans:
            part = func({h: ratings[h], m: ratings[m]})
            parts.append(part)
            per_human[str(h)] = part.value
            warnings += [w for w in part.warnings if w != WARN_FEWER_THAN_TWO_RATERS]
        scale: Scale = parts[0].details["scale"] if parts else "kappa"
        defined = [v for v in per_human.values() if math.isfinite(v)]
        if not humans:
            warnings.append(WARN_NO_HUMANS)
        elif len(defined) < len(per_human) and defined:
            warnings.append(WARN_UNDEFINED_COMPARISONS)
        out[m] = Agreement(
            value=_mean(defined),
            method=method,
            band=agreement_band(_mean(defined), scale),
            n_raters=len(humans),
            n_items=max((p.n_items for p in parts), default=0),
            warnings=tuple(dict.fromkeys(warnings)),
            details={"scale": scale, "machine_rater": m, "per_human": per_human},
        )
    return out
