"""Lay out the report's blocks (:mod:`hume_sync.report.blocks`) as Markdown.

Every text is data and is escaped by :func:`hume_sync.report.safe_text.md_text` (HTML in an
item text shows as text, quotes stay quotes); a table cell also escapes ``|``. Footnotes of a
table follow it as a numbered list. A figure cannot be drawn in Markdown: its caption says
that the plots are in report.html.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from hume_sync.report.blocks import Block, Bullets, Figure, Paragraph, Section, Table
from hume_sync.report.safe_text import md_cell, md_cell_plain, md_text


def _cell(c: str | list[str]) -> str:
    """A cell: text, or lines (a list) separated by line breaks."""
    return "<br>".join(md_cell(x) for x in c) if isinstance(c, list) else md_cell(c)


def _row(cells: Sequence[str | list[str]]) -> str:
    """A table row; a row of texts none of which needs escaping is joined as it is (most rows
    of a report are numbers and names: escaping each cell was a third of writing it)."""
    if all(type(c) is str for c in cells):
        texts = cast("Sequence[str]", cells)
        if md_cell_plain("".join(texts)):
            return "| " + " | ".join(texts) + " |"
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _table(t: Table) -> list[str]:
    rows, notes = t.numbered()
    out = [_row(t.header), "|" + "---|" * len(t.header)]
    out += [_row(r) for r in rows]
    out.append("")
    if notes:
        out += [f"{n}. {md_text(note)}" for n, note in enumerate(notes, 1)] + [""]
    return out


def _block(b: Block) -> list[str]:
    if isinstance(b, Section):
        out = ["#" * b.level + " " + md_text(b.heading), ""]
        for inner in b.blocks:
            out += _block(inner)
        return out
    if isinstance(b, Paragraph):
        lead = f"**{md_text(b.lead)}** " if b.lead else ""
        return [lead + md_text(b.text), ""]
    if isinstance(b, Bullets):
        terms = b.terms or [""] * len(b.items)
        return [
            f"- **{md_text(k)}**: {md_text(v)}" if k else f"- {md_text(v)}"
            for k, v in zip(terms, b.items, strict=True)
        ] + [""]
    if isinstance(b, Table):
        return _table(b)
    assert isinstance(b, Figure)
    return [f"Figure (drawn in report.html): {md_text(b.caption)}", ""]


def write(sections: list[Section]) -> str:
    """The Markdown document of ``sections``, in their order."""
    return "\n".join(line for s in sections for line in _block(s))
