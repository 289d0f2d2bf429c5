"""The report's instruction-following section: p-MRR per subset with arms.

Lays out :class:`~hume_sync.report.instruction_following.FollowingFacts` (gathered while the
store is open): the people's p-MRR with its interval, the same under mteb's tie rule, each
model's p-MRR with its verdict against the people's interval, and each pair of people. Apart
from :mod:`hume_sync.report.instruction_following` so the report model can hold the facts
without importing the layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hume_sync.report.blocks import Block, Cell, Paragraph, Section, Table
from hume_sync.report.cells import f, noted
from hume_sync.report.instruction_following import FollowingFacts

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport

HEADER = ["Rater", "p-MRR", "95 % interval", "Verdict"]
PAIR_HEADER = ["Original instruction", "Changed instruction", "p-MRR"]
READING = (
    "p-MRR (FollowIR, mteb's main score of instruction reranking) asks whether a ranker "
    "follows a changed instruction: each document the changed instruction makes non-relevant "
    "should fall in rank; +1 is a fall from first to last, 0 no change, −1 a rise. People see "
    "a query under one instruction only: each arm has annotators of its own, so the people's "
    "p-MRR compares two panels, each ranking the candidates by its mean mark, ties broken at "
    "random in expectation (mteb's id-descending rule beside it). Models: mteb's p-MRR of their "
    "similarities on the same queries and candidates. Verdict: the model's p-MRR above, inside "
    "or below the people's 95 % interval (a bootstrap over queries)."
)
NO_INTERVAL = "not estimable: no p-MRR of people yet"


def _people(facts: FollowingFacts) -> list[list[Cell]]:
    if facts.human is None:
        return [["Humans", noted(facts.note), noted(NO_INTERVAL), ""]]
    interval = f"[{facts.low:.3f}, {facts.high:.3f}]"
    return [
        ["Humans (panels, ties in expectation)", f(facts.human), interval, ""],
        ["Humans (panels, mteb's tie rule)", f(facts.human_trec), "", ""],
    ]


def _subsection(facts: FollowingFacts) -> Section:
    rows = _people(facts)
    for m in facts.models:
        rows.append([m.name, f(m.p_mrr), "", m.verdict or noted(NO_INTERVAL)])
    who = "; ".join(
        f"{arm}: {', '.join(names) or 'none yet'}" for arm, names in facts.annotators.items()
    )
    blocks: list[Block] = [
        Paragraph(f"{facts.queries} queries; arms {', '.join(facts.arms.values())}; {who}."),
        Table(HEADER, rows, anchor=f"p-mrr-{facts.key.replace('/', '-')}"),
    ]
    if facts.pairs:
        blocks.append(Paragraph("each pair of one annotator of each arm:", lead="Pairs of people"))
        blocks.append(Table(PAIR_HEADER, [[a, b, f(v)] for a, b, v in facts.pairs]))
    return Section(f"p-MRR: {facts.key}", blocks, level=3)


def section(report: StudyReport) -> Section | None:
    """One subsection per subset with arms; None where the study has none."""
    if not report.instruction_following:
        return None
    blocks: list[Block] = [Paragraph(READING)]
    blocks += [_subsection(facts) for facts in report.instruction_following]
    return Section("Instruction following (p-MRR)", blocks, anchor="instruction-following")
