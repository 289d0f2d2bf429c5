"""The retrieval subsets' part of the report: which score is which, and the judgments.

A retrieval model has two scores that are easily confused: its whole-corpus mteb score (what
the leaderboard shows; stored by ``predict`` as ``full_corpus_<main score>``) and its score
within the pool the people graded (what the humans are compared with: pool against pool). This
module gathers both per model, at the subset's main score (nDCG@10 unless its task names
another), the people's and every model's judged@10 and condensed main score, each model's
main score against qrels ∪ the people's judgments, and the documents people judged
relevant that qrels miss (:mod:`hume_sync.task_types.retrieval.judgments`), while the store is
open; :mod:`hume_sync.report.retrieval_section` lays them out and the export writes the
judgment files they list.

Gold is treated as the rest of the report treats it: the report is the team's (like the
candidate gold errors list); annotators never see it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hume_sync.store import Store
from hume_sync.task_types.retrieval.judgments import file_name, judgment_files, study_judgments
from hume_sync.task_types.retrieval.scoring import MARK_TEXT_CHARS
from scoring.aggregation.retrieval import metric_label

if TYPE_CHECKING:
    from scoring.subset_report import SubsetReport

#: The folder, under the export's, that holds every retrieval subset's judgment files.
JUDGMENTS_DIR = "judgments"


@dataclass(frozen=True)
class RaterRow:
    """One rater's numbers; None where the rater has none (a reason goes to a footnote)."""

    name: str
    kind: str  # "human" or "model"
    full_corpus: float | None
    pool: float | None
    judged: float | None
    condensed: float | None
    augmented: float | None


@dataclass(frozen=True)
class MissingRow:
    """A document the people judged relevant that qrels miss."""

    query: str
    document: str
    qrels: str  # "unjudged" or qrels' grade
    humans: int


@dataclass(frozen=True)
class RetrievalFacts:
    """One retrieval subset's numbers (at its main score, named ``main`` as mteb names it),
    missing judgments and judgment files."""

    key: str
    judgments: dict[str, Any]
    raters: list[RaterRow]
    missing: list[MissingRow]
    folder: tuple[str, ...]
    files: list[str] = field(default_factory=list)
    main: str = "ndcg_at_10"

    @property
    def main_label(self) -> str:
        """The main score as the table's header names it (``nDCG@10``, ``nDCG@20``)."""
        return metric_label(self.main)

    def paths(self) -> list[str]:
        """The judgment files, relative to the export's folder."""
        return ["/".join((*self.folder, name)) for name in self.files]


def _short(text: Any) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= MARK_TEXT_CHARS else text[: MARK_TEXT_CHARS - 1] + "…"


def _texts(store: Store, key: str) -> tuple[dict[str, str], dict[str, str]]:
    """Per source query id its text, per source document id its text (cut short)."""
    refs = store.item_refs(key)
    queries: dict[str, str] = {}
    docs: dict[str, str] = {}
    for inst in store.instances(key):
        queries[inst.source_id] = _short(inst.content.get("query"))
        shown = {str(c.get("id")): c.get("text") for c in inst.content.get("candidates") or []}
        for ref in refs.get(inst.hume_id, ()):
            docs[ref.source_id] = _short(shown.get(ref.item_id))
    return queries, docs


def _missing(found: Mapping[str, Any], store: Store, key: str) -> list[MissingRow]:
    queries, docs = _texts(store, key)
    rows = []
    for q, kinds in sorted(found["missing"].items()):
        for kind in ("unjudged", "judged_not_relevant"):
            for d in kinds[kind]:
                rows.append(
                    MissingRow(
                        query=f"{q}: {queries.get(q, '')}",
                        document=f"{d}: {docs.get(d, '')}",
                        qrels="unjudged" if kind == "unjudged" else str(found["qrels"][q][d]),
                        humans=int(found["aggregate"][q][d]),
                    )
                )
    return rows


def _raters(
    rep: SubsetReport,
    stored: Mapping[str, Mapping[str, Any]],
    found: Mapping[str, Any],
    main: str,
) -> list[RaterRow]:
    rows = []
    if rep.human is not None:
        d = rep.human.details
        rows.append(
            RaterRow(
                "Humans",
                "human",
                None,
                rep.human.value,
                d.get("judged_at_10"),
                d.get(f"condensed_{main}"),
                None,
            )
        )
    for name in sorted(rep.input.models):
        s = stored.get(name) or {}
        rows.append(
            RaterRow(
                name,
                "model",
                s.get(f"full_corpus_{main}"),
                rep.input.models[name],
                s.get("judged_at_10"),
                s.get(f"condensed_{main}"),
                (found["models"].get(name) or {}).get(f"augmented_{main}"),
            )
        )
    return rows


def gather(store: Store, reports: list[SubsetReport]) -> list[RetrievalFacts]:
    """The :class:`RetrievalFacts` of every retrieval subset of ``reports``, read from the
    open ``store`` (the report is built while it is open; the writers never read it). The
    judgments are the answers the report scores (``rep.input.humans``): late answers left out
    unless ``--include-late``, annotators named as the report names them."""
    scores = store.model_subset_scores()
    out = []
    for rep in reports:
        key = rep.input.key
        if not getattr(rep.input.task_type, "exports_judgments", False):
            continue
        humans = {
            who: {str(h): a for h, a in given.items()} for who, given in rep.input.humans.items()
        }
        found = study_judgments(store, key, humans)
        stored = {
            mv: (s.scores or {}) for mv, by_subset in scores.items() if (s := by_subset.get(key))
        }
        main = rep.input.task_type.score_main_name
        out.append(
            RetrievalFacts(
                key=key,
                judgments=found,
                raters=_raters(rep, stored, found, main),
                missing=_missing(found, store, key),
                folder=(JUDGMENTS_DIR, *(file_name(p) for p in key.split("/"))),
                files=judgment_files(found),
                main=main,
            )
        )
    return out
