"""The report's Methods section: what each number means and how it was computed, per topic.

Each registered task type describes its own part of a topic (``score_methods``); what holds
for every type is here. A new statistic adds its phrase to :data:`_COMMON_METHODS` (or to its
type's ``score_methods``) and its topic to :data:`_METHOD_ORDER`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hume_sync import task_types
from scoring.alt_test import METHOD as ALT_TEST_METHOD
from scoring.effort import METHOD as EFFORT_METHOD
from scoring.panel_summary import METHOD as PANEL_SUMMARY_METHOD
from scoring.quality import METHOD as QUALITY_METHOD

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport

#: Methods that hold for every task type; the per-type topics (``scoring.rules.METHOD_TOPICS``)
#: come from each registered type's ``score_methods`` (see :func:`methods`).
_COMMON_METHODS = {
    "LLM annotator": "scored as one human annotator, on the items it answered; agreement with "
    "humans reported apart from human–human agreement",
    "Interval (95 %)": "a seeded BCa bootstrap over items is given beside it; where the type's "
    "own interval has zero width (one annotator's range, Fisher z at ρ = ±1) that bootstrap "
    "over items (queries for reranking) is used instead and named; where it has zero width "
    'too, or there is nothing to resample (one clustering set), the interval is "not '
    'estimable" and so is the items-for-±0.05 line',
    "Significance": "humans and each model or LLM with per-item answers are compared on the "
    "items both answered, each side by the metric printed for it: humans and LLMs by the "
    "type's human rule, a model by its own metric (reranking: its own ranking, per-query "
    "trec_eval AP as mteb's MAP; classification: the accuracy of its majority vote over "
    "mteb's runs, named in the cell), human − rater with a seeded paired bootstrap over "
    "items (2000 resamples, "
    "the same resamples for both sides, percentile 95 % interval); above/below when that "
    "interval excludes 0, else inside. A rater without per-item answers (a model known only "
    "by its MTEB score, a clustering set) is placed by its score against the human interval, "
    "marked 'unpaired'",
    "Which human": "per subset: HUME's aggregate; each annotator's own score (seeded BCa "
    "bootstrap over items); the mean annotator (joint percentile bootstrap, where all "
    "answered the same items); the best and the worst annotator; for label answers a "
    "Dawid–Skene aggregate (as crowd-kit's DawidSkene, 100 EM iterations) scored as one "
    "rater; a noise ceiling with 2 or more annotators: each scored against the others' "
    "consensus (majority, mean rating for STS, with the Spearman–Brown step-up to all "
    "annotators). 'not estimable' says why where a number or interval cannot be had",
    "Above humans": "only when the paired interval of (best annotator − rater), on the items "
    "both answered, lies below 0; every such verdict names the best annotator",
    "Alternative annotator test": ALT_TEST_METHOD + "; per-item alignment from the task type "
    "(label match; STS −|a − b|/5; reranking the share of a query's candidates marked alike); "
    "not applicable to clustering (no per-item answer)",
    "Agreement": "bands: ≤0.2 slight, ≤0.4 fair, ≤0.6 moderate, ≤0.8 substantial, >0.8 "
    "excellent; low agreement: κ < 0.4 or ρ < 0.6",
    "Table": "mean over task-language subsets, each weighted equally; only raters with every "
    "subset are ranked; humans win a subset when strictly above the best / median model",
    "Table 1 interval": PANEL_SUMMARY_METHOD,
    "Borda rank": "as the MTEB leaderboard shows beside the mean: on each subset a ranked "
    "rater earns one point per ranked rater it beats and ½ per tie; points summed over "
    "subsets, ranked high to low (competition ranks)",
    "Best model": "per subset, the embedding model with the highest score there (ties: first "
    "name); human − best model as in the HUME paper",
    "Model metadata": "parameters, embedding dimension and max tokens from the results "
    "folder's model_meta.json, else what the loaded model reported when predict ran it "
    "(sentence-transformers: parameter count, embedding size, max_seq_length); shown only "
    "where known",
    "Annotators": "named by pseudonymous keys (annotator-N, their slot in the study, the same "
    "in every file of it); emails only in an export made with --with-emails",
    "Answers scored": "valid answers only: an invalid one (a clustering text left unsorted, a "
    "candidate not placed, no choice, an item not in the task) is never scored; a late one "
    "(Label Studio's created_at or updated_at after the study's close) only with --include-late",
    "Ties": "a subset is flagged (⚑) when its aggregate human score is strictly above every "
    "one of its two or more annotators' own scores",
    "Difficulty": "human score − the best embedding model's score on the subset (the model "
    "named): humans ahead above +0.05, close within ±0.05, humans behind below −0.05 (the "
    "former 'easy when the human score is ≥ 0.7' said easy on every HUME subset and is "
    "dropped)",
    "Sealing": "each model's and LLM's commitment is SHA-256 over the canonical JSON (keys "
    "sorted, no whitespace, floats in shortest round-trip form) of its sealed answers in hume_id "
    "order, its revision, its prompt and the study id (scheme hume-seal/1, hume_sync.sealing); "
    "recorded by predict, recomputed here from the store; a sealed answer is flagged when it "
    "no longer gives the recorded commitment, or was written or recommitted after the first "
    "annotation's Label Studio created_at",
    "Effort and cost": EFFORT_METHOD + " per hour given by export --rate (no cost without it)",
    "Quality signals": QUALITY_METHOD + "; in the report, beside each annotator's own score "
    "against gold and against the others' consensus (the which-human panel's leave-one-out)",
    "Sample size": "items needed for a ±0.05 interval: Wilson / Fisher z at the observed "
    "value; otherwise n × (bootstrap half-width / 0.05)²; none where the interval is not "
    "estimable (never fewer items than already annotated from a zero-width interval)",
}

_METHOD_ORDER = (
    "Human score",
    "Ties",
    "Model score",
    "LLM annotator",
    "Interval (95 %)",
    "Significance",
    "Which human",
    "Above humans",
    "Alternative annotator test",
    "Agreement",
    "Table",
    "Table 1 interval",
    "Borda rank",
    "Best model",
    "Model metadata",
    "Annotators",
    "Answers scored",
    "Difficulty",
    "Candidate gold errors",
    "Effort and cost",
    "Quality signals",
    "Sample size",
    "Sealing",
)


def methods(report: StudyReport | None = None) -> list[tuple[str, str]]:
    """The Methods section: per topic, the phrase of each type in ``report`` (every registered
    type without one), in registration order, then what holds for all types, so a new type is
    described by its own class and a report names only the methods it used. A type whose
    subsets were scored differently (retrieval subsets by their tasks' own main scores) gives
    one phrase per variant, each naming its subsets."""
    # Per type, each subset's type as it was scored (a retrieval subset's own main score).
    scored: dict[str, list[tuple[str, Any]]] = {}
    if report is None:
        scored = {n: [("", task_types.get(n))] for n in task_types.names()}
    else:
        for s in report.subsets:
            scored.setdefault(s.input.task_type.name, []).append((s.input.key, s.input.task_type))
    rows = []
    for topic in _METHOD_ORDER:
        parts = []
        for name in (n for n in task_types.names() if n in scored):
            parts += _type_phrases(name, topic, scored[name])
        common = _COMMON_METHODS.get(topic)
        rows.append((topic, "; ".join(parts + ([common] if common else []))))
    return rows


def _type_phrases(name: str, topic: str, subsets: list[tuple[str, Any]]) -> list[str]:
    """A type's phrase for a topic, once; where its subsets were scored differently (retrieval
    subsets with different main scores), one phrase per variant naming its subsets."""
    keys_by_phrase: dict[str, list[str]] = {}
    for key, kind in subsets:
        if topic in kind.score_methods:
            keys_by_phrase.setdefault(kind.score_methods[topic], []).append(key)
    if len(keys_by_phrase) <= 1:
        return [f"{name}: {phrase}" for phrase in keys_by_phrase]
    return [f"{name} ({', '.join(keys)}): {phrase}" for phrase, keys in keys_by_phrase.items()]
