"""Summarization: mteb's per-text correlations, and the human score built on them.

mteb's ``AbsTaskSummarization`` scores, for each text, how a quality score of each machine
summary (for a model: its best cosine to the reference summaries) correlates with the expert
relevance scores of those summaries, then averages over texts: scipy's Spearman (the main
score, ``cosine_spearman``) and Pearson, text by text, plain means. A text is skipped where the
expert scores are constant, or where a predicted score list is constant (its correlation is
undefined): ``SummarizationEvaluator.__call__`` drops it before any correlation is taken.

A person answers the same question a model does: each summary of a text rated 1–5, so their
ratings take the place of the model's similarities and the same per-text Spearman against the
experts follows. This is agreement with the expert panel, not a score against ground truth: the
gold is itself human judgment. Several annotators become one human score by their mean rating
per summary (the rule HUME uses for STS), then the same per-text Spearman. A text whose ratings
are constant for a rater (every summary rated alike) is skipped for that rater, as mteb skips a
text where a model's scores are constant, and counted in ``details``. The procedure
(``ml_backend/procedures/summarization.py``) scores a model with :func:`summarization_metrics`,
so humans and models share one computation.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scoring.aggregation.common import Answers, collect, rater_error
from scoring.errors import DegenerateInputError, InvalidInputError
from scoring.records import Agreement, Score

__all__ = [
    "MAIN_SCORE",
    "RATING_SCALE",
    "alpha_by_texts",
    "flatten",
    "human_summarization",
    "mean_of_texts",
    "summarization_metrics",
    "text_correlations",
]

#: mteb's main score of a Summarization task (SummEvalSummarization.v2).
MAIN_SCORE = "cosine_spearman"
#: The rating scale a person answers on: SummEval's relevance scale.
RATING_SCALE = (1, 5)


def _constant(values: Sequence[float]) -> bool:
    """Tell a constant list as mteb does: one distinct value (``len(set(scores)) == 1``)."""
    return len(set(values)) == 1


def text_correlations(
    gold: Sequence[float], predicted: Sequence[float]
) -> tuple[float, float] | None:
    """Spearman and Pearson of one text's predicted scores against its gold, as mteb takes them.

    Args:
        gold: the expert score of each machine summary of the text.
        predicted: a score per summary (a model's similarity, a person's rating), same order.

    Returns:
        ``(spearman, pearson)`` (scipy's ``spearmanr`` / ``pearsonr`` statistics); None where
        either side is constant, the case mteb skips.

    Raises:
        InvalidInputError: lengths differ, or fewer than two summaries.
    """
    from scipy.stats import pearsonr, spearmanr

    if len(gold) != len(predicted):
        raise InvalidInputError(f"gold has {len(gold)} scores, predictions {len(predicted)}")
    if len(gold) < 2:
        raise InvalidInputError("a text needs at least two summaries to correlate")
    g = [float(x) for x in gold]
    p = [float(x) for x in predicted]
    if _constant(g) or _constant(p):
        return None
    return float(spearmanr(g, p).statistic), float(pearsonr(g, p).statistic)


def summarization_metrics(
    gold: Sequence[Sequence[float]],
    cosine: Sequence[Sequence[float]],
    dot: Sequence[Sequence[float]],
    similarity: Sequence[Sequence[float]],
) -> dict[str, float]:
    """Compute mteb's Summarization metrics from per-summary scores, text by text.

    Args:
        gold: per text, the expert score of each machine summary.
        cosine: per text, each summary's best cosine to the references.
        dot: per text, each summary's best dot product to the references.
        similarity: per text, each summary's best similarity by the model's own function.

    Returns:
        ``cosine_spearman``, ``cosine_pearson``, ``dot_spearman``, ``dot_pearson``,
        ``spearman``, ``pearson`` (means over the texts kept; NaN where none is) and
        ``n_texts_skipped``.

    Raises:
        InvalidInputError: the lists differ in length.
    """
    from scipy.stats import pearsonr, spearmanr

    if not len(gold) == len(cosine) == len(dot) == len(similarity):
        raise InvalidInputError("gold, cosine, dot and similarity differ in length")
    out: dict[str, list[float]] = {
        k: [] for k in ("cosine_spearman", "cosine_pearson", "dot_spearman", "dot_pearson")
    }
    out.update(spearman=[], pearson=[])
    skipped = 0
    for g, c, d, s in zip(gold, cosine, dot, similarity, strict=True):
        if _constant(g) or _constant(d) or _constant(c):  # mteb's skip rule, in its order
            skipped += 1
            continue
        for name, pred in (("cosine", c), ("dot", d), ("", s)):
            prefix = f"{name}_" if name else ""
            out[prefix + "spearman"].append(float(spearmanr(g, pred).statistic))
            out[prefix + "pearson"].append(float(pearsonr(g, pred).statistic))
    scores = {k: float(np.mean(v)) if v else float("nan") for k, v in out.items()}
    scores["n_texts_skipped"] = skipped
    return scores


def mean_of_texts(values: NDArray[Any]) -> float:
    """The mean of per-text correlations, texts skipped (NaN) left out; NaN where all are.

    The bootstrap's statistic: a resample of texts is scored as the full set is.

    Args:
        values: per text, its Spearman or NaN where the text is skipped.

    Returns:
        The mean over the texts kept.
    """
    x = np.asarray(values, dtype=float)
    kept = x[np.isfinite(x)]
    return float(np.mean(kept)) if kept.size else float("nan")


def _rating(rater: str, item: Hashable, sid: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInputError(
            f"answers[{rater!r}][{item!r}][{sid!r}]: expected a rating, got {value!r}"
        )
    if not math.isfinite(float(value)):
        raise InvalidInputError(f"answers[{rater!r}][{item!r}][{sid!r}]: not a finite number")
    return float(value)


def _ratings(rater: str, item: Hashable, gold: Mapping[str, Any], answer: Any) -> dict[str, float]:
    """One rater's answer to one text: a rating for every summary of gold, nothing else."""
    if not isinstance(answer, Mapping):
        raise InvalidInputError(
            f"answers[{rater!r}][{item!r}]: expected {{summary id: rating}}, got {answer!r}"
        )
    keys = {str(k) for k in answer}
    if keys != set(gold):
        missing = sorted(set(gold) - keys)
        extra = sorted(keys - set(gold))
        raise InvalidInputError(
            f"answers[{rater!r}][{item!r}]: must rate every summary "
            f"(missing {missing[:5]!r}, unknown {extra[:5]!r})"
        )
    return {str(k): _rating(rater, item, str(k), v) for k, v in answer.items()}


def _gold(gold: Mapping[Hashable, Any]) -> dict[Hashable, dict[str, float]]:
    out: dict[Hashable, dict[str, float]] = {}
    for item, scores in gold.items():
        if not isinstance(scores, Mapping) or len(scores) < 2:
            raise InvalidInputError(
                f"gold[{item!r}]: expected {{summary id: expert score}} for two or more summaries"
            )
        out[item] = {str(k): float(v) for k, v in scores.items()}
    return out


def _per_text(
    gold: Mapping[Hashable, Mapping[str, float]],
    ratings: Mapping[Hashable, Mapping[str, float]],
) -> tuple[dict[Hashable, float | None], dict[Hashable, float | None], int, int]:
    """Correlate each text's ratings with its gold.

    Returns per text Spearman and Pearson (None where skipped), then the texts of constant
    gold and the texts of constant ratings (gold not constant).
    """
    rho: dict[Hashable, float | None] = {}
    r: dict[Hashable, float | None] = {}
    constant_gold = constant_ratings = 0
    for item, given in ratings.items():
        ids = list(gold[item])
        g = [gold[item][i] for i in ids]
        p = [given[i] for i in ids]
        both = text_correlations(g, p)
        if both is None:
            if _constant(g):
                constant_gold += 1
            else:
                constant_ratings += 1
        rho[item], r[item] = both if both is not None else (None, None)
    return rho, r, constant_gold, constant_ratings


def _mean(values: Mapping[Hashable, float | None]) -> float | None:
    kept = [v for v in values.values() if v is not None]
    return float(np.mean(kept)) if kept else None


def human_summarization(gold: Mapping[Hashable, Any], answers: Answers) -> Score:
    """The mean rating per summary across annotators, then mteb's mean per-text Spearman.

    ``per_rater`` holds each annotator's own mean Spearman over the texts they rated (an
    annotator whose every text is skipped is left out and named in
    ``details["degenerate_raters"]``).

    Args:
        gold: ``{text: {summary id: expert score}}``.
        answers: ``{annotator: {text: {summary id: rating}}}``; ``None`` is no answer. An
            answer must rate every summary of its text.

    Returns:
        The mean Spearman over the texts kept, method ``human:mean_rating+mteb_text_spearman``;
        in ``details`` the per-text Spearman (``text_spearman``, None where skipped), the
        mean Pearson, the mean ratings and the counts of texts skipped.

    Raises:
        InvalidInputError: malformed gold or answers, or an answer that leaves a summary out.
        DegenerateInputError: no annotator answered any text, or every text is skipped.
    """
    golds = _gold(gold)
    col = collect(golds, answers)
    ratings = {
        rater: {item: _ratings(rater, item, golds[item], a) for item, a in given.items()}
        for rater, given in col.by_rater.items()
    }
    per_rater: dict[str, float] = {}
    per_rater_skipped: dict[str, int] = {}
    degenerate: dict[str, str] = {}
    for rater, given in ratings.items():
        try:
            rho, _, _, constant = _per_text(golds, given)
        except InvalidInputError as exc:
            raise rater_error(rater, exc) from None
        per_rater_skipped[rater] = constant
        mean = _mean(rho)
        if mean is None:
            degenerate[rater] = "every text rated is skipped (constant gold or ratings)"
        else:
            per_rater[rater] = mean
    means: dict[Hashable, dict[str, float]] = {}
    for item in col.items:
        rated = [r[item] for r in ratings.values() if item in r]
        means[item] = {sid: float(np.mean([g[sid] for g in rated])) for sid in golds[item]}
    rho, pearson, constant_gold, constant_ratings = _per_text(golds, means)
    value = _mean(rho)
    if value is None:
        raise DegenerateInputError(
            "every text is skipped: its gold or its mean ratings are constant"
        )
    details = {
        "text_spearman": {item: rho[item] for item in col.items},
        "pearson": _mean(pearson),
        "mean_ratings": means,
        "n_texts_scored": sum(v is not None for v in rho.values()),
        "n_texts_constant_gold": constant_gold,
        "n_texts_constant_ratings": constant_ratings,
        "per_rater_texts_constant_ratings": per_rater_skipped,
        "degenerate_raters": degenerate,
        **col.details(),
    }
    return Score(
        value,
        "human:mean_rating+mteb_text_spearman",
        n_items=len(col.items),
        per_rater=per_rater,
        details=details,
    )


def flatten(answers: Mapping[Any, Mapping[Hashable, Any]]) -> dict[Any, dict[Hashable, Any]]:
    """``{rater: {text: {summary: rating}}}`` as ``{rater: {"<text>#<summary>": rating}}``.

    Agreement is over ratings, so its units are the summaries, each named by its text.

    Args:
        answers: each rater's answers per text.

    Returns:
        Each rater's ratings per summary.
    """
    out: dict[Any, dict[Hashable, Any]] = {}
    for rater, given in answers.items():
        flat: dict[Hashable, Any] = {}
        for item, answer in given.items():
            if isinstance(answer, Mapping):
                flat.update({f"{item}#{sid}": v for sid, v in answer.items()})
        out[rater] = flat
    return out


def _coincidences(
    answers: Mapping[Any, Mapping[Hashable, Any]], texts: Sequence[Hashable]
) -> tuple[list[float], NDArray[np.float64]]:
    """Each text's part of Krippendorff's coincidence matrix, over the values rated.

    A summary rated by m ≥ 2 raters adds ``(outer(c, c) − diag(c)) / (m − 1)`` for its value
    counts ``c`` (Krippendorff 2011); a text's part is the sum over its summaries.

    Returns:
        The values (sorted) and a ``(texts, values, values)`` array.
    """
    flat = {
        (item, str(sid), rater): float(v)
        for rater, given in answers.items()
        for item, answer in given.items()
        if isinstance(answer, Mapping)
        for sid, v in answer.items()
        if v is not None
    }
    domain = sorted({v for v in flat.values()})
    index = {v: i for i, v in enumerate(domain)}
    m = len(domain)
    out = np.zeros((len(texts), m, m))
    units: dict[tuple[Hashable, str], list[float]] = {}
    for (item, sid, _), v in flat.items():
        units.setdefault((item, sid), []).append(v)
    row = {item: n for n, item in enumerate(texts)}
    for (item, _), values in units.items():
        if len(values) < 2:
            continue
        counts = np.bincount([index[v] for v in values], minlength=m).astype(float)
        out[row[item]] += (np.outer(counts, counts) - np.diag(counts)) / (len(values) - 1)
    return domain, out


def _alpha_of(
    coincidence: NDArray[np.float64], domain: Sequence[float], level: str
) -> NDArray[np.float64]:
    """Krippendorff's α of a stack of coincidence matrices ``(r, values, values)``.

    α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck, with δ² interval ``(c − k)²`` or ordinal
    ``(Σ_{g=c..k} n_g − (n_c + n_k)/2)²`` from each matrix's own marginals; NaN where the
    expected disagreement is 0.
    """
    n_c = coincidence.sum(axis=2)
    n = n_c.sum(axis=1)
    if level == "interval":
        v = np.asarray(domain, dtype=float)
        d2 = np.broadcast_to((v[:, None] - v[None, :]) ** 2, coincidence.shape)
    else:
        cum = np.cumsum(n_c, axis=1)
        between = cum[:, None, :] - cum[:, :, None] + n_c[:, :, None]
        upper = (between - (n_c[:, :, None] + n_c[:, None, :]) / 2.0) ** 2
        upper = np.triu(upper)
        d2 = upper + np.transpose(upper, (0, 2, 1))
    observed = (coincidence * d2).sum(axis=(1, 2))
    expected = (n_c[:, :, None] * n_c[:, None, :] * d2).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (n - 1.0) * observed / expected
    return np.where(expected > 0, alpha, np.nan)


def alpha_by_texts(
    answers: Mapping[Any, Mapping[Hashable, Any]],
    *,
    level: str = "interval",
    n_resamples: int = 2000,
    seed: int = 0,
) -> Agreement:
    """Krippendorff's α over the summaries' ratings, with a bootstrap interval over texts.

    Why a bootstrap over texts and not over summaries: a text's summaries are rated together,
    against one reading of the text, so they are not independent units. A resample draws texts
    with replacement (a text drawn twice counts twice) and recomputes α; the percentile
    interval goes in ``details["interval"]`` (resamples where α is undefined dropped). Why the
    resampled α by hand: a coincidence matrix is a sum over texts, so each resample's is a
    weighted sum of per-text parts, thousands of resamples in one matrix product, where
    recomputing α from the ratings took 20 s for 300 texts. ``tests`` check that the parts
    give :func:`scoring.agreement.krippendorff_alpha`'s value on the whole set.

    Args:
        answers: ``{rater: {text: {summary: rating}}}``, humans only.
        level: Krippendorff's level, ``"interval"`` or ``"ordinal"``.
        n_resamples: resamples of the texts.
        seed: the generator's seed.

    Returns:
        α (:func:`scoring.agreement.krippendorff_alpha` on the flattened ratings), with the
        interval and its method in ``details``.

    Raises:
        InvalidInputError: a level other than interval or ordinal.
    """
    from scoring import agreement

    if level not in ("interval", "ordinal"):
        raise InvalidInputError(f"level must be interval or ordinal, got {level!r}")
    whole = agreement.krippendorff_alpha(flatten(answers), level=level)
    texts = sorted({item for given in answers.values() for item in given}, key=str)
    if len(texts) < 3 or not math.isfinite(whole.value):
        return whole
    domain, parts = _coincidences(answers, texts)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(texts), size=(n_resamples, len(texts)))
    weights = np.stack([np.bincount(d, minlength=len(texts)) for d in draws]).astype(float)
    stacked = (weights @ parts.reshape(len(texts), -1)).reshape(n_resamples, *parts.shape[1:])
    values = _alpha_of(stacked, domain, level)
    kept = values[np.isfinite(values)]
    if not kept.size:
        return whole
    low, high = np.quantile(kept, [0.025, 0.975]).tolist()
    interval = {
        "low": float(low),
        "high": float(high),
        "level": 0.95,
        "method": "bootstrap:percentile(texts)",
        "n_resamples": n_resamples,
        "n_resamples_dropped": int(n_resamples - kept.size),
        "seed": seed,
    }
    return replace(whole, details={**whole.details, "interval": interval})
