"""What scoring and the report need to know about a task type: the :class:`ScoringRules` protocol.

Why a protocol: HUME scores each task type its own way (a majority vote then accuracy for
classification, a mean rating then Spearman for STS, ...), and the report states an interval,
an agreement statistic, a disagreement rule and a sample-size rule that differ by type too. All
of that used to be branches on the type's name, spread over :mod:`scoring.subset_report` and
the report. Now each task type is one object that implements this ABC (in ``hume_sync``, its
``<Type>Scoring`` mixin), and the scoring functions receive that object. :mod:`scoring` still
imports nothing of ours: it only calls the methods below, so any object that implements them is
a task type to it (tests use the registered ones).

Every member carries the ``score_`` prefix so that the scoring concern never collides with the
other concerns a task type is composed of (interface, model, LLM, study).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from scoring.records import Agreement, Interval, Score

#: The Methods topics each type describes (see :attr:`ScoringRules.score_methods`).
METHOD_TOPICS = (
    "Human score",
    "Model score",
    "Interval (95 %)",
    "Agreement",
    "Candidate gold errors",
)

#: A per-item decomposition of the human score for the bootstrap: the records resampled (a NumPy
#: array, resampled along its first axis) and the statistic that maps a resample to the score
#: (or, marked with :func:`scoring.intervals.vectorized`, a stack of resamples to one score each).
PerItem = tuple[Any, Callable[[Any], float]]


@dataclass(frozen=True)
class ItemAlignment:
    """How closely two raters' answers to one item agree, for the alternative annotator test.

    Used by :mod:`scoring.alt_test`: ``measure(a, b)`` is higher for closer answers, ``method``
    names it in the report's Methods.
    """

    method: str
    measure: Callable[[Any, Any], float]


class ScoringRules(ABC):
    """How humans (and LLM annotators, scored as one human) are scored on one task type.

    Item shapes (gold / one answer) are the type's own; see each implementation. ``answers``
    arguments map a rater to ``{item: answer}``.
    """

    #: The type's name (in the study spec, the store, ``task_type`` columns of every output).
    name: str

    # --------------------------------------------------------------------------------------
    # The main score and how it is named

    @property
    @abstractmethod
    def score_main_name(self) -> str:
        """The main score's key in the MTEB result files we write (``accuracy``, ``map``, ...).

        It is also what a model's score is called (``mteb:<name>``).
        """

    @property
    def score_main_label(self) -> str:
        """The main score as a reader names it (``accuracy``, ``V-measure``, ``Spearman ρ``, ...).

        The axis title of the report's plots and the name ``predict`` prints beside a score.
        Defaults to :attr:`score_main_name`.
        """
        return self.score_main_name

    @property
    @abstractmethod
    def score_main_range(self) -> tuple[float, float]:
        """The range of mteb's ``main_score`` for the type.

        A value outside it marks a broken result file (a percentage where mteb stores fractions,
        say), never a result to rank.
        """

    @property
    @abstractmethod
    def score_mteb_main_name(self) -> str:
        """Mteb's ``main_score`` key for the type, what an embedding model's result file reports.

        ``cosine_spearman`` for STS, ``map_at_1000`` for mteb v2 reranking; it can differ from
        :attr:`score_main_name`, the key HUME's human result files use.
        """

    @property
    def score_metric_keys(self) -> tuple[str, ...]:
        """Keys of an MTEB score block that identify the type when the task is not a HUME(v1) task.

        Types are tried in registration order, the first with any key wins: the two main-score
        names.
        """
        return tuple(dict.fromkeys((self.score_main_name, self.score_mteb_main_name)))

    @property
    @abstractmethod
    def score_annotator_method(self) -> str:
        """The method name of one annotator's own score (the ``method`` column of their row)."""

    # --------------------------------------------------------------------------------------
    # Scores

    @abstractmethod
    def score_human(self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]) -> Score:
        """HUME's aggregation of several annotators into one human score.

        ``per_rater`` holds each annotator's own score. One LLM annotator is scored by this too,
        alone.

        Args:
            gold: ``{item: gold answer}`` in the type's shape.
            answers: ``{rater: {item: answer}}``.

        Returns:
            The human score.
        """

    def score_rater_value(
        self, gold: Mapping[Hashable, Any], answers: Mapping[Hashable, Any]
    ) -> float:
        """One rater's score alone, where only its value is wanted (the noise ceiling).

        Default: ``score_human(gold, {"rater": answers}).value``. A type overrides it where the
        number alone costs less than the whole score, and must give the same float.

        Args:
            gold: ``{item: gold answer}`` in the type's shape.
            answers: the rater's ``{item: answer}``.

        Returns:
            The rater's score.

        Raises:
            ScoringError: as :meth:`score_human` raises it.
        """
        return self.score_human(gold, {"rater": answers}).value

    def score_model(
        self, gold: Mapping[Hashable, Any], answers: Mapping[Hashable, Any]
    ) -> Score | None:
        """An embedding model's stored per-item answers scored as one rater.

        Scored by the metric the report prints for the model, so that :func:`score_per_item`
        decomposes it and the paired comparison with humans is like for like. Default: the human
        rule alone, right where a model stores what an annotator does.

        Args:
            gold: ``{item: gold answer}`` in the type's shape.
            answers: the model's ``{item: answer}``.

        Returns:
            The model's score; ``None`` where the type has no per-item decomposition of the model's
            score (then the comparison is "unpaired").
        """
        return self.score_human(gold, {"rater": answers})

    #: Whether an answer is a label from a fixed set (classification, yes/no), so that a
    #: model-based aggregate of annotators (Dawid–Skene, :mod:`scoring.panel`) applies.
    score_answers_are_labels: bool = False

    @property
    def score_model_compared(self) -> str | None:
        """What the model side of the paired comparison is, where not the printed model score.

        Even on a complete study; the report prints it beside the comparison. ``None`` where the
        two are the same metric.
        """
        return None

    def score_normalise_answer(self, answer: Any) -> Any:
        """An answer (or gold) as stored (JSON) turned into the shape scoring compares.

        Most types store exactly what they compare; override where JSON changes the shape.

        Args:
            answer: one stored answer or gold value.

        Returns:
            The answer in the type's shape.
        """
        return answer

    def score_consensus(
        self, answers: Mapping[str, Mapping[Hashable, Any]]
    ) -> Mapping[Hashable, Any] | None:
        """The annotators' consensus per item in gold's shape.

        The noise ceiling scores one annotator against the others' consensus (:mod:`scoring.panel`).

        Args:
            answers: ``{rater: {item: answer}}``.

        Returns:
            ``{item: consensus}``; ``None`` where the type has none (a clustering partition has no
            per-item consensus).
        """
        return None

    #: Whether the noise ceiling is also stepped up to all annotators (Spearman–Brown), for
    #: scores that are correlations with a mean rating (STS).
    score_ceiling_spearman_brown: bool = False

    def score_normalise_model_answer(self, answer: Any) -> Any:
        """An embedding model's stored answer in the shape :meth:`score_model` reads.

        Defaults to :meth:`score_normalise_answer`. Override where a model stores scores that the
        annotators' form would round away (reranking similarities are not 0/1 marks).

        Args:
            answer: one stored model answer.

        Returns:
            The answer in the shape :meth:`score_model` reads.
        """
        return self.score_normalise_answer(answer)

    def score_result_extras(self, score: Score, rater: str | None = None) -> Mapping[str, float]:
        """Scores a result file holds beside the main score, so that readers can type it.

        A result file's task is typed by the score keys its block holds
        (:func:`scoring.tasks.task_type`); a subset scored by another main score than its
        type's (a retrieval subset by nDCG@20) also writes the type's own, as mteb's files hold
        every measure. Default: none.

        Args:
            score: the human (or LLM) score the block reports.
            rater: one annotator of ``score.per_rater`` for their own block; None for the score.

        Returns:
            ``{mteb name: value}`` to add to the block.
        """
        return {}

    def score_ties(self, score: Score) -> Mapping[str, Any] | None:
        """Items whose aggregate was decided by a tie rule, and the score under other rules.

        Args:
            score: the human score, as :meth:`score_human` gave it.

        Returns:
            ``{"n_tied_items": int, "rule": <the rule used>, "scores": {rule: score}}`` with at
            least ``random_expected`` (the exact expectation under a uniform random tie-break);
            ``None`` for types whose aggregate has no ties (a mean, a per-annotator score).
        """
        return None

    # --------------------------------------------------------------------------------------
    # Agreement

    @property
    @abstractmethod
    def score_headline_agreement(self) -> str:
        """The ``method`` of the agreement statistic HUME reported for the type.

        It decides the low-agreement flag and is written into the human result file.
        """

    @abstractmethod
    def score_agreements(
        self, gold: Mapping[Hashable, Any], humans: Mapping[str, Mapping[Hashable, Any]]
    ) -> list[Agreement]:
        """Human–human agreement: the headline statistic and the extra ones reported.

        Args:
            gold: ``{item: gold answer}`` in the type's shape.
            humans: ``{annotator: {item: answer}}``.

        Returns:
            The agreements, the headline one among them.
        """

    @property
    @abstractmethod
    def score_human_machine_statistic(self) -> str:
        """The statistic by which each LLM annotator is compared with the humans.

        A key of :func:`scoring.agreement.human_machine_agreement`.
        """

    def score_agreement_answers(
        self, gold: Mapping[Hashable, Any], answers: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """The answers in the item-by-item form the agreement statistics compare.

        Identity for types whose items are compared directly; override where an item holds
        several units (a clustering set holds texts).

        Args:
            gold: ``{item: gold answer}`` in the type's shape.
            answers: ``{rater: {item: answer}}``.

        Returns:
            ``{rater: {unit: answer}}``.
        """
        return answers

    @property
    def score_item_alignment(self) -> ItemAlignment | None:
        """The per-item alignment of two answers (the alternative annotator test's).

        ``None`` where the type has none; :attr:`score_alignment_missing` then says why.
        """
        return None

    @property
    def score_alignment_missing(self) -> str:
        """Why the type has no per-item alignment (empty where it has one)."""
        return "" if self.score_item_alignment is not None else "no per-item alignment defined"

    # --------------------------------------------------------------------------------------
    # Intervals and sample size

    @abstractmethod
    def score_interval(self, score: Score) -> Interval:
        """The 95 % interval HUME put around the human score (Wilson, Fisher z, range...).

        Args:
            score: the human score, as :meth:`score_human` gave it.

        Returns:
            The interval.
        """

    @abstractmethod
    def score_per_item(self, gold: Mapping[Hashable, Any], score: Score) -> PerItem | None:
        """The human score written as a statistic of per-item records, for a bootstrap over items.

        Args:
            gold: ``{item: gold answer}`` in the type's shape.
            score: the human score, as :meth:`score_human` gave it.

        Returns:
            (records, statistic); ``None`` where there is nothing to resample.
        """

    @abstractmethod
    def score_items_for_target(
        self, score: Score, bootstrap: Interval | None, target: float
    ) -> tuple[int | None, str]:
        """Items needed for an interval of half-width ``target``, and how that was worked out.

        Args:
            score: the human score.
            bootstrap: the bootstrap interval over items, where there is one.
            target: the half-width wanted.

        Returns:
            (items, method); items is ``None`` where it cannot be worked out.
        """

    # --------------------------------------------------------------------------------------
    # How the report names the methods

    @property
    @abstractmethod
    def score_methods(self) -> Mapping[str, str]:
        """The report's Methods section, this type's part.

        One short phrase for each of ``METHOD_TOPICS`` (how humans are scored, how models are, the
        interval, agreement, gold errors), so a new type names its own methods without editing the
        report.
        """

    # --------------------------------------------------------------------------------------
    # Items worth a look: disagreements and candidate gold errors

    @abstractmethod
    def score_disagree(self, values: list[Any]) -> bool:
        """Whether the annotators' answers to one item (two or more) count as a disagreement.

        Args:
            values: the answers to the item.

        Returns:
            True for a disagreement.
        """

    @abstractmethod
    def score_agree_not_gold(self, values: list[Any], gold: Any) -> bool:
        """Whether annotators who agree on one item agree on something other than gold.

        Such an item is a candidate gold error.

        Args:
            values: the answers to the item (two or more, not disagreeing).
            gold: the item's gold answer.

        Returns:
            True for a candidate gold error.
        """

    @abstractmethod
    def score_item_text(self, content: Mapping[str, Any]) -> str:
        """How an item is shown in the report's item lists.

        Args:
            content: the stored item content.

        Returns:
            The text to show.
        """

    def score_item_marks(
        self, content: Mapping[str, Any], gold: Any, answers: Mapping[str, Any]
    ) -> list[str] | None:
        """Lines that show one item's answers against its texts, for the report's item lists.

        For answers that do not read alone (a reranking answer marks candidate ids).

        Args:
            content: the stored item content.
            gold: the item's gold answer.
            answers: ``{rater: answer}`` for the item.

        Returns:
            The lines; ``None`` where the answer is its own text (a label, a rating).
        """
        return None


def items_by_bootstrap_scaling(
    n_items: int, bootstrap: Interval | None, target: float
) -> tuple[int | None, str]:
    """Items for a half-width ``target`` from the bootstrap half-width and 1/√n scaling.

    For scores whose interval (the range across annotators) does not shrink with items: the
    bootstrap half-width, where there is one, is scaled by the usual 1/√n.

    Args:
        n_items: the items the bootstrap was run on.
        bootstrap: the bootstrap interval over items, if any.
        target: the half-width wanted.

    Returns:
        (items, method); items is ``None`` without a bootstrap half-width.
    """
    ref = bootstrap.half_width if bootstrap is not None else None
    needed = math.ceil(n_items * (ref / target) ** 2) if ref and n_items else None
    method = f"n × (bootstrap half-width / {target:g})², 1/√n scaling" if needed else "unavailable"
    return needed, method


def majority_consensus(
    answers: Mapping[str, Mapping[Hashable, Any]], tie: Callable[[list[Any]], Any] = min
) -> dict[Hashable, Any]:
    """Per item the most frequent answer, a tie going to ``tie`` of the tied answers.

    HUME's tie rule is the alphabetically first label: ``min``. Why by hand: a plain count, no
    library call.

    Args:
        answers: ``{rater: {item: answer}}``; ``None`` answers are skipped.
        tie: picks one of the tied answers.

    Returns:
        ``{item: answer}``.
    """
    per_item: dict[Hashable, list[Any]] = {}
    for a in answers.values():
        for item, v in a.items():
            if v is not None:
                per_item.setdefault(item, []).append(v)
    out = {}
    for item, values in per_item.items():
        if len(values) == 1:  # one answer: nothing to count (the leave-one-out of a pair)
            out[item] = tie(values)
            continue
        counts = Counter(values)
        top = max(counts.values())
        out[item] = tie([v for v, c in counts.items() if c == top])
    return out


def label_match(a: Any, b: Any) -> float:
    """1 when two labels are equal, else 0: the alignment of label tasks.

    Args:
        a: one label.
        b: another.

    Returns:
        1.0 or 0.0.
    """
    return 1.0 if a == b else 0.0


__all__ = [
    "ItemAlignment",
    "PerItem",
    "ScoringRules",
    "items_by_bootstrap_scaling",
    "label_match",
    "majority_consensus",
]
