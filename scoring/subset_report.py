"""Everything the report says about one task-language subset, computed from plain inputs.

Given gold, the human annotators' answers, the LLM annotators' answers and the embedding models'
task scores, :func:`evaluate_subset` returns the human score by HUME's aggregation with its
confidence interval, each annotator's and LLM's score, agreement (human–human, and human–LLM
apart), the models placed against the human interval, items on which humans disagreed,
candidate gold errors, and how many items would tighten the interval to ±0.05. Every number
carries the name of its method.

Item shapes by task type (gold / one answer):
- classification: label / label
- clustering: ``{text_id: label}`` per set / ``{text_id: group}`` (sets are flattened to texts)
- reranking: ``{candidate_id: 0|1}`` per query / the same
- sts: a float / a rating 0–5
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import rankdata

from scoring import aggregation, agreement, intervals
from scoring.errors import ScoringError
from scoring.records import Agreement, Interval, Score

TARGET_HALF_WIDTH = 0.05
BOOTSTRAP_RESAMPLES = 2000

#: The headline agreement statistic per type (as in HUME) and the extra ones reported.
HEADLINE_AGREEMENT = {
    "classification": "fleiss_kappa",
    "clustering": "mean_pairwise_ari",
    "reranking": "reranking:mean_spearman",
    "sts": "mean_pairwise_spearman",
}


#: The metric each annotator (and each LLM annotator) is scored with on its own, by type.
ANNOTATOR_METHOD = {
    "classification": "accuracy",
    "clustering": "v_measure",
    "reranking": "mean_over_queries(map:sklearn)",
    "sts": "spearman",
}


@dataclass
class SubsetInput:
    """Plain inputs for one subset (see the module docstring for item shapes)."""

    key: str
    task_name: str
    hf_subset: str
    task_type: str
    language: str
    gold: Mapping[Hashable, Any]
    humans: Mapping[str, Mapping[Hashable, Any]]
    llms: Mapping[str, Mapping[Hashable, Any]] = field(default_factory=dict)
    #: Items each LLM failed on (unparsable, outside the label set, endpoint errors): counted,
    #: never scored as a default answer.
    llm_failures: Mapping[str, int] = field(default_factory=dict)
    models: Mapping[str, float] = field(default_factory=dict)
    texts: Mapping[Hashable, str] = field(default_factory=dict)
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
    late_included: bool = False

    def left_out(self) -> dict[str, Any]:
        """The JSON form of the invalid and late counts."""
        return {
            "invalid": dict(self.invalid),
            "late": dict(self.late),
            "late_edited": dict(self.late_edited),
            "late_included": self.late_included,
        }


@dataclass
class SubsetReport:
    """The computed report of one subset (``to_dict`` gives the JSON form)."""

    input: SubsetInput
    human: Score | None
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

    @property
    def headline_agreement(self) -> Agreement | None:
        want = HEADLINE_AGREEMENT[self.input.task_type]
        return next((a for a in self.agreement if a.method == want), None)

    @property
    def low_agreement(self) -> bool | None:
        """HUME's revision flag on the headline agreement; None where it is undefined."""
        return _flag(self.headline_agreement, agreement.low_agreement)

    def to_dict(self) -> dict[str, Any]:
        return {
            "subset": self.input.key,
            "task_name": self.input.task_name,
            "hf_subset": self.input.hf_subset,
            "task_type": self.input.task_type,
            "language": self.input.language,
            "human": None if self.human is None else _score_dict(self.human),
            "interval": None if self.interval is None else self.interval.to_dict(),
            "bootstrap": None if self.bootstrap is None else self.bootstrap.to_dict(),
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
    d = s.to_dict()
    # Per-item details (votes, mean ratings, per-query APs) are bulky: keep them out of the
    # summary; they stay on the Score object.
    d["details"] = {k: v for k, v in d["details"].items() if not isinstance(v, dict | list)}
    return d


def _flag(a: Agreement | None, fn: Any) -> bool | None:
    if a is None or not math.isfinite(a.value):
        return None
    return bool(fn(a))


# ------------------------------------------------------------------------------------------
# Scoring one rater or a group of raters


def human_score(task_type: str, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
    """HUME's aggregation for the type (flattening clustering sets to texts)."""
    if task_type == "classification":
        return aggregation.human_classification(gold, answers)
    if task_type == "sts":
        return aggregation.human_sts(gold, answers)
    if task_type == "reranking":
        return aggregation.human_reranking(gold, answers)
    if task_type == "clustering":
        flat_gold, flat_answers = flatten_clustering(gold, answers)
        return aggregation.human_clustering(flat_gold, flat_answers)
    raise ScoringError(f"unknown task type {task_type!r}")


def flatten_clustering(
    gold: Mapping[Hashable, Mapping[str, Any]], answers: Mapping[str, Mapping[Hashable, Any]]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Sets of texts → one text-level mapping (text ids are unique within a study subset).

    Group names are made set-specific so that "group_1" of two different sets never merge.
    """
    flat_gold = {f"{s}/{t}": lab for s, g in gold.items() for t, lab in g.items()}
    flat_answers = {
        rater: {f"{s}/{t}": f"{s}/{grp}" for s, a in given.items() if a for t, grp in a.items()}
        for rater, given in answers.items()
    }
    return flat_gold, flat_answers


def _single(task_type: str, gold: Mapping[Hashable, Any], answer: Mapping[Hashable, Any]) -> Score:
    """One rater (an LLM) scored the way one human annotator is."""
    return human_score(task_type, gold, {"rater": answer})


# ------------------------------------------------------------------------------------------
# Agreement


def _agreements(inp: SubsetInput) -> list[Agreement]:
    humans = {r: dict(a) for r, a in inp.humans.items()}
    t = inp.task_type
    if t == "classification":
        return [
            agreement.fleiss_kappa(humans),
            agreement.mean_pairwise_cohen_kappa(humans),
            agreement.percentage_agreement(humans),
            agreement.krippendorff_alpha(humans, level="nominal"),
        ]
    if t == "sts":
        return [
            agreement.mean_pairwise_spearman(humans),
            agreement.krippendorff_alpha(humans, level="interval"),
        ]
    if t == "reranking":
        return [
            agreement.reranking_agreement(humans, statistic=s)
            for s in ("spearman", "kendall_tau", "binary_kappa")
        ]
    _, flat = flatten_clustering(inp.gold, humans)
    return [agreement.mean_pairwise_ari(flat)]


_HUMAN_MACHINE_STAT = {
    "classification": "cohen_kappa",
    "sts": "spearman",
    "reranking": "reranking_binary_kappa",
    "clustering": "ari",
}


def _human_llm(inp: SubsetInput) -> dict[str, Agreement]:
    if not inp.llms or not inp.humans:
        return {}
    ratings: dict[str, Any] = {**inp.humans, **inp.llms}
    if inp.task_type == "clustering":
        _, ratings = flatten_clustering(inp.gold, ratings)
    overlap = set(inp.humans) & set(inp.llms)
    if overlap:
        raise ScoringError(f"{inp.key}: rater(s) both human and LLM: {sorted(overlap)}")
    return agreement.human_machine_agreement(
        ratings, list(inp.llms), statistic=_HUMAN_MACHINE_STAT[inp.task_type]
    )


# ------------------------------------------------------------------------------------------
# Intervals and planning


def _interval(inp: SubsetInput, score: Score) -> Interval:
    """Wilson (accuracy), Fisher z (Spearman), annotator range (clustering, reranking)."""
    if inp.task_type == "classification":
        n = int(score.n_items or 0)
        return intervals.wilson(round(score.value * n), n)
    if inp.task_type == "sts":
        return intervals.fisher_z(score.value, int(score.n_items or 0))
    return intervals.annotator_range(dict(score.per_rater), estimate=score.value)


def _per_item_statistic(inp: SubsetInput, score: Score) -> tuple[Any, Any] | None:
    """The human score written as a statistic of per-item records, for a fast bootstrap.

    Each aggregation decomposes over items: the majority vote of an item is fixed, so accuracy
    is a mean of per-item hits; a pair's mean rating is fixed, so Spearman is taken over
    resampled (gold, mean rating) pairs; each annotator's AP per query is fixed, so MAP is a
    mean over resampled queries (per annotator, then over annotators). Clustering has one set
    per subset: there is nothing to resample.

    Each statistic is vectorised (``intervals.bootstrap(vectorized=True)``): it takes a stack
    of resamples, shape (resamples, items, ...), and returns one value per resample, with the
    arithmetic a single resample had (``np.mean``; ``np.corrcoef`` of the ranks; ``np.nanmean``
    per annotator, then over annotators), so the intervals are the same to the bit.
    """
    d = score.details
    if inp.task_type == "classification":
        votes = d.get("votes") or {}
        hits = np.array([float(votes[i] == inp.gold[i]) for i in votes])
        return hits, lambda x: np.mean(x, axis=-1)
    if inp.task_type == "sts":
        means = d.get("mean_ratings") or {}
        pairs = np.array([(float(inp.gold[i]), float(m)) for i, m in means.items()])
        return pairs, _spearman_of_resamples
    if inp.task_type == "reranking":
        per = d.get("per_rater_per_query_ap") or {}
        queries = sorted({q for aps in per.values() for q in aps}, key=str)
        table = np.array(
            [[per[r].get(q, np.nan) for r in sorted(per)] for q in queries], dtype=float
        )

        def map_(x: np.ndarray) -> np.ndarray:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a rater without a query
                per_rater = np.nanmean(x, axis=-2)
                return np.nanmean(per_rater, axis=-1)

        return table, map_
    return None


def _spearman_of_resamples(x: np.ndarray) -> np.ndarray:
    """Spearman's rho of each resample of (gold, mean rating) pairs, shape (..., n, 2).

    ``np.corrcoef`` of the average ranks, step for step: centred ranks are multiples of 1/2, so
    their sums of products are exact in any order; then ``c * (1 / (n - 1))``, divided by each
    standard deviation in turn, clipped to [-1, 1]. NaN where a column is constant.
    """
    ranks = rankdata(x, axis=-2)
    n = x.shape[-2]
    centred = ranks - ranks.mean(axis=-2, keepdims=True)
    a, b = centred[..., 0], centred[..., 1]
    f = np.true_divide(1, n - 1)
    caa = np.sum(a * a, axis=-1) * f
    cbb = np.sum(b * b, axis=-1) * f
    cab = np.sum(a * b, axis=-1) * f
    with np.errstate(all="ignore"):
        rho = np.clip(cab / np.sqrt(caa) / np.sqrt(cbb), -1.0, 1.0)
    return np.where((caa == 0) | (cbb == 0), np.nan, rho)


def _bootstrap(inp: SubsetInput, score: Score) -> Interval | None:
    """Seeded BCa bootstrap over items (queries for reranking), see `_per_item_statistic`."""
    decomposed = _per_item_statistic(inp, score)
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
            vectorized=True,
        )
    except ScoringError:
        return None


def _planning(inp: SubsetInput, score: Score, interval: Interval, boot: Interval | None) -> dict:
    n = int(score.n_items or 0)
    hw = interval.half_width
    if inp.task_type == "classification":
        needed = intervals.wilson_n_for_half_width(min(max(score.value, 0.0), 1.0))
        method = "wilson_n_for_half_width(p = human accuracy)"
    elif inp.task_type == "sts":
        rho = max(min(score.value, 0.999), -0.999)
        needed = intervals.fisher_z_n_for_half_width(rho)
        method = "fisher_z_n_for_half_width(rho = human Spearman)"
    else:
        # The annotator range does not shrink with items; use the bootstrap half-width where
        # there is one and the usual 1/sqrt(n) scaling.
        ref = boot.half_width if boot is not None else None
        needed = math.ceil(n * (ref / TARGET_HALF_WIDTH) ** 2) if ref and n else None
        method = "n × (bootstrap half-width / 0.05)², 1/√n scaling" if needed else "unavailable"
    return {
        "n_items": n,
        "half_width": hw,
        "interval_method": interval.method,
        "target_half_width": TARGET_HALF_WIDTH,
        "n_items_for_target": needed,
        "method": method,
    }


# ------------------------------------------------------------------------------------------
# Items worth a look


def _item_answers(inp: SubsetInput, item: Hashable) -> dict[str, Any]:
    return {r: a[item] for r, a in inp.humans.items() if a.get(item) is not None}


def _disagree(task_type: str, values: list[Any]) -> bool:
    if len(values) < 2:
        return False
    if task_type == "sts":
        return max(values) - min(values) >= 2
    if task_type == "clustering":
        return False  # partitions are compared as a whole (mean pairwise ARI)
    return any(v != values[0] for v in values[1:])


def _agree_not_gold(task_type: str, values: list[Any], gold: Any) -> bool:
    if len(values) < 2 or _disagree(task_type, values):
        return False
    if task_type == "sts":
        return abs(float(np.mean(values)) - float(gold)) >= 2
    if task_type in ("classification", "reranking"):
        return all(v == values[0] for v in values) and values[0] != gold
    return False


def _item_lists(inp: SubsetInput) -> tuple[list[dict], list[dict]]:
    disagreements, suspects = [], []
    for item, g in inp.gold.items():
        answers = _item_answers(inp, item)
        values = list(answers.values())
        row = {"item": str(item), "text": inp.texts.get(item, ""), "gold": g, "answers": answers}
        if _disagree(inp.task_type, values):
            disagreements.append(row)
        elif _agree_not_gold(inp.task_type, values, g):
            suspects.append(row)
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
    return out


def evaluate_subset(inp: SubsetInput) -> SubsetReport:
    """Compute the whole report of one subset; a subset without annotations is reported empty."""
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
    human = interval = boot = None
    agreements: list[Agreement] = []
    if answered:
        try:
            human = human_score(inp.task_type, inp.gold, inp.humans)
            interval = _interval(inp, human)
            boot = _bootstrap(inp, human)
        except ScoringError as exc:
            warnings.append(f"human score undefined: {exc}")
        agreements = _agreements(inp)
    llm_scores: dict[str, Score] = {}
    for name, answers in inp.llms.items():
        try:
            llm_scores[name] = _single(inp.task_type, inp.gold, answers)
        except ScoringError as exc:
            warnings.append(f"{name}: score undefined: {exc}")
    positions = {
        name: intervals.compare_to_interval(value, interval) if interval else "no human interval"
        for name, value in {**inp.models, **{k: v.value for k, v in llm_scores.items()}}.items()
    }
    everyone = [v for v in inp.models.values()] + [s.value for s in llm_scores.values()]
    rank = None
    if human is not None:
        rank = 1 + sum(1 for v in everyone if v > human.value)
    disagreements, suspects = _item_lists(inp)
    planning = _planning(inp, human, interval, boot) if human and interval else {}
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
    )


__all__ = [
    "ANNOTATOR_METHOD",
    "HEADLINE_AGREEMENT",
    "SubsetInput",
    "SubsetReport",
    "evaluate_subset",
    "flatten_clustering",
    "human_score",
]
