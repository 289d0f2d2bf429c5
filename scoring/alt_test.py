"""Can an LLM replace an annotator? The Alternative Annotator Test (Calderon et al., ACL 2025).

"The Alternative Annotator Test for LLM-as-a-Judge": hold out each annotator j in turn. On each
item j answered with the LLM and at least one other annotator, the LLM's alignment with the
others (the mean of the type's per-item alignment with each of them) is set against j's own
alignment with the same others. ``W_f = 1`` when the LLM's is at least j's, ``W_h = 1`` when j's
is at least the LLM's (a tie counts for both). The LLM "wins" against j when a one-sided paired
t-test rejects ``H0: mean(W_h − W_f) ≥ ε`` (the LLM's advantage probability falls more than ε
short of the annotator's). The p-values over annotators are corrected with Benjamini–Yekutieli
(``scipy.stats.false_discovery_control(method="by")``, valid under any dependence, which the
shared items create). The winning rate ω is the share of annotators the LLM wins against; the
LLM passes when ω ≥ 0.5.

ε: 0.2, the paper's default for crowd-style annotators (0.1 for experts): HUME's annotators are
volunteers, not domain experts. The test needs ≥ 3 annotators; with fewer, the LLM is set
against each annotator, paired (``paired``): annotator − LLM, each scored against gold by the
type's human rule on the items both answered, with the report's seeded paired bootstrap (the
caller passes that comparison in, since it needs gold, which this test never sees); the LLM's
agreement with each annotator (``pairwise``) is given beside it.

The test itself is written here because no well-kept library implements it; the t-test, the
correction and the Wilson interval come from scipy and :mod:`scoring.intervals`. Pure: it asks
the task type (:class:`scoring.rules.ScoringRules`) for the per-item alignment and nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.intervals import wilson
from scoring.records import plain_dict
from scoring.rules import ItemAlignment, ScoringRules

EPSILON = 0.2
ALPHA = 0.05
MIN_ANNOTATORS = 3
MIN_ITEMS = 3
PASS_RATE = 0.5

METHOD = (
    f"Alternative Annotator Test (Calderon et al., ACL 2025): leave one annotator out, "
    f"one-sided paired t-test of the advantage probabilities with margin ε = {EPSILON} "
    "(the paper's crowd-annotator default), Benjamini–Yekutieli over annotators at "
    f"α = {ALPHA}; the LLM passes when it wins against ≥ {PASS_RATE:.0%} of them "
    f"(needs ≥ {MIN_ANNOTATORS} annotators; with fewer, the LLM against each annotator, "
    "paired: annotator − LLM, each scored against gold by the type's human rule on the items "
    "both answered, seeded paired bootstrap over items (2000 resamples, percentile 95 % "
    "interval); beside it the LLM's agreement with each annotator, Wilson interval for 0/1 "
    "alignments, t interval otherwise)"
)

#: ``pair(annotator, llm_answers)``: the paired comparison of that annotator alone against the
#: LLM (``scoring.subset_report.paired_comparison``), or None where fewer than 3 items are
#: shared or the type has no per-item form.
PairedComparison = Callable[[str, Mapping[Hashable, Any]], Mapping[str, Any] | None]


@dataclass
class AnnotatorTest:
    """The LLM against one held-out annotator."""

    annotator: str
    n_items: int
    rho_llm: float | None = None  # share of items where the LLM aligns at least as well
    rho_annotator: float | None = None
    t: float | None = None
    pvalue: float | None = None
    p_adjusted: float | None = None
    llm_wins: bool | None = None
    reason: str = ""  # why the test is not estimable, when it is not


@dataclass
class PairAgreement:
    """The LLM's mean alignment with one annotator on their shared items, with an interval."""

    annotator: str
    n_items: int
    agreement: float | None = None
    low: float | None = None
    high: float | None = None
    method: str = ""
    reason: str = ""


@dataclass
class PairedDifference:
    """One annotator against the LLM, paired: (annotator − LLM) on the items both answered."""

    annotator: str
    n_items: int
    annotator_score: float | None = None
    llm_score: float | None = None
    difference: float | None = None
    low: float | None = None
    high: float | None = None
    method: str = ""
    reason: str = ""


@dataclass
class AltTestResult:
    """One LLM's alternative annotator test on one subset."""

    llm: str
    status: str  # "tested", "not estimable", "not applicable", "fewer than 3 annotators"
    reason: str = ""
    alignment: str = ""
    epsilon: float = EPSILON
    alpha: float = ALPHA
    winning_rate: float | None = None
    advantage: float | None = None  # mean rho_llm over the tested annotators
    passed: bool | None = None
    annotators: list[AnnotatorTest] = field(default_factory=list)
    pairwise: list[PairAgreement] = field(default_factory=list)
    paired: list[PairedDifference] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready data.

        Returns:
            The fields as a dict, nested records made plain.
        """
        return plain_dict(self)


def _answered(answers: Mapping[Hashable, Any]) -> dict[Hashable, Any]:
    return {i: v for i, v in answers.items() if v is not None}


def _one_test(
    j: str,
    humans: Mapping[str, Mapping[Hashable, Any]],
    llm: Mapping[Hashable, Any],
    align: ItemAlignment,
    epsilon: float,
) -> AnnotatorTest:
    w_h: list[float] = []
    w_f: list[float] = []
    for item, mine in humans[j].items():
        others = [a[item] for k, a in humans.items() if k != j and item in a]
        if item not in llm or not others:
            continue
        s_llm = sum(align.measure(llm[item], o) for o in others) / len(others)
        s_j = sum(align.measure(mine, o) for o in others) / len(others)
        w_f.append(1.0 if s_llm >= s_j else 0.0)
        w_h.append(1.0 if s_j >= s_llm else 0.0)
    n = len(w_h)
    test = AnnotatorTest(annotator=j, n_items=n)
    if n < MIN_ITEMS:
        test.reason = f"{n} item(s) shared with the LLM and another annotator (needs {MIN_ITEMS})"
        return test
    test.rho_llm, test.rho_annotator = sum(w_f) / n, sum(w_h) / n
    d = [h - f for h, f in zip(w_h, w_f, strict=True)]
    if max(d) == min(d):
        test.reason = f"every item gives the same difference W_h − W_f = {d[0]:g} (no variance)"
        return test
    from scipy import stats  # imported where a test runs: 2 s of a cold export otherwise

    res = stats.ttest_1samp(d, popmean=epsilon, alternative="less")
    test.t, test.pvalue = float(res.statistic), float(res.pvalue)
    return test


def _pairwise(
    humans: Mapping[str, Mapping[Hashable, Any]],
    llm: Mapping[Hashable, Any],
    align: ItemAlignment,
) -> list[PairAgreement]:
    out = []
    for j, answers in sorted(humans.items()):
        values = [align.measure(llm[i], v) for i, v in answers.items() if i in llm]
        pair = PairAgreement(annotator=j, n_items=len(values))
        out.append(pair)
        if len(values) < MIN_ITEMS:
            pair.reason = f"{len(values)} shared item(s) (needs {MIN_ITEMS})"
            continue
        n = len(values)
        pair.agreement = sum(values) / n
        if all(v in (0.0, 1.0) for v in values):
            iv = wilson(int(sum(values)), n)
            pair.low, pair.high, pair.method = iv.low, iv.high, "Wilson"
            continue
        sd = math.sqrt(sum((v - pair.agreement) ** 2 for v in values) / (n - 1))
        if sd == 0.0:
            pair.reason = "every shared item aligns the same (no variance for an interval)"
            continue
        from scipy import stats  # only for a t interval: label matches take Wilson's

        half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
        pair.low, pair.high, pair.method = pair.agreement - half, pair.agreement + half, "t"
    return out


def _paired(
    humans: Mapping[str, Mapping[Hashable, Any]],
    llm: Mapping[Hashable, Any],
    pair: PairedComparison,
) -> list[PairedDifference]:
    out = []
    for j, answers in sorted(humans.items()):
        shared = sum(1 for i in answers if i in llm)
        cmp = pair(j, llm)
        if cmp is None or "low" not in cmp:
            why = (cmp or {}).get("why") or (
                f"{shared} shared item(s) (needs {MIN_ITEMS})"
                if shared < MIN_ITEMS
                else "the answers have no per-item score to pair"
            )
            out.append(PairedDifference(j, shared, reason=why))
            continue
        out.append(
            PairedDifference(
                annotator=j,
                n_items=int(cmp["n_items"]),
                annotator_score=float(cmp["human_on_items"]),
                llm_score=float(cmp["rater_on_items"]),
                difference=float(cmp["difference"]),
                low=float(cmp["low"]),
                high=float(cmp["high"]),
                method=str(cmp["method"]),
            )
        )
    return out


def alt_test(
    rules: ScoringRules,
    humans: Mapping[str, Mapping[Hashable, Any]],
    llm_name: str,
    llm: Mapping[Hashable, Any],
    *,
    epsilon: float = EPSILON,
    alpha: float = ALPHA,
    pair: PairedComparison | None = None,
) -> AltTestResult:
    """The alternative annotator test of one LLM against the annotators of one subset.

    Args:
        rules: the subset's task type (its item alignment).
        humans: ``{annotator: {item: answer}}``.
        llm_name: the LLM annotator's name.
        llm: its ``{item: answer}``.
        epsilon: the test's margin ε.
        alpha: the level of the Benjamini–Yekutieli correction.
        pair: the paired comparison of one annotator against the LLM, used with fewer than 3
            annotators.

    Returns:
        The result; its ``status`` says whether the test ran ("tested", "not applicable",
        "fewer than 3 annotators", "not estimable") and ``reason`` why not.
    """
    align = rules.score_item_alignment
    if align is None:
        return AltTestResult(llm_name, "not applicable", rules.score_alignment_missing)
    people = {k: _answered(a) for k, a in humans.items() if _answered(a)}
    answers = _answered(llm)
    result = AltTestResult(llm_name, "tested", alignment=align.method, epsilon=epsilon, alpha=alpha)
    if len(people) < MIN_ANNOTATORS:
        result.status = "fewer than 3 annotators"
        result.reason = (
            f"{len(people)} annotator(s): the test needs {MIN_ANNOTATORS}; the LLM against "
            "each annotator, paired, and its agreement with each are given instead"
        )
        result.pairwise = _pairwise(people, answers, align)
        if pair is not None:
            result.paired = _paired(people, answers, pair)
        return result
    result.annotators = [_one_test(j, people, answers, align, epsilon) for j in sorted(people)]
    tested = [t for t in result.annotators if t.pvalue is not None]
    if len(tested) < MIN_ANNOTATORS:
        result.status = "not estimable"
        result.reason = (
            f"{len(tested)} annotator(s) with a usable test (needs {MIN_ANNOTATORS}): "
            + "; ".join(f"{t.annotator}: {t.reason}" for t in result.annotators if t.reason)
        )
        return result
    from scipy import stats  # imported only where tests ran (see _one_test)

    adjusted = stats.false_discovery_control([t.pvalue for t in tested], method="by")
    for t, p in zip(tested, adjusted, strict=True):
        t.p_adjusted = float(p)
        t.llm_wins = bool(p <= alpha)
    result.winning_rate = sum(bool(t.llm_wins) for t in tested) / len(tested)
    result.advantage = sum(t.rho_llm or 0.0 for t in tested) / len(tested)
    result.passed = result.winning_rate >= PASS_RATE
    return result


def alt_tests(
    rules: ScoringRules,
    humans: Mapping[str, Mapping[Hashable, Any]],
    llms: Mapping[str, Mapping[Hashable, Any]],
    pair: PairedComparison | None = None,
) -> dict[str, AltTestResult]:
    """The test for every LLM annotator of a subset (empty when there is none).

    Args:
        rules: the subset's task type.
        humans: ``{annotator: {item: answer}}``.
        llms: ``{llm: {item: answer}}``.
        pair: as in :func:`alt_test`.

    Returns:
        ``{llm: result}``, sorted by name.
    """
    return {name: alt_test(rules, humans, name, a, pair=pair) for name, a in sorted(llms.items())}


__all__ = ["EPSILON", "METHOD", "AltTestResult", "PairedDifference", "alt_test", "alt_tests"]
