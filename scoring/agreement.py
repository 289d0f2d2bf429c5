"""Inter-rater agreement for HUME: κ, α, percentage agreement, ARI, Spearman and reranking.

Why this module exists: HUME reports how far two annotators agree on each task, and uses low
agreement to flag tasks for revision. Label Studio Community computes none of this, so it is done
here, with every number carrying its method name, its interpretation band and its warnings.

Input shape
-----------
Categorical, ordinal and interval statistics take ``ratings``: a mapping
``rater_id -> {item_id: value}``. An item missing from a rater's mapping, or a value of ``None``
or float NaN, means that rater did not rate that item. Reranking takes
``rater_id -> {query_id: {candidate_id: mark}}`` (a sequence of marks is read by position).

Machine raters (embedding models, LLM annotators) are never pooled with humans: every
human–human function takes ``machine_raters`` and leaves those raters out (the ones it left out
are listed in ``details["excluded_machine_raters"]``; names that do not occur are ignored, so a
study-wide list can be passed). :func:`human_machine_agreement` reports each machine against the
humans apart.

Degenerate input
----------------
An empty ``ratings`` mapping, or a rater whose ratings are not a mapping, raises
:class:`~scoring.errors.InvalidInputError`. Input on which the statistic is undefined (fewer than
two human raters, no item rated twice, a single category used, constant ratings) does not raise:
it returns an :class:`~scoring.records.Agreement` with ``value`` NaN, band ``"undefined"`` and a
warning that says why. A report can then print every task, including the one-annotator subsets.

Bands
-----
κ-like statistics (Cohen's κ, Fleiss' κ, Krippendorff's α, ARI), as in the HUME paper, upper
bounds inclusive: < 0 ``"poor"``, ≤ 0.2 ``"slight"``, ≤ 0.4 ``"fair"``, ≤ 0.6 ``"moderate"``,
≤ 0.8 ``"substantial"``, > 0.8 ``"excellent"``.
Correlations (Spearman ρ, Kendall τ): < 0 ``"negative"``, ≤ 0.4 ``"weak"``, ≤ 0.7
``"moderate"``, > 0.7 ``"strong"`` (the paper's "ρ > 0.7 strong" threshold, with the usual
0.4 cut between weak and moderate).
Percentage agreement is not chance-corrected, so it gets the band ``"uncorrected"`` and no flag.
NaN gets ``"undefined"``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any, Literal

from scoring import kernels
from scoring._lazy import LazyModule
from scoring.errors import InvalidInputError
from scoring.records import Agreement
from scoring.validation import choose

# Loaded on first use: the leaderboard imports this module for its bands only.
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
else:
    np = LazyModule("numpy")

__all__ = [
    "KRIPPENDORFF_LEVELS",
    "MIN_ITEMS",
    "SKEW_THRESHOLD",
    "WARN_CONSTANT",
    "WARN_DROPPED_ITEMS",
    "WARN_FEWER_THAN_TWO_RATERS",
    "WARN_FEW_ITEMS",
    "WARN_NO_HUMANS",
    "WARN_NO_SHARED_ITEMS",
    "WARN_ONE_CATEGORY",
    "WARN_SKEWED",
    "WARN_UNDEFINED_COMPARISONS",
    "agreement_band",
    "categorical_agreements",
    "cohen_kappa",
    "correlation_band",
    "fleiss_kappa",
    "high_agreement",
    "human_machine_agreement",
    "kappa_band",
    "krippendorff_alpha",
    "low_agreement",
    "mean_pairwise_ari",
    "mean_pairwise_cohen_kappa",
    "mean_pairwise_spearman",
    "percentage_agreement",
    "ratings_from_matrix",
    "reranking_agreement",
    "reranking_agreements",
]

Ratings = Mapping[Any, Mapping[Hashable, Any]]
RerankMarks = Mapping[Any, Mapping[Hashable, Mapping[Hashable, Any] | Sequence[Any]]]
Scale = Literal["kappa", "correlation", "proportion"]

#: Fewer items than this trigger :data:`WARN_FEW_ITEMS`.
MIN_ITEMS = 10
#: A category holding more than this share of the ratings triggers :data:`WARN_SKEWED`.
SKEW_THRESHOLD = 0.9
KRIPPENDORFF_LEVELS = ("nominal", "ordinal", "interval", "ratio")

WARN_FEWER_THAN_TWO_RATERS = "fewer than two human raters: agreement is undefined"
WARN_NO_SHARED_ITEMS = "no item was rated by two raters: agreement is undefined"
WARN_FEW_ITEMS = "fewer than 10 items: agreement is unreliable"
WARN_ONE_CATEGORY = "only one category used: chance-corrected agreement is undefined"
WARN_SKEWED = (
    "skewed prevalence: one category holds more than 90% of ratings, "
    "so kappa can be low despite high raw agreement"
)
WARN_CONSTANT = "constant ratings: correlation is undefined"
WARN_UNDEFINED_COMPARISONS = "some comparisons were undefined and were left out of the mean"
WARN_DROPPED_ITEMS = "items rated by fewer than two raters were left out"
WARN_NO_HUMANS = "no human raters to compare the machine rater with"

_SCALE_BY_METHOD: dict[str, Scale] = {
    "kappa": "kappa",
    "alpha": "kappa",
    "ari": "kappa",
    "spearman": "correlation",
    "kendall": "correlation",
    "pearson": "correlation",
    "percentage": "proportion",
}


# --------------------------------------------------------------------------------------------
# Bands and flags
# --------------------------------------------------------------------------------------------


def kappa_band(value: float) -> str:
    """Band of a κ-like value (κ, α, ARI) as in the HUME paper; NaN gives ``"undefined"``."""
    if not math.isfinite(value):
        return "undefined"
    if value < 0:
        return "poor"
    for upper, name in ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial")):
        if value <= upper:
            return name
    return "excellent"


def correlation_band(value: float) -> str:
    """Band of a correlation (ρ, τ): negative / weak (≤0.4) / moderate (≤0.7) / strong."""
    if not math.isfinite(value):
        return "undefined"
    if value < 0:
        return "negative"
    if value <= 0.4:
        return "weak"
    if value <= 0.7:
        return "moderate"
    return "strong"


def agreement_band(value: float, scale: Scale) -> str:
    """Band of ``value`` on the given scale (``"kappa"``, ``"correlation"``, ``"proportion"``)."""
    choose(scale, ("kappa", "correlation", "proportion"), "agreement scale")
    if scale == "kappa":
        return kappa_band(value)
    if scale == "correlation":
        return correlation_band(value)
    return "undefined" if not math.isfinite(value) else "uncorrected"


def _scale_of(a: Agreement) -> Scale:
    """The scale recorded in ``details["scale"]``, else guessed from the method name."""
    scale = a.details.get("scale") if isinstance(a.details, Mapping) else None
    if scale == "kappa" or scale == "correlation" or scale == "proportion":
        return scale
    name = a.method.lower()
    # The last matching key in the method name wins ("reranking:mean_binary_kappa" -> kappa).
    found: tuple[int, Scale] | None = None
    for key, sc in _SCALE_BY_METHOD.items():
        pos = name.rfind(key)
        if pos >= 0 and (found is None or pos > found[0]):
            found = (pos, sc)
    if found is None:
        raise InvalidInputError(f"cannot tell the scale of agreement method {a.method!r}")
    return found[1]


def low_agreement(a: Agreement) -> bool:
    """True when the task should be revised: κ-like < 0.4 or correlation < 0.6 (HUME's rule).

    An undefined (NaN) agreement is neither low nor high: its band ``"undefined"`` and warnings
    say why. Percentage agreement is not chance-corrected and cannot be flagged: that raises.
    """
    scale = _scale_of(a)
    if scale == "proportion":
        raise InvalidInputError(
            "percentage agreement is not chance-corrected; flag on a kappa instead"
        )
    if not math.isfinite(a.value):
        return False
    return a.value < (0.4 if scale == "kappa" else 0.6)


def high_agreement(a: Agreement) -> bool:
    """True when the task is a reliable target: κ-like > 0.6 or correlation > 0.7."""
    scale = _scale_of(a)
    if scale == "proportion":
        raise InvalidInputError(
            "percentage agreement is not chance-corrected; flag on a kappa instead"
        )
    if not math.isfinite(a.value):
        return False
    return a.value > (0.6 if scale == "kappa" else 0.7)


# --------------------------------------------------------------------------------------------
# Input handling
# --------------------------------------------------------------------------------------------


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    return False


@dataclass
class _Table:
    """Human ratings after validation: raters in input order, items in first-seen order."""

    raters: list[Any]
    items: list[Hashable]
    values: dict[Any, dict[Hashable, Any]]
    excluded: list[Any]

    def raters_of(self, item: Hashable) -> list[Any]:
        return [r for r in self.raters if item in self.values[r]]


def _clean_value(value: Any, rater: Any, item: Hashable, numeric: bool) -> Any:
    if numeric:
        if isinstance(value, bool | np.bool_):
            return float(value)
        try:
            out = float(value)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"rater {rater!r}, item {item!r}: expected a number, got {value!r}"
            ) from None
        if not math.isfinite(out):
            raise InvalidInputError(f"rater {rater!r}, item {item!r}: infinite value")
        return out
    try:
        hash(value)
    except TypeError:
        raise InvalidInputError(
            f"rater {rater!r}, item {item!r}: a category must be hashable, got {value!r}"
        ) from None
    if isinstance(value, np.generic):
        return value.item()
    return value


def _prepare(ratings: Ratings, machine_raters: Collection[Any], *, numeric: bool) -> _Table:
    """Validate ``ratings``, drop machine raters and missing values."""
    if not isinstance(ratings, Mapping):
        raise InvalidInputError(
            f"ratings: expected a mapping rater -> {{item: value}}, got {type(ratings).__name__}"
        )
    if len(ratings) == 0:
        raise InvalidInputError("ratings: no raters")
    if isinstance(machine_raters, str):
        raise InvalidInputError("machine_raters: expected a collection of rater ids, got a str")
    machines = set(machine_raters)
    raters: list[Any] = []
    excluded: list[Any] = []
    values: dict[Any, dict[Hashable, Any]] = {}
    items: dict[Hashable, None] = {}
    for rater, answers in ratings.items():
        if not isinstance(answers, Mapping):
            raise InvalidInputError(
                f"rater {rater!r}: expected a mapping item -> value, got {type(answers).__name__}"
            )
        if rater in machines:
            excluded.append(rater)
            continue
        clean: dict[Hashable, Any] = {}
        for item, value in answers.items():
            if _is_missing(value):
                continue
            clean[item] = _clean_value(value, rater, item, numeric)
            items.setdefault(item, None)
        raters.append(rater)
        values[rater] = clean
    return _Table(raters=raters, items=list(items), values=values, excluded=excluded)


def ratings_from_matrix(
    matrix: Any,
    raters: Sequence[Any] | None = None,
    items: Sequence[Hashable] | None = None,
) -> dict[Any, dict[Hashable, Any]]:
    """Turn a raters × items matrix (NaN or ``None`` = missing) into the ratings mapping.

    Convenient for reliability-data tables such as Krippendorff's examples.
    """
    arr = np.asarray(matrix, dtype=object)
    if arr.ndim != 2:
        raise InvalidInputError(f"matrix: expected 2-D raters × items, got shape {arr.shape}")
    n_r, n_i = arr.shape
    rater_ids = list(range(n_r)) if raters is None else list(raters)
    item_ids = list(range(n_i)) if items is None else list(items)
    if len(rater_ids) != n_r or len(item_ids) != n_i:
        raise InvalidInputError(
            f"matrix of shape {arr.shape} does not match {len(rater_ids)} raters "
            f"and {len(item_ids)} items"
        )
    if len(set(rater_ids)) != n_r or len(set(item_ids)) != n_i:
        raise InvalidInputError("matrix: rater and item ids must be unique")
    out: dict[Any, dict[Hashable, Any]] = {}
    for r, rid in enumerate(rater_ids):
        out[rid] = {
            item_ids[i]: arr[r, i].item() if isinstance(arr[r, i], np.generic) else arr[r, i]
            for i in range(n_i)
            if not _is_missing(arr[r, i])
        }
    return out


# --------------------------------------------------------------------------------------------
# Result construction
# --------------------------------------------------------------------------------------------


def _mean(values: Iterable[float]) -> float:
    """Mean with :func:`math.fsum`, so the result does not depend on the order of terms."""
    vals = list(values)
    return math.fsum(vals) / len(vals) if vals else math.nan


def _result(
    value: float,
    method: str,
    scale: Scale,
    table: _Table | None,
    n_items: int,
    warnings: Iterable[str],
    details: Mapping[str, Any],
    n_raters: int | None = None,
) -> Agreement:
    warns = tuple(dict.fromkeys(warnings))  # dedupe, keep order
    full = {"scale": scale, **details}
    if table is not None:
        full["excluded_machine_raters"] = list(table.excluded)
    value = float(value)
    return Agreement(
        value=value,
        method=method,
        band=agreement_band(value, scale),
        n_raters=n_raters if n_raters is not None else (len(table.raters) if table else 0),
        n_items=int(n_items),
        warnings=warns,
        details=full,
    )


def _undefined(
    method: str, scale: Scale, table: _Table, warning: str, details: Mapping[str, Any] | None = None
) -> Agreement:
    return _result(math.nan, method, scale, table, 0, [warning], details or {})


def _size_warnings(n_items: int) -> list[str]:
    return [WARN_FEW_ITEMS] if 0 < n_items < MIN_ITEMS else []


def _skew_warnings(labels: Iterable[Hashable]) -> tuple[list[str], float]:
    counts = Counter(labels)
    total = sum(counts.values())
    if total == 0:
        return [], math.nan
    top = max(counts.values()) / total
    return ([WARN_SKEWED] if top > SKEW_THRESHOLD else []), top


# --------------------------------------------------------------------------------------------
# Pairwise machinery
# --------------------------------------------------------------------------------------------


def _shared(table: _Table, a: Any, b: Any) -> list[Hashable]:
    va, vb = table.values[a], table.values[b]
    return [i for i in va if i in vb]


def cohen_kappa(x: Sequence[Hashable], y: Sequence[Hashable]) -> float:
    """Cohen's κ of two aligned label sequences; NaN when chance agreement is 1 (one category).

    Computed from integer counts, so it is exactly symmetric in ``x`` and ``y``.
    """
    if len(x) != len(y):
        raise InvalidInputError(f"length mismatch: x={len(x)}, y={len(y)}")
    n = len(x)
    if n == 0:
        return math.nan
    agree = sum(1 for a, b in zip(x, y, strict=True) if a == b)
    cx, cy = Counter(x), Counter(y)
    pe_num = sum(c * cy.get(k, 0) for k, c in cx.items())
    denom = n * n - pe_num
    if denom == 0:
        return math.nan
    return (agree * n - pe_num) / denom


def _pairwise(
    table: _Table,
    method: str,
    scale: Scale,
    pair_value: Callable[[list[Any], list[Any]], float],
    *,
    min_shared: int = 1,
    undefined_warning: str = WARN_ONE_CATEGORY,
    categorical: bool = True,
) -> Agreement:
    """Mean over rater pairs of ``pair_value`` on the items both raters rated."""
    if len(table.raters) < 2:
        return _undefined(method, scale, table, WARN_FEWER_THAN_TWO_RATERS)
    pairs: list[dict[str, Any]] = []
    used_items: dict[Hashable, None] = {}
    for a, b in combinations(table.raters, 2):
        shared = _shared(table, a, b)
        if len(shared) < min_shared:
            continue
        xa = [table.values[a][i] for i in shared]
        xb = [table.values[b][i] for i in shared]
        value = pair_value(xa, xb)
        pairs.append({"raters": [a, b], "value": float(value), "n_items": len(shared)})
        used_items.update(dict.fromkeys(shared))
    if not pairs:
        return _undefined(method, scale, table, WARN_NO_SHARED_ITEMS)
    defined = [p["value"] for p in pairs if math.isfinite(p["value"])]
    n_items = len(used_items)
    warnings = _size_warnings(n_items)
    top_share = math.nan
    if categorical:
        labels = [
            table.values[r][i] for r in table.raters for i in used_items if i in table.values[r]
        ]
        skew, top_share = _skew_warnings(labels)
        warnings += skew
    if not defined:
        warnings.insert(0, undefined_warning)
    elif len(defined) < len(pairs):
        warnings.append(WARN_UNDEFINED_COMPARISONS)
    if len(used_items) < len(table.items):
        warnings.append(WARN_DROPPED_ITEMS)
    details: dict[str, Any] = {
        "pairs": pairs,
        "n_pairs": len(pairs),
        "n_pairs_defined": len(defined),
        "n_items_total": len(table.items),
        "n_items_dropped": len(table.items) - n_items,
    }
    if categorical:
        details["top_category_share"] = top_share
    return _result(_mean(defined), method, scale, table, n_items, warnings, details)


# --------------------------------------------------------------------------------------------
# Categorical statistics
# --------------------------------------------------------------------------------------------


def mean_pairwise_cohen_kappa(
    ratings: Ratings, *, machine_raters: Collection[Any] = ()
) -> Agreement:
    """Mean over human rater pairs of Cohen's κ on the items both rated (HUME's pairwise κ).

    Pairs whose κ is undefined (both raters used one and the same category) are left out of the
    mean, with a warning; if every pair is undefined the value is NaN.
    """
    table = _prepare(ratings, machine_raters, numeric=False)
    return _pairwise(table, "mean_pairwise_cohen_kappa", "kappa", cohen_kappa)


def _percent(x: Sequence[Any], y: Sequence[Any]) -> float:
    return sum(1 for a, b in zip(x, y, strict=True) if a == b) / len(x)


def percentage_agreement(ratings: Ratings, *, machine_raters: Collection[Any] = ()) -> Agreement:
    """Mean over human rater pairs of the share of shared items given the same answer.

    Not chance-corrected: reported next to κ (as HUME does), band ``"uncorrected"``.
    """
    table = _prepare(ratings, machine_raters, numeric=False)
    return _pairwise(table, "mean_percentage_agreement", "proportion", _percent)


def categorical_agreements(
    ratings: Ratings, *, machine_raters: Collection[Any] = ()
) -> list[Agreement]:
    """[Fleiss' κ, mean pairwise Cohen's κ, percentage agreement, nominal Krippendorff's α]
    from one validation of ``ratings``: each what its own function gives."""
    table = _prepare(ratings, machine_raters, numeric=False)
    return [
        _fleiss(table),
        _pairwise(table, "mean_pairwise_cohen_kappa", "kappa", cohen_kappa),
        _pairwise(table, "mean_percentage_agreement", "proportion", _percent),
        _krippendorff(table, "nominal"),
    ]


def fleiss_kappa(ratings: Ratings, *, machine_raters: Collection[Any] = ()) -> Agreement:
    """Fleiss' κ, generalised to items with unequal numbers of raters.

    Items rated by fewer than two human raters are left out (counted in
    ``details["n_items_dropped"]``). For the remaining N items, with n_i raters on item i and
    n_ij of them choosing category j:

        P_i = Σ_j n_ij (n_ij − 1) / (n_i (n_i − 1))      observed agreement on item i
        P̄   = (1/N) Σ_i P_i
        π_j = (1/N) Σ_i n_ij / n_i                        category prevalence
        P̄_e = Σ_j π_j²
        κ   = (P̄ − P̄_e) / (1 − P̄_e)

    This is Gwet's (2014) form of Fleiss' κ for varying rater counts; when every n_i equals n it
    is exactly Fleiss (1971). With P̄_e = 1 (one category) κ is NaN with a warning.
    """
    return _fleiss(_prepare(ratings, machine_raters, numeric=False))


def _fleiss(table: _Table) -> Agreement:
    method = "fleiss_kappa"
    if len(table.raters) < 2:
        return _undefined(method, "kappa", table, WARN_FEWER_THAN_TWO_RATERS)
    kept: list[Counter[Hashable]] = []
    labels: list[Hashable] = []
    for item in table.items:
        answers = [table.values[r][item] for r in table.raters_of(item)]
        if len(answers) >= 2:
            kept.append(Counter(answers))
            labels.extend(answers)
    n_items = len(kept)
    if n_items == 0:
        return _undefined(method, "kappa", table, WARN_NO_SHARED_ITEMS)
    p_items: list[float] = []
    prevalence: dict[Hashable, list[float]] = {}
    for counts in kept:
        n_i = sum(counts.values())
        p_items.append(sum(c * (c - 1) for c in counts.values()) / (n_i * (n_i - 1)))
        for cat, c in counts.items():
            prevalence.setdefault(cat, []).append(c / n_i)
    p_bar = _mean(p_items)
    pi = {cat: math.fsum(v) / n_items for cat, v in prevalence.items()}
    p_e = math.fsum(p * p for p in pi.values())
    warnings = _size_warnings(n_items)
    skew, top = _skew_warnings(labels)
    warnings += skew
    dropped = len(table.items) - n_items
    if dropped:
        warnings.append(WARN_DROPPED_ITEMS)
    if len(pi) == 1:
        value = math.nan
        warnings.insert(0, WARN_ONE_CATEGORY)
    else:
        value = (p_bar - p_e) / (1.0 - p_e)
    rater_counts = sorted({sum(c.values()) for c in kept})
    details = {
        "observed_agreement": p_bar,
        "expected_agreement": p_e,
        "category_prevalence": {str(k): v for k, v in pi.items()},
        "raters_per_item": rater_counts,
        "equal_raters_per_item": len(rater_counts) == 1,
        "n_items_total": len(table.items),
        "n_items_dropped": dropped,
        "top_category_share": top,
        "formula": "Fleiss (1971); unequal rater counts: Gwet (2014), items with <2 raters dropped",
    }
    return _result(value, method, "kappa", table, n_items, warnings, details)


# --------------------------------------------------------------------------------------------
# Krippendorff's alpha
# --------------------------------------------------------------------------------------------


def _delta2(domain: list[Any], marginals: NDArray[Any], level: str) -> NDArray[Any]:
    """Squared difference δ²(c, k) between the values of ``domain`` at the given level."""
    m = len(domain)
    if level == "nominal":
        return 1.0 - np.eye(m)
    v = np.asarray(domain, dtype=float)
    if level == "interval":
        squared: NDArray[Any] = (v[:, None] - v[None, :]) ** 2
        return squared
    if level == "ratio":
        s = v[:, None] + v[None, :]
        d = v[:, None] - v[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(s == 0, 0.0, (d / np.where(s == 0, 1.0, s)) ** 2)
        return out
    # ordinal: (Σ_{g=c..k} n_g − (n_c + n_k)/2)², values in ascending order
    cum = np.concatenate([[0.0], np.cumsum(marginals)])
    lo = np.minimum.outer(np.arange(m), np.arange(m))
    hi = np.maximum.outer(np.arange(m), np.arange(m))
    between = cum[hi + 1] - cum[lo]
    ordinal: NDArray[Any] = (between - (marginals[:, None] + marginals[None, :]) / 2.0) ** 2
    return ordinal


def krippendorff_alpha(
    ratings: Ratings,
    *,
    level: str = "nominal",
    machine_raters: Collection[Any] = (),
) -> Agreement:
    """Krippendorff's α with missing values, from the coincidence matrix (Krippendorff 2011).

    Each item with m_u ≥ 2 values adds 1/(m_u − 1) to o_ck for every ordered pair of its values
    from different raters; n_c = Σ_k o_ck, n = Σ_c n_c. Then

        α = 1 − (n − 1) Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck

    with δ² nominal (0/1), ordinal (rank distance on the marginals), interval ((c−k)²) or ratio
    (((c−k)/(c+k))²). Items with fewer than two values are not pairable and are left out.
    Ordinal, interval and ratio need numeric values. No variation (expected disagreement 0) gives
    NaN with a warning.
    """
    choose(level, KRIPPENDORFF_LEVELS, "Krippendorff level")
    return _krippendorff(_prepare(ratings, machine_raters, numeric=level != "nominal"), level)


def _krippendorff(table: _Table, level: str) -> Agreement:
    numeric = level != "nominal"
    method = f"krippendorff_alpha:{level}"
    if len(table.raters) < 2:
        return _undefined(method, "kappa", table, WARN_FEWER_THAN_TWO_RATERS)
    units = []
    for item in table.items:
        vals = [table.values[r][item] for r in table.raters_of(item)]
        if len(vals) >= 2:
            units.append(vals)
    if not units:
        return _undefined(method, "kappa", table, WARN_NO_SHARED_ITEMS)
    labels = [v for u in units for v in u]
    domain = sorted(set(labels)) if numeric else list(dict.fromkeys(labels))
    index = {v: i for i, v in enumerate(domain)}
    m = len(domain)
    # Per unit: (outer(counts, counts) - diag(counts)) / (m_u - 1); added up unit by unit
    # (a cumulative sum adds in that order, so the result does not depend on batching).
    sizes = np.array([len(u) for u in units])
    codes = np.array([index[v] for u in units for v in u])
    unit_of = np.repeat(np.arange(len(units)), sizes)
    counts = np.bincount(unit_of * m + codes, minlength=len(units) * m)
    counts = counts.reshape(len(units), m).astype(float)
    pairs = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(m)
    coincidence = np.cumsum(pairs / (sizes - 1)[:, None, None], axis=0)[-1]
    marginals = coincidence.sum(axis=1)
    n = float(marginals.sum())
    d2 = _delta2(domain, marginals, level)
    observed = float((coincidence * d2).sum())
    expected = float((np.outer(marginals, marginals) * d2).sum())
    n_items = len(units)
    warnings = _size_warnings(n_items)
    skew, top = _skew_warnings(labels)
    warnings += skew
    if n_items < len(table.items):
        warnings.append(WARN_DROPPED_ITEMS)
    if expected <= 0.0:
        value = math.nan
        warnings.insert(0, WARN_ONE_CATEGORY)
    else:
        value = 1.0 - (n - 1.0) * observed / expected
    details = {
        "level": level,
        "n_pairable_values": n,
        "observed_disagreement": observed / n,
        "expected_disagreement": expected / (n * (n - 1.0)) if n > 1 else math.nan,
        "n_items_total": len(table.items),
        "n_items_dropped": len(table.items) - n_items,
        "top_category_share": top,
    }
    return _result(value, method, "kappa", table, n_items, warnings, details)


# --------------------------------------------------------------------------------------------
# Clustering and STS
# --------------------------------------------------------------------------------------------


def _ari(x: Sequence[Hashable], y: Sequence[Hashable]) -> float:
    # Cluster ids are only names: map to integers so mixed types are fine.
    ix = {v: i for i, v in enumerate(dict.fromkeys(x))}
    iy = {v: i for i, v in enumerate(dict.fromkeys(y))}
    return kernels.adjusted_rand(np.array([ix[v] for v in x]), np.array([iy[v] for v in y]))


def mean_pairwise_ari(partitions: Ratings, *, machine_raters: Collection[Any] = ()) -> Agreement:
    """Mean over human rater pairs of the adjusted Rand index between their partitions.

    ``partitions`` maps rater -> {item: cluster id}; cluster ids are arbitrary names. Pairs that
    share fewer than two items are skipped. HUME's clustering agreement.
    """
    table = _prepare(partitions, machine_raters, numeric=False)
    return _pairwise(table, "mean_pairwise_ari", "kappa", _ari, min_shared=2, categorical=False)


def _spearman(x: Sequence[float], y: Sequence[float]) -> float:
    ax, ay = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(ax) < 2 or np.all(ax == ax[0]) or np.all(ay == ay[0]):
        return math.nan
    return kernels.spearman(ax, ay)[0]


def _kendall(x: Sequence[float], y: Sequence[float]) -> float:
    ax, ay = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(ax) < 2 or np.all(ax == ax[0]) or np.all(ay == ay[0]):
        return math.nan
    return kernels.kendall_tau_b(ax, ay)


def mean_pairwise_spearman(ratings: Ratings, *, machine_raters: Collection[Any] = ()) -> Agreement:
    """Mean over human rater pairs of Spearman ρ between their ratings (HUME's STS agreement).

    A pair where either rater gave one constant rating has no ρ; it is left out with a warning.
    """
    table = _prepare(ratings, machine_raters, numeric=True)
    return _pairwise(
        table,
        "mean_pairwise_spearman",
        "correlation",
        _spearman,
        min_shared=2,
        undefined_warning=WARN_CONSTANT,
        categorical=False,
    )


# --------------------------------------------------------------------------------------------
# Reranking
# --------------------------------------------------------------------------------------------

_RERANK_STATS = ("spearman", "kendall_tau", "binary_kappa")


def _prepare_marks(
    marks: RerankMarks, machine_raters: Collection[Any]
) -> tuple[list[Any], dict[Any, dict[Hashable, dict[Hashable, float]]], list[Any]]:
    if not isinstance(marks, Mapping):
        raise InvalidInputError(
            "marks: expected a mapping rater -> {query: {candidate: mark}}, "
            f"got {type(marks).__name__}"
        )
    if len(marks) == 0:
        raise InvalidInputError("marks: no raters")
    if isinstance(machine_raters, str):
        raise InvalidInputError("machine_raters: expected a collection of rater ids, got a str")
    machines = set(machine_raters)
    raters, excluded = [], []
    out: dict[Any, dict[Hashable, dict[Hashable, float]]] = {}
    for rater, queries in marks.items():
        if not isinstance(queries, Mapping):
            raise InvalidInputError(f"rater {rater!r}: expected a mapping query -> marks")
        if rater in machines:
            excluded.append(rater)
            continue
        per_query: dict[Hashable, dict[Hashable, float]] = {}
        for query, cands in queries.items():
            if isinstance(cands, Mapping):
                pairs = list(cands.items())
            elif isinstance(cands, Sequence) and not isinstance(cands, str):
                pairs = list(enumerate(cands))
            else:
                raise InvalidInputError(
                    f"rater {rater!r}, query {query!r}: expected candidate marks, got {cands!r}"
                )
            per_query[query] = {
                c: _clean_value(v, rater, (query, c), numeric=True)
                for c, v in pairs
                if not _is_missing(v)
            }
        raters.append(rater)
        out[rater] = per_query
    return raters, out, excluded


def reranking_agreement(
    marks: RerankMarks,
    *,
    statistic: str = "spearman",
    machine_raters: Collection[Any] = (),
) -> Agreement:
    """Agreement on reranking marks, per query, the way HUME computed it.

    For every human rater pair and every query both marked, on the candidates both marked:
    Spearman ρ and Kendall τ-b between the marks, and Cohen's κ between the binary marks
    (mark > 0 = relevant). Undefined values (a rater with constant marks on that query) are left
    out; each statistic is the mean of its defined (pair, query) values. ``statistic`` picks the
    headline ``value``; ``details`` always holds all three (``mean_spearman``,
    ``mean_kendall_tau``, ``mean_binary_kappa``), ``spearman_std`` (population SD),
    ``n_comparisons`` (defined Spearman values) and ``pooled_binary_kappa`` (κ over all
    (query, candidate) marks of a pair, mean over pairs). With binary marks ρ and τ-b coincide.
    """
    return reranking_agreements(marks, statistics=(statistic,), machine_raters=machine_raters)[0]


def reranking_agreements(
    marks: RerankMarks,
    *,
    statistics: Sequence[str] = _RERANK_STATS,
    machine_raters: Collection[Any] = (),
) -> list[Agreement]:
    """:func:`reranking_agreement` for each of ``statistics``, in that order, from one pass
    over the (pair, query) comparisons (each result is what the single call gives)."""
    for statistic in statistics:
        choose(statistic, _RERANK_STATS, "reranking statistic")
    raters, values, excluded = _prepare_marks(marks, machine_raters)
    table = _Table(raters=raters, items=[], values={}, excluded=excluded)
    all_queries: dict[Hashable, None] = {}
    for r in raters:
        all_queries.update(dict.fromkeys(values[r]))
    table.items = list(all_queries)
    if len(raters) < 2:
        return [
            _undefined(f"reranking:mean_{s}", _rerank_scale(s), table, WARN_FEWER_THAN_TWO_RATERS)
            for s in statistics
        ]
    rho, tau, kap, pooled, n_undefined, used, binary_labels = _rerank_comparisons(raters, values)
    n_items = len(used)
    skew, top = _skew_warnings(binary_labels)
    pooled_defined = [p for p in pooled if math.isfinite(p)]
    out = []
    for statistic in statistics:
        method = f"reranking:mean_{statistic}"
        scale = _rerank_scale(statistic)
        if n_items == 0:
            out.append(_undefined(method, scale, table, WARN_NO_SHARED_ITEMS))
            continue
        chosen = {"spearman": rho, "kendall_tau": tau, "binary_kappa": kap}[statistic]
        warnings = _size_warnings(n_items)
        if statistic == "binary_kappa":
            warnings += skew
        if not chosen:
            warnings.insert(0, WARN_ONE_CATEGORY if statistic == "binary_kappa" else WARN_CONSTANT)
        elif n_undefined[statistic]:
            warnings.append(WARN_UNDEFINED_COMPARISONS)
        if n_items < len(table.items):
            warnings.append(WARN_DROPPED_ITEMS)
        details = {
            "statistic": statistic,
            "mean_spearman": _mean(rho),
            "mean_kendall_tau": _mean(tau),
            "mean_binary_kappa": _mean(kap),
            "spearman_std": float(np.std(rho)) if len(rho) > 1 else 0.0,
            "n_comparisons": len(rho),
            "n_kendall_comparisons": len(tau),
            "n_kappa_comparisons": len(kap),
            "n_undefined": dict(n_undefined),
            "pooled_binary_kappa": _mean(pooled_defined),
            "relevant_share": (
                (sum(binary_labels) / len(binary_labels)) if binary_labels else math.nan
            ),
            "top_category_share": top,
            "n_items_total": len(table.items),
        }
        out.append(_result(_mean(chosen), method, scale, table, n_items, warnings, details))
    return out


def _rerank_comparisons(
    raters: list[Any], values: dict[Any, dict[Hashable, dict[Hashable, float]]]
) -> tuple[
    list[float],
    list[float],
    list[float],
    list[float],
    dict[str, int],
    dict[Hashable, None],
    list[int],
]:
    """One pass over every (rater pair, shared query) with at least two shared candidates: the
    defined ρ, τ-b and binary κ per comparison, each pair's pooled κ, how many were undefined,
    the queries used and every binary mark seen (for the skew warnings)."""
    rho: list[float] = []
    tau: list[float] = []
    kap: list[float] = []
    pooled: list[float] = []
    n_undefined = {"spearman": 0, "kendall_tau": 0, "binary_kappa": 0}
    used: dict[Hashable, None] = {}
    binary_labels: list[int] = []
    for a, b in combinations(raters, 2):
        pool_a: list[int] = []
        pool_b: list[int] = []
        for q in values[a]:
            if q not in values[b]:
                continue
            ca, cb = values[a][q], values[b][q]
            shared = [c for c in ca if c in cb]
            if len(shared) < 2:
                continue
            used[q] = None
            xa = [ca[c] for c in shared]
            xb = [cb[c] for c in shared]
            ba = [int(v > 0) for v in xa]
            bb = [int(v > 0) for v in xb]
            pool_a += ba
            pool_b += bb
            binary_labels += ba + bb
            for name, val, bucket in (
                ("spearman", _spearman(xa, xb), rho),
                ("kendall_tau", _kendall(xa, xb), tau),
                ("binary_kappa", cohen_kappa(ba, bb), kap),
            ):
                if math.isfinite(val):
                    bucket.append(val)
                else:
                    n_undefined[name] += 1
        if pool_a:
            pooled.append(cohen_kappa(pool_a, pool_b))
    return rho, tau, kap, pooled, n_undefined, used, binary_labels


def _rerank_scale(statistic: str) -> Scale:
    return "kappa" if statistic == "binary_kappa" else "correlation"


# --------------------------------------------------------------------------------------------
# Human–machine agreement
# --------------------------------------------------------------------------------------------

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
    (other machines are ignored), then the mean over humans. ``statistic`` is one of
    ``cohen_kappa``, ``percentage_agreement``, ``spearman``, ``ari``, ``reranking_spearman``,
    ``reranking_kendall_tau``, ``reranking_binary_kappa``; ``ratings`` has the shape that
    statistic's human–human function takes. Returns ``{machine_id: Agreement}`` with method
    ``"human_machine:<statistic>"``, the per-human values in ``details["per_human"]``,
    ``n_raters`` = number of humans and ``n_items`` = most items shared with one human.
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
