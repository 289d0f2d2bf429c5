"""The report's retrieval section: which score is which, per retrieval subset.

Lays out :class:`~hume_sync.report.retrieval.RetrievalFacts` (gathered while the store is
open): a table of the humans and every model at the subset's main score, named in its header
(whole-corpus and pooled, judged@10, condensed, pooled against qrels ∪ humans; nDCG@10 unless
the subset's task names another; cells hold numbers, reasons go to footnotes), the missing
judgments and the judgment files the export writes. Apart from :mod:`hume_sync.report.retrieval`
so the report model can hold the facts without importing the layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hume_sync.report.blocks import Block, Bullets, Cell, Paragraph, Section, Table
from hume_sync.report.cells import f, noted
from hume_sync.report.retrieval import RetrievalFacts
from hume_sync.task_types.retrieval.judgments import file_name

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport


def header(label: str) -> list[str]:
    """The rater table's header, naming the subset's main score (``nDCG@10``, ``nDCG@20``)."""
    return [
        "Rater",
        f"Whole corpus {label}",
        f"Pool {label}",
        "judged@10",
        f"Condensed {label}",
        f"Pool {label}, qrels ∪ humans",
    ]


HEADER = header("nDCG@10")
MISSING_HEADER = ["Query", "Document", "qrels", "Humans"]
HUMANS_NO_CORPUS = "not applicable: people grade only the pool, never the whole corpus"
HUMANS_NO_AUGMENTED = "not applicable: the people's own judgments are in qrels ∪ humans"
NOT_STORED = "not estimable: predict stored no such score for this model"
READING = (
    "Whole corpus: the model's mteb score over the whole corpus, what the leaderboard shows. "
    "Pool: the score within the pool the people graded (mteb with the pool as top_ranked); "
    "verdicts compare people and models pool with pool. judged@10: the share of the top 10 "
    "that qrels judge; condensed: unjudged documents removed before scoring. qrels ∪ humans: "
    "the pooled ranking scored against qrels with the people's aggregate grade where qrels "
    "do not judge a document."
)


def _cell(value: float | None, reason: str) -> Cell:
    return f(value) if value is not None else noted(reason)


def rater_table(facts: RetrievalFacts) -> Table:
    """Humans and models: the whole-corpus, pooled, judged@10, condensed and qrels ∪ humans
    numbers at the subset's main score; a rater without one gets a mark and the reason as a
    footnote."""
    rows: list[list[Cell]] = []
    for r in facts.raters:
        human = r.kind == "human"
        rows.append(
            [
                r.name,
                _cell(r.full_corpus, HUMANS_NO_CORPUS if human else NOT_STORED),
                _cell(r.pool, NOT_STORED),
                _cell(r.judged, NOT_STORED),
                _cell(r.condensed, NOT_STORED),
                _cell(r.augmented, HUMANS_NO_AUGMENTED if human else NOT_STORED),
            ]
        )
    return Table(header(facts.main_label), rows, anchor=f"retrieval-{file_name(facts.key)}")


def _subsection(facts: RetrievalFacts) -> Section:
    blocks: list[Block] = [rater_table(facts)]
    lead = "Missing judgments"
    if facts.missing:
        what = "documents the people judged relevant (aggregate grade > 0) that qrels miss:"
        rows: list[list[Cell]] = [
            [m.query, m.document, m.qrels, str(m.humans)] for m in facts.missing
        ]
        blocks += [Paragraph(what, lead=lead), Table(MISSING_HEADER, rows)]
    else:
        blocks.append(
            Paragraph("none: qrels judge every document the people call relevant.", lead=lead)
        )
    blocks.append(Paragraph("Judgments written (TREC qrels, per annotator and aggregate):"))
    blocks.append(Bullets(facts.paths()))
    return Section(f"Retrieval: {facts.key}", blocks, level=3)


def section(report: StudyReport) -> Section | None:
    """The retrieval section: one subsection per retrieval subset; None where there is none."""
    if not report.retrieval:
        return None
    blocks: list[Block] = [Paragraph(READING)]
    blocks += [_subsection(facts) for facts in report.retrieval]
    return Section("Retrieval: whole corpus, pool and judgments", blocks, anchor="retrieval")
