"""The report's sections, in the order both files print them: one list, :data:`SECTIONS`.

Each entry is a function from the report model to a :class:`~hume_sync.report.blocks.Section`
(``None`` where the section has nothing to say for this study, e.g. no LLM annotator). The
Markdown and HTML writers lay out whatever this list gives, so a section added here appears in
both files, in the same place; ``tests/test_report_sections.py`` checks it on a real report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hume_sync.report import (
    effort_tables,
    figures,
    instruction_following_section,
    retrieval_section,
    tables,
)
from hume_sync.report.blocks import Block, Bullets, Paragraph, Section
from hume_sync.report.cells import f, pct
from hume_sync.report.methods import methods
from hume_sync.report.table1 import META_COLUMNS, table1
from hume_sync.rules.late_answers import EDITED_NOTE

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport

NO_LLM_ALT_TEST = "No LLM annotator answered in this study: nothing to test."
LOW_AGREEMENT = "Low agreement (κ < 0.4 or ρ < 0.6)"
META_HEADERS = [h for _, h in META_COLUMNS]


def names_line(report: StudyReport) -> str:
    """How annotators are named in this report (said in its header)."""
    if report.with_emails:
        return (
            "Annotators are named by email (export --with-emails): keep this report within "
            "the team."
        )
    return (
        "Annotators are named by pseudonymous keys (annotator-N: their slot in this study, the "
        "same in every file); export --with-emails names them by email, for the team only."
    )


def _coverage(report: StudyReport) -> Paragraph:
    if report.complete:
        return Paragraph("Coverage: every subset is fully annotated.")
    parts = [
        f"{s.input.key} {s.coverage['items_annotated']}/{s.coverage['items_planned']} items, "
        f"{s.coverage['annotations']}/{s.coverage['annotations_planned']} annotations"
        for s in report.subsets
        if not s.coverage["complete"]
    ]
    text = "— scores below cover only what is annotated: " + "; ".join(parts) + "."
    return Paragraph(text, lead="Partly annotated study", warn=True)


def _summary_lines(report: StudyReport) -> list[str]:
    lines = []
    human = next((r for r in report.rows if r.rater.kind == "human"), None)
    if human is not None:
        rank = "not ranked (incomplete)" if human.rank is None else f"rank {human.rank}"
        lines.append(
            f"Humans: {pct(human.mean)} % mean over {human.n_subsets} subset(s), {rank} of "
            f"{sum(1 for r in report.rows if r.rank is not None)} ranked raters."
        )
    if report.human_vs_models is not None:
        h = report.human_vs_models.to_dict()
        lines.append(
            f"Humans beat the best model on {h['wins_vs_best']} of {h['n_subsets']} subsets and "
            f"the median model on {h['wins_vs_median']}."
        )
    for name, corr in sorted(report.human_llm_correlation.items()):
        value = corr.get("value")
        lines.append(
            f"Human vs {name} across subsets: Spearman ρ = {f(value)}"
            + (
                f" (n = {corr.get('n_items')})"
                if value is not None
                else f" ({corr.get('reason', 'undefined')})"
            )
        )
    if report.results_models:
        lines.append(f"Models added from the results folder: {len(report.results_models)}.")
    broken = [c.model_version for c in report.sealing.checks if c.failed] if report.sealing else []
    if broken:
        lines.append(f"Sealing broken for {', '.join(broken)}: see the Sealing section.")
    return lines


def title(report: StudyReport) -> Section:
    blocks: list[Block] = [_coverage(report), Paragraph(names_line(report))]
    blocks.append(Bullets(_summary_lines(report)))
    return Section(f"HUME study report: {report.study}", blocks, level=1)


def _close_line(report: StudyReport) -> str:
    """When annotation closed and what happened to the answers given after it."""
    if report.closed_at is None:
        return "Annotation is open (no close recorded): no answer counts as late."
    n_late = report.total_left_out("late")
    fate = (
        "included in every score (--include-late)"
        if report.include_late
        else "left out of every score (export --include-late keeps them)"
    )
    line = f"Annotation closed at {report.closed_at}; {n_late} late answer(s) {fate}."
    n_deleted = report.total_left_out("late_deleted")
    if n_deleted:
        kept = (
            "the deletions count (--include-late)"
            if report.include_late
            else "each still scored as it was at the close (export --include-late drops them)"
        )
        line += f" {n_deleted} answer(s) deleted in Label Studio after the close: {kept}."
    if any(s.input.late_edited for s in report.subsets):
        line += f" Note: {EDITED_NOTE}."
    return line


def late_and_invalid(report: StudyReport) -> Section:
    table = tables.left_out_table(report)
    body = table if table.rows else Paragraph("No late or invalid answers.")
    blocks: list[Block] = [Paragraph(_close_line(report)), body]
    return Section("Late and invalid answers", blocks, anchor="late-invalid")


def table_1(report: StudyReport) -> Section:
    first, second = table1(report)
    blocks: list[Block] = [first]
    if len(second.header) > 1:  # a column besides the rater's
        meta = ", and model metadata" if set(second.header) & set(META_HEADERS) else ""
        blocks.append(Section(f"Table 1, continued: mean per language (%){meta}", [second], 3))
    return Section("Table 1: mean over subsets (%)", blocks)


def subset_plots(report: StudyReport) -> Section:
    return Section("Humans against the models, per subset", [figures.subset_plots(report)])


def per_subset(report: StudyReport) -> Section:
    return Section("Per subset", [tables.subset_table(report)])


def which_human(report: StudyReport) -> Section:
    return Section("Which human, per subset", [tables.panel_table(report)])


def against_best(report: StudyReport) -> Section | None:
    table = tables.vs_best_table(report)
    return Section("Against the best annotator", [table]) if table.rows else None


def agreement(report: StudyReport) -> Section:
    return Section("Agreement per task", [figures.agreement_plot(report)])


def models(report: StudyReport) -> Section:
    return Section("Models and LLM annotators against the humans", [tables.model_table(report)])


def llm_agreement(report: StudyReport) -> Section | None:
    table = tables.llm_agreement_table(report)
    if not table.rows:
        return None
    heading = "LLM annotators: agreement with humans (apart from human–human)"
    return Section(heading, [table, figures.llm_plot(report)])


def alt_test(report: StudyReport) -> Section:
    table = tables.alt_test_table(report)
    body = table if table.rows else Paragraph(NO_LLM_ALT_TEST)
    return Section("Can an LLM replace an annotator? (alternative annotator test)", [body])


def dataset_quality(report: StudyReport) -> Section:
    low = [
        f"{s.input.key} ({a.method} {f(a.value)})"
        for s in report.subsets
        if s.low_agreement and (a := s.headline_agreement) is not None
    ]
    line = (
        f"{LOW_AGREEMENT}, candidates for revision: {', '.join(low)}."
        if low
        else f"{LOW_AGREEMENT}: none."
    )
    blocks: list[Block] = [Paragraph(line)]
    lists = (
        (
            f"Items on which annotators disagreed (first {tables.MAX_ITEMS_LISTED} per subset)",
            "disagreements",
        ),
        ("Candidate gold errors: annotators agree with each other, not with gold", "gold_suspects"),
    )
    for heading, attr in lists:
        rows = [r for s in report.subsets for r in tables.item_rows(getattr(s, attr), s.input.key)]
        body = tables.Table(tables.ITEM_HEADER, rows) if rows else Paragraph("None.")
        blocks.append(Section(heading, [body], level=3))
    return Section("Dataset quality", blocks)


def effort_and_quality(report: StudyReport) -> Section:
    return Section(
        "Effort and quality signals", effort_tables.effort_blocks(report), anchor="effort"
    )


def planning(report: StudyReport) -> Section:
    return Section("Sample-size planning", [tables.planning_table(report)])


def sealing(report: StudyReport) -> Section:
    seal = report.sealing
    if seal is None or not seal.checks:
        line = "No sealed model or LLM answers in this study."
    else:
        first = seal.first_annotation_at or "none pulled"
        verdict = (
            "SEALING BROKEN: see the flagged rows"
            if seal.failed
            else "every commitment matches the stored answers"
        )
        line = f"Study id {seal.study_id}; first annotation {first}; {verdict}."
    blocks: list[Block] = [Paragraph(line, warn=bool(seal and seal.failed))]
    table = tables.sealing_table(report)
    if table.rows:
        blocks.append(table)
    return Section("Sealing", blocks, anchor="sealing")


def warnings(report: StudyReport) -> Section | None:
    warn = [f"{s.input.key}: {w}" for s in report.subsets for w in s.warnings]
    warn += [
        f"{s.input.key}: {a.method}: {w}"
        for s in report.subsets
        for a in s.agreement
        for w in a.warnings
    ]
    warn += [str(p) for p in report.problems]
    return Section("Warnings", [Bullets(warn)]) if warn else None


def methods_section(report: StudyReport) -> Section:
    topics = methods(report)
    return Section("Methods", [Bullets([v for _, v in topics], terms=[k for k, _ in topics])])


#: Every section of the report, in the order both files print them.
SECTIONS: tuple[Callable[[StudyReport], Section | None], ...] = (
    title,
    late_and_invalid,
    table_1,
    subset_plots,
    per_subset,
    which_human,
    against_best,
    agreement,
    models,
    retrieval_section.section,
    instruction_following_section.section,
    llm_agreement,
    alt_test,
    dataset_quality,
    effort_and_quality,
    planning,
    sealing,
    warnings,
    methods_section,
)


def build(report: StudyReport) -> list[Section]:
    """The report's sections for this study, in order (those with nothing to say left out)."""
    return [s for make in SECTIONS if (s := make(report)) is not None]
