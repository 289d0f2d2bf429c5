"""Render a :class:`hume_sync.report.model.StudyReport` as Markdown and as one self-contained
HTML page.

Both come from one ordered list of sections (:data:`hume_sync.report.sections.SECTIONS`), each
a function from the report model to neutral blocks (:mod:`hume_sync.report.blocks`), laid out
by :mod:`hume_sync.report.markdown_writer` and :mod:`hume_sync.report.html_writer`; so the two
files carry the same sections in the same order. Every number printed was computed by
:mod:`scoring`; rendering only formats it, and every table names the method behind its numbers
(the Methods section: :mod:`hume_sync.report.methods`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hume_sync.report import html_writer, markdown_writer, sections
from hume_sync.report.methods import methods

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport

__all__ = ["html", "markdown", "markdown_and_html", "methods"]


def markdown(report: StudyReport) -> str:
    """report.md: every section of :data:`~hume_sync.report.sections.SECTIONS` in Markdown."""
    return markdown_writer.write(sections.build(report))


def html(report: StudyReport) -> str:
    """report.html: the same sections as one self-contained page."""
    return html_writer.write(sections.build(report), f"HUME report: {report.study}")


def markdown_and_html(report: StudyReport) -> tuple[str, str]:
    """report.md and report.html from one build of the sections.

    Why: the export writes both, and building the sections is most of rendering either file
    (issue 38); the blocks are data, which each writer only reads.
    """
    blocks = sections.build(report)
    return markdown_writer.write(blocks), html_writer.write(blocks, f"HUME report: {report.study}")
