"""The report as neutral blocks: what each section says, before any format is chosen.

A section (:mod:`hume_sync.report.sections`) turns the report model into a :class:`Section`
of blocks; :mod:`hume_sync.report.markdown_writer` and :mod:`hume_sync.report.html_writer` only
lay those blocks out, so both files carry the same sections, tables and footnotes by
construction. Block text is data (task names, item texts, error messages): the writers escape
all of it; only a :class:`Figure`'s SVG, drawn and escaped by :mod:`hume_sync.report.plots`,
is markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def superscript(n: int) -> str:
    """``n`` in superscript digits (``12`` -> ``¹²``): a footnote mark that reads the same in
    Markdown source, in a Markdown viewer and in the HTML page."""
    return str(n).translate(_SUPERSCRIPT)


@dataclass(frozen=True)
class Footnoted:
    """A short cell (a number, ``n/e``, ``n/a``) whose reason goes into a footnote under its
    table, so that a table stays a grid of numbers at 1366 px instead of a page of prose."""

    text: str
    note: str


#: A table cell: text, lines shown one under the other, or short text with a footnote.
Cell = str | list[str] | Footnoted


@dataclass(frozen=True)
class Paragraph:
    """One paragraph; ``lead`` is set in bold before it, ``warn`` highlights it."""

    text: str
    lead: str = ""
    warn: bool = False


@dataclass(frozen=True)
class Bullets:
    """A bulleted list; with ``terms`` each item is ``term: text``, the term in bold."""

    items: list[str]
    terms: list[str] | None = None


@dataclass(frozen=True)
class Table:
    """A table whose :class:`Footnoted` cells are numbered in reading order (row by row);
    identical reasons share one number. ``anchor`` names it for links and browser tests."""

    header: list[str]
    rows: list[list[Cell]]
    anchor: str = ""

    def numbered(self) -> tuple[list[list[str | list[str]]], list[str]]:
        """The rows with each footnoted cell as ``text`` + its superscript number, and the
        footnotes in number order."""
        notes: dict[str, int] = {}
        rows: list[list[str | list[str]]] = []
        for row in self.rows:
            out: list[str | list[str]] = []
            for cell in row:
                if isinstance(cell, Footnoted):
                    n = notes.setdefault(cell.note, len(notes) + 1)
                    out.append(f"{cell.text}{superscript(n)}")
                else:
                    out.append(cell)
            rows.append(out)
        return rows, list(notes)


@dataclass(frozen=True)
class Figure:
    """Plots: ``svg`` is inline SVG drawn by :mod:`hume_sync.report.plots` (HTML only); the
    Markdown report gives the caption and points to the HTML page."""

    svg: str
    caption: str


@dataclass(frozen=True)
class Section:
    """A heading (level 1 for the title, 2 for a section, 3 within one) and its blocks."""

    heading: str
    blocks: list[Block] = field(default_factory=list)
    level: int = 2
    anchor: str = ""


#: What a section holds: text, tables, figures and subsections.
Block = Paragraph | Bullets | Table | Figure | Section
