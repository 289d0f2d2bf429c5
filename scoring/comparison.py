"""Compare raters across task-language subsets: the HUME(v1) table and the human-vs-model view.

Conventions, as in the HUME(v1) benchmark (arXiv 2510.10062, Table 1):
- a rater's overall score is the unweighted mean over task-language subsets (each subset counts
  once, whatever its task or size); French subsets are excluded;
- only raters that have every subset of the comparison are ranked ("complete"); the others are
  listed with the mean of what they have and no rank; individual annotators are never ranked;
- ranks are competition ranks (1, 2, 2, 4) on the unrounded mean;
- beside it, a Borda rank over the same ranked raters, as the MTEB leaderboard shows one: on
  each subset a rater earns one point per rater it beats and half a point per rater it ties,
  the points are summed over subsets and ranked (competition ranks again), so one subset with
  a large score spread cannot carry the mean;
- "best" and "median" model per subset are taken over the ranked (complete) models;
- a human "win" is a strictly higher score; a subset is "easy" when the human score is ≥ 0.7.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from scoring.agreement import high_agreement, low_agreement
from scoring.errors import InvalidInputError
from scoring.metrics import spearman
from scoring.records import Score
from scoring.results import Rater, agreement_from_block
from scoring.rules import ScoringRules
from scoring.tasks import EXCLUDED_LANGUAGES_V1, normalise_language

__all__ = [
    "EASY_THRESHOLD",
    "RANKED_KINDS",
    "RANK_BOOTSTRAP",
    "RANK_METHOD",
    "RANK_SEED",
    "TIE_TOLERANCE",
    "HumanVsModels",
    "RankRow",
    "SubsetInfo",
    "borda_counts",
    "catalogue",
    "difficulty",
    "human_vs_models",
    "paired_scores",
    "published_interval",
    "rank_intervals",
    "rank_raters",
    "score_correlation",
    "select_subsets",
]

EASY_THRESHOLD = 0.7
RANKED_KINDS = ("model", "human", "llm")
#: Means closer than this share a rank (float sums of the same values can differ in the last bit).
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class SubsetInfo:
    """A task-language subset of the comparison."""

    id: str
    task_name: str
    hf_subset: str
    task_type: str
    language: str


@dataclass
class RankRow:
    """One rater's line in the leaderboard."""

    rater: Rater
    mean: float | None
    n_subsets: int
    complete: bool
    by_type: dict[str, float]
    by_language: dict[str, float]
    rank: int | None = None
    #: Borda points (sum over subsets of raters beaten, ties counting ½) and their rank, over
    #: the ranked raters; ``None`` for raters that are not ranked.
    borda: float | None = None
    borda_rank: int | None = None
    #: The 95 % bootstrap interval of the rank and of the mean (see :func:`rank_intervals`),
    #: and the group of raters whose ranks cannot be separated (1 = the top group).
    rank_low: int | None = None
    rank_high: int | None = None
    mean_low: float | None = None
    mean_high: float | None = None
    group: int | None = None
    #: What the rater's own result files publish beside the mean (humans: the mean of the
    #: per-subset ``confidence_interval`` bounds, items, annotators); empty for models.
    published: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The row as the leaderboard's JSON writes it.

        Returns:
            A plain dict: model, kind, mean, ranks, intervals, group, means by type and language.
        """
        return {
            "model": self.rater.label,
            "revision": self.rater.revision,
            "kind": self.rater.kind,
            "mean": self.mean,
            "rank": self.rank,
            "borda": self.borda,
            "borda_rank": self.borda_rank,
            "rank_interval": [self.rank_low, self.rank_high],
            "mean_interval": [self.mean_low, self.mean_high],
            "group": self.group,
            "published": self.published,
            "complete": self.complete,
            "n_subsets": self.n_subsets,
            "by_type": self.by_type,
            "by_language": self.by_language,
        }


@dataclass
class HumanVsModels:
    """Per-subset comparison of the human score with the best and the median model."""

    subsets: list[dict[str, Any]] = field(default_factory=list)

    @property
    def wins_vs_best(self) -> int:
        """Subsets where the human score is strictly above the best model's."""
        return sum(1 for s in self.subsets if s["human_beats_best"])

    @property
    def wins_vs_median(self) -> int:
        """Subsets where the human score is strictly above the median model's."""
        return sum(1 for s in self.subsets if s["human_beats_median"])

    def to_dict(self) -> dict[str, Any]:
        """The comparison as the leaderboard's JSON writes it.

        Returns:
            A plain dict: the win counts and shares, and one entry per subset.
        """
        n = len(self.subsets)
        return {
            "n_subsets": n,
            "wins_vs_best": self.wins_vs_best,
            "wins_vs_median": self.wins_vs_median,
            "share_vs_best": self.wins_vs_best / n if n else None,
            "share_vs_median": self.wins_vs_median / n if n else None,
            "subsets": self.subsets,
            "method": "strictly higher main_score than the best / median ranked model per subset",
        }


def catalogue(raters: Iterable[Rater]) -> dict[str, SubsetInfo]:
    """Every subset any rater has, named after the first model that reports it.

    Args:
        raters: the raters read from the results (models first when naming).

    Returns:
        ``{subset id: SubsetInfo}``.
    """
    out: dict[str, SubsetInfo] = {}
    ordered = sorted(raters, key=lambda r: r.kind != "model")
    for rater in ordered:
        for sid, s in rater.scores.items():
            if sid not in out:
                out[sid] = SubsetInfo(sid, s.task_name, s.hf_subset, s.task_type, s.language)
    return out


def select_subsets(
    subsets: Mapping[str, SubsetInfo],
    *,
    languages: Collection[str] | None = None,
    exclude_languages: Collection[str] = EXCLUDED_LANGUAGES_V1,
    task_types: Collection[ScoringRules] | None = None,
    tasks: Collection[str] | None = None,
) -> dict[str, SubsetInfo]:
    """The subsets of a comparison: French left out by default, optionally one language set.

    ``task_types`` keeps only subsets of those types (type objects: a type name is checked by
    the registry that gives the object, so there is no unknown type to report here).

    Args:
        subsets: every subset, as :func:`catalogue` gives them.
        languages: keep only these languages (any form :func:`normalise_language` reads).
        exclude_languages: leave these out.
        task_types: keep only these types.
        tasks: keep only these task names.

    Returns:
        The chosen subsets, sorted by id.

    Raises:
        InvalidInputError: ``languages`` was given and no subset has one of them.
    """
    want = {normalise_language(x) for x in languages} if languages else None
    drop = {normalise_language(x) for x in exclude_languages}
    keep_types = None if task_types is None else {t.name for t in task_types}
    chosen = {
        sid: info
        for sid, info in subsets.items()
        if info.language not in drop
        and (want is None or info.language in want)
        and (keep_types is None or info.task_type in keep_types)
        and (tasks is None or info.task_name in tasks)
    }
    if want and not chosen:
        have = sorted({i.language for i in subsets.values()})
        raise InvalidInputError(
            f"no subset in language(s) {', '.join(sorted(want))}; available: {', '.join(have)}"
        )
    return dict(sorted(chosen.items()))


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _group_means(rater: Rater, subsets: Mapping[str, SubsetInfo], attr: str) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for sid, info in subsets.items():
        if sid in rater.scores:
            groups[getattr(info, attr)].append(rater.scores[sid].main_score)
    return {k: sum(v) / len(v) for k, v in sorted(groups.items())}


def rank_raters(raters: Iterable[Rater], subsets: Mapping[str, SubsetInfo]) -> list[RankRow]:
    """The leaderboard: mean over subsets (equal weights), per type and per language, ranks.

    Args:
        raters: every rater read from the results.
        subsets: the subsets compared, as :func:`select_subsets` gives them.

    Returns:
        One row per rater with at least one of the subsets, ranked rows first (by rank).

    Raises:
        InvalidInputError: no subsets.
    """
    if not subsets:
        raise InvalidInputError("no subsets to compare")
    rows: list[RankRow] = []
    for rater in raters:
        have = [sid for sid in subsets if sid in rater.scores]
        if not have:
            continue
        values = [rater.scores[sid].main_score for sid in have]
        rows.append(
            RankRow(
                rater=rater,
                mean=_mean(values),
                n_subsets=len(have),
                complete=len(have) == len(subsets),
                by_type=_group_means(rater, subsets, "task_type"),
                by_language=_group_means(rater, subsets, "language"),
            )
        )
    rankable = sorted(
        (r for r in rows if r.complete and r.rater.kind in RANKED_KINDS),
        key=lambda r: -(r.mean or 0.0),
    )
    for i, row in enumerate(rankable):
        prev = rankable[i - 1] if i else None
        tied = prev is not None and abs((prev.mean or 0.0) - (row.mean or 0.0)) <= TIE_TOLERANCE
        row.rank = prev.rank if tied and prev is not None else i + 1
    borda = borda_counts({id(r): r.rater for r in rankable}, subsets)
    for row in rankable:
        row.borda = borda[id(row)]
    by_points = sorted(rankable, key=lambda r: -(r.borda or 0.0))
    for i, row in enumerate(by_points):
        prev = by_points[i - 1] if i else None
        tied = prev is not None and abs((prev.borda or 0.0) - (row.borda or 0.0)) <= TIE_TOLERANCE
        row.borda_rank = prev.borda_rank if tied and prev is not None else i + 1
    rank_intervals(rankable, list(subsets))
    for row in rows:
        if row.rater.kind == "human":
            row.published = published_interval(row.rater, list(subsets))
    rows.sort(key=lambda r: (r.rank is None, r.rank or 0, -(r.mean or 0.0), r.rater.label))
    return rows


#: Bootstrap settings for :func:`rank_intervals` (seeded: the same files give the same table).
RANK_BOOTSTRAP = 2000
RANK_SEED = 0
RANK_METHOD = (
    "rank interval: 2.5 and 97.5 percentiles of each ranked rater's competition rank over "
    f"{RANK_BOOTSTRAP} seeded bootstrap resamples of the subsets (seed {RANK_SEED}; MTEB result "
    "files carry no per-item results, so items are not resampled); mean interval: the same "
    "resamples' percentiles of the mean; groups: raters in rank order, a rater joins the "
    "current group when its rank interval overlaps that of the group's first rater, otherwise "
    "it starts a new one (raters in one group cannot be separated)"
)


def rank_intervals(
    rows: Sequence[RankRow],
    subsets: Sequence[str],
    *,
    n_boot: int = RANK_BOOTSTRAP,
    seed: int = RANK_SEED,
) -> None:
    """Fill the rank and mean intervals and the groups of the ranked rows, in place.

    Written by hand because no library bootstraps a rank table: resample the subsets with
    replacement (every ranked rater has every subset), recompute each rater's mean and its
    competition rank (1 + raters with a mean higher by more than ``TIE_TOLERANCE``), take the
    2.5/97.5 percentiles (``method="lower"/"higher"``, so ranks stay whole numbers). Groups:
    walk the raters in rank order; one joins the current group while its rank interval overlaps
    that of the group's first rater (``rank_low <= first.rank_high``).

    Args:
        rows: the leaderboard's rows; only ranked ones are filled.
        subsets: the subset ids every ranked rater has.
        n_boot: how many resamples of the subsets.
        seed: seed of the NumPy generator.
    """
    import numpy as np

    ranked = sorted((r for r in rows if r.rank is not None), key=lambda r: r.rank or 0)
    if not ranked or not subsets:
        return
    scores = np.array(
        [[r.rater.scores[sid].main_score for sid in subsets] for r in ranked], dtype=float
    )
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(subsets), size=(n_boot, len(subsets)))
    means = scores[:, idx].mean(axis=2).T  # (n_boot, raters)
    ranks = 1 + (means[:, None, :] > means[:, :, None] + TIE_TOLERANCE).sum(axis=2)
    for j, row in enumerate(ranked):
        row.rank_low = int(np.quantile(ranks[:, j], 0.025, method="lower"))
        row.rank_high = int(np.quantile(ranks[:, j], 0.975, method="higher"))
        row.mean_low = float(np.quantile(means[:, j], 0.025))
        row.mean_high = float(np.quantile(means[:, j], 0.975))
    group, first = 0, None
    for row in ranked:
        if first is None or (row.rank_low or 0) > (first.rank_high or 0):
            group, first = group + 1, row
        row.group = group


def published_interval(rater: Rater, subsets: Sequence[str]) -> dict[str, Any]:
    """What a rater's files publish beside the mean.

    The mean of the per-subset ``confidence_interval`` bounds (only where every subset has one:
    the mean of the bounds is an interval for the mean when the subsets' errors move together,
    a conservative reading), the items and the most annotators any subset had.

    Args:
        rater: a rater read from the results (the human one).
        subsets: the subset ids compared.

    Returns:
        ``interval``, ``n_items``, ``n_annotators``, ``n_subsets_with_agreement``, where known.
    """
    blocks = [rater.scores[s].block for s in subsets if s in rater.scores]
    out: dict[str, Any] = {}
    ivs = [b.get("confidence_interval") for b in blocks]
    bounds = [iv for iv in ivs if isinstance(iv, Mapping) and "low" in iv and "high" in iv]
    if blocks and len(bounds) == len(ivs):
        out["interval"] = [
            sum(float(iv["low"]) for iv in bounds) / len(bounds),
            sum(float(iv["high"]) for iv in bounds) / len(bounds),
        ]
    agreements = [a for b in blocks if isinstance(a := b.get("agreement"), Mapping)]
    if agreements:
        out["n_items"] = sum(int(a.get("n_items", 0) or 0) for a in agreements)
        out["n_annotators"] = max(int(a.get("n_annotators", 0) or 0) for a in agreements)
        out["n_subsets_with_agreement"] = len(agreements)
    return out


def borda_counts(raters: Mapping[Any, Rater], subsets: Iterable[str]) -> dict[Any, float]:
    """Borda points per rater, summed over subsets.

    On each subset, one point per rater with a lower score and ½ per rater with the same score
    (within ``TIE_TOLERANCE``), among the raters that have it.

    Args:
        raters: ``{key: rater}``.
        subsets: the subset ids to count over.

    Returns:
        ``{key: points}``.
    """
    points = dict.fromkeys(raters, 0.0)
    for sid in subsets:
        scored = {k: r.scores[sid].main_score for k, r in raters.items() if sid in r.scores}
        for k, v in scored.items():
            for other, w in scored.items():
                if other == k:
                    continue
                if abs(v - w) <= TIE_TOLERANCE:
                    points[k] += 0.5
                elif v > w:
                    points[k] += 1.0
    return points


def human_vs_models(
    human: Rater, models: Sequence[Rater], subsets: Mapping[str, SubsetInfo]
) -> HumanVsModels:
    """Wins of the human rater against the best and the median model on each subset.

    Args:
        human: the human rater.
        models: the models to compare with.
        subsets: the subsets compared, as :func:`select_subsets` gives them.

    Returns:
        The per-subset comparison and the win counts.
    """
    out = HumanVsModels()
    for sid, info in subsets.items():
        if sid not in human.scores:
            continue
        scored = [(m.label, m.scores[sid].main_score) for m in models if sid in m.scores]
        if not scored:
            continue
        h = human.scores[sid].main_score
        best_name, best = max(scored, key=lambda x: x[1])
        med = median(v for _, v in scored)
        out.subsets.append(
            {
                "subset": sid,
                "task_name": info.task_name,
                "hf_subset": info.hf_subset,
                "task_type": info.task_type,
                "language": info.language,
                "human": h,
                "best_model": best_name,
                "best_model_score": best,
                "median_model_score": med,
                "n_models": len(scored),
                "human_beats_best": h > best,
                "human_beats_median": h > med,
                "difficulty": difficulty(h),
                **_agreement_fields(human.scores[sid].block),
            }
        )
    return out


def _agreement_fields(block: Mapping[str, Any]) -> dict[str, Any]:
    """The human agreement published with a subset score, and HUME's low/high flags."""
    agreement = agreement_from_block(block.get("agreement"))
    if agreement is None:
        return {"agreement": None, "low_agreement": None}
    return {
        "agreement": {
            "method": agreement.method,
            "value": agreement.value,
            "band": agreement.band,
            "n_raters": agreement.n_raters,
        },
        "low_agreement": low_agreement(agreement),
        "high_agreement": high_agreement(agreement),
    }


def difficulty(human_score: float, threshold: float = EASY_THRESHOLD) -> str:
    """HUME's reading of task difficulty: ``easy`` when humans reach ``threshold``.

    Args:
        human_score: the human main score.
        threshold: the score at which a task is easy.

    Returns:
        ``"easy"`` or ``"hard"``.
    """
    return "easy" if human_score >= threshold else "hard"


def paired_scores(
    a: Mapping[str, float], b: Mapping[str, float], subsets: Iterable[str] | None = None
) -> tuple[list[str], list[float], list[float]]:
    """The subsets both raters have (optionally within ``subsets``) and their two score lists.

    Args:
        a: one rater's ``{subset: score}``.
        b: another's.
        subsets: the subsets to consider, in order (default: those of ``a``).

    Returns:
        (subset ids, a's scores, b's scores), aligned.
    """
    keys = [k for k in (subsets if subsets is not None else a) if k in a and k in b]
    return keys, [a[k] for k in keys], [b[k] for k in keys]


def score_correlation(
    a: Mapping[str, float], b: Mapping[str, float], subsets: Iterable[str] | None = None
) -> Score:
    """Spearman correlation of two raters' scores across the subsets both have.

    HUME reports ρ = 0.52 between human and LLM-annotator scores over 19 subsets; the same
    function serves human vs any rater. The paired subset ids are kept in ``details``.

    Args:
        a: one rater's ``{subset: score}``.
        b: another's.
        subsets: the subsets to consider (default: those of ``a``).

    Returns:
        ρ, method ``"spearman_across_subsets"``.

    Raises:
        InvalidInputError: fewer than 3 shared subsets.
    """
    keys, xs, ys = paired_scores(a, b, subsets)
    if len(keys) < 3:
        raise InvalidInputError(
            f"a correlation across subsets needs at least 3 shared subsets, got {len(keys)}"
        )
    rho = spearman(xs, ys)
    return Score(
        value=rho.value,
        method="spearman_across_subsets",
        n_items=len(keys),
        details={"subsets": keys, "pvalue": rho.details.get("pvalue")},
    )
