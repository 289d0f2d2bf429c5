"""Lay out the report's blocks (:mod:`hume_sync.report.blocks`) as one self-contained HTML
page: inline CSS and SVG, no external resource, so it opens offline and can be mailed.

Every text is escaped (:func:`hume_sync.report.safe_text.html_text`); only a figure's SVG,
drawn and escaped by :mod:`hume_sync.report.plots`, goes in as markup. A wide table scrolls
inside its own box, never the page; Table 1 is kept narrow enough not to
(:mod:`hume_sync.report.table1`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from hume_sync.report.blocks import Block, Bullets, Figure, Paragraph, Section, Table
from hume_sync.report.safe_text import html_plain
from hume_sync.report.safe_text import html_text as _h

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1500px;
color:#222;padding:0 1rem}table{border-collapse:collapse;margin:0.5rem 0 1.5rem;font-size:0.85rem}
th,td{border:1px solid #ccc;padding:0.25rem 0.5rem;text-align:left;vertical-align:top}
th{background:#f2f2f2}h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #ddd}
.warn{background:#fff4e5;border-left:4px solid #f0a030;padding:0.5rem 1rem}
figure{margin:1rem 0}figcaption{font-size:0.9rem;color:#555}
svg.plot{display:block;height:auto;margin:0 0 1rem}svg text{font-size:13px;fill:#222}
.scroll{overflow-x:auto;max-width:100%}td{overflow-wrap:break-word}
ol.notes{font-size:0.8rem;color:#444;margin:-1rem 0 1.5rem;padding-left:1.5rem}
"""


def _cell(c: str | list[str]) -> str:
    """A table cell: escaped text, or escaped lines (a list) one under the other."""
    return "<br>".join(_h(x) for x in c) if isinstance(c, list) else _h(c)


def _row(cells: Sequence[str | list[str]]) -> str:
    """A table row; a row of texts none of which needs escaping is joined as it is (most rows
    of a report are numbers and names: escaping each cell was a third of writing it)."""
    if all(type(c) is str for c in cells):
        texts = cast("Sequence[str]", cells)
        if html_plain("".join(texts)):
            return "<tr><td>" + "</td><td>".join(texts) + "</td></tr>"
    return "<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in cells) + "</tr>"


def _id(anchor: str) -> str:
    return f' id="{_h(anchor)}"' if anchor else ""


def _table(t: Table) -> str:
    rows, notes = t.numbered()
    head = "".join(f"<th>{_h(c)}</th>" for c in t.header)
    body = "".join([_row(r) for r in rows])
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    out = f'<div class="scroll"{_id(t.anchor)}>{table}</div>'
    if notes:
        out += '<ol class="notes">' + "".join(f"<li>{_h(n)}</li>" for n in notes) + "</ol>"
    return out


def _block(b: Block) -> str:
    if isinstance(b, Section):
        tag = f"h{b.level}"
        head = f"<{tag}{_id(b.anchor)}>{_h(b.heading)}</{tag}>"
        return "\n".join([head, *(_block(inner) for inner in b.blocks)])
    if isinstance(b, Paragraph):
        lead = f"<b>{_h(b.lead)}</b> " if b.lead else ""
        cls = ' class="warn"' if b.warn else ""
        return f"<p{cls}>{lead}{_h(b.text)}</p>"
    if isinstance(b, Bullets):
        terms = b.terms or [""] * len(b.items)
        items = "".join(
            f"<li><b>{_h(k)}</b>: {_h(v)}</li>" if k else f"<li>{_h(v)}</li>"
            for k, v in zip(terms, b.items, strict=True)
        )
        return f"<ul>{items}</ul>"
    if isinstance(b, Table):
        return _table(b)
    assert isinstance(b, Figure)
    return f"<figure>{b.svg}<figcaption>{_h(b.caption)}</figcaption></figure>"


def write(sections: list[Section], title: str) -> str:
    """The HTML page of ``sections``, in their order, titled ``title``."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{_h(title)}</title><style>{_CSS}</style></head><body>"
        + "\n".join(_block(s) for s in sections)
        + "</body></html>\n"
    )
