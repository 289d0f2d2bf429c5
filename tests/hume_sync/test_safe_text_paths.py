"""The report writers' quick ways through escaping give the text the full escaping gives.

md_text, md_cell and html_text return a text that needs nothing changed as it is, and the
Markdown and HTML writers join a row none of whose cells needs escaping without escaping each
(issue 38). The references here are the escaping written out in full, html.escape for HTML.
"""

from __future__ import annotations

import html
import random
import re

from hume_sync.report import html_writer, markdown_writer
from hume_sync.report.blocks import Cell, Footnoted, Section, Table
from hume_sync.report.safe_text import html_plain, html_text, md_cell, md_cell_plain, md_text

#: Plain letters, digits and punctuation, each character the escaping changes, line breaks of
#: every kind str.splitlines knows, and other characters that are not printable.
_ALPHABET = (
    list("ab0 .,;-=é€")
    + list("<&|>\"'#")
    + list("\n\r\v\f\x1c\x85\u2028\u2029")
    + [
        "\t",
        "\xa0",
        "\x00",
        "\u200b",
    ]
)


def _ref_md_text(value: object) -> str:
    text = " ".join(str(value).splitlines())
    text = re.sub(r"&(?=#?\w+;)", "&amp;", text)
    return re.sub(r"<(?![\s\d=]|$)", "&lt;", text)


def _texts(n: int) -> list[str]:
    rng = random.Random(38)
    made = ["", "0.812", "a&b;", "&#12;", "x < 1", "<b>", "a|b", "κ < 0.4", "line\r\nnext"]
    made += ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 8))) for _ in range(n)]
    return made


def test_escaping_equals_the_full_escaping_on_every_kind_of_text() -> None:
    texts = _texts(5000)
    for t in texts:
        assert md_text(t) == _ref_md_text(t), repr(t)
        assert md_cell(t) == _ref_md_text(t).replace("|", "\\|"), repr(t)
        assert html_text(t) == html.escape(t, quote=True), repr(t)
        if md_cell_plain(t):  # a plain text is one the full escaping leaves as it is
            assert md_cell(t) == t, repr(t)
        assert html_plain(t) == (html.escape(t) == t), repr(t)
    assert md_cell_plain("0.812") and md_cell_plain("Zou-Donner 95% [0.1, 0.3]")
    for value in (3, 0.25, None, ["<a>"]):
        assert md_text(value) == _ref_md_text(value)
        assert html_text(value) == html.escape(str(value))
    # a joined row passes exactly when each of its cells does
    rng = random.Random(1)
    for _ in range(2000):
        row = rng.sample(texts, 3)
        assert md_cell_plain("".join(row)) == all(md_cell_plain(c) for c in row)
        assert html_plain("".join(row)) == all(html_plain(c) for c in row)


def test_tables_read_as_each_cell_escaped_on_its_own() -> None:
    texts = _texts(600)
    rows: list[list[Cell]] = [list(texts[i : i + 4]) for i in range(0, len(texts) - 4, 4)]
    rows += [["plain", "0.5", "n/a", "x"], ["plain", ["two", "<lines>"], "a", "b"]]
    rows.append(["with note", Footnoted("n/e", "not estimable: one annotator"), "c", "d"])
    table = Table(["h<1>", "h|2", "h3", "h4"], rows)
    numbered, notes = table.numbered()
    md = markdown_writer.write([Section("T", [table])])
    expected_md = ["| " + " | ".join(_ref_md_text(h).replace("|", "\\|") for h in table.header)]
    for row in numbered:
        cells = [
            "<br>".join(_ref_md_text(x).replace("|", "\\|") for x in c)
            if isinstance(c, list)
            else _ref_md_text(c).replace("|", "\\|")
            for c in row
        ]
        expected_md.append("| " + " | ".join(cells) + " |")
    lines = md.splitlines()
    assert lines[2].startswith(expected_md[0])
    assert lines[4 : 4 + len(numbered)] == expected_md[1:]
    page = html_writer.write([Section("T", [table])], "t")
    body = "".join(
        "<tr>"
        + "".join(
            "<td>"
            + (
                "<br>".join(html.escape(x) for x in c)
                if isinstance(c, list)
                else html.escape(str(c))
            )
            + "</td>"
            for c in row
        )
        + "</tr>"
        for row in numbered
    )
    assert f"<tbody>{body}</tbody>" in page
    assert notes == ["not estimable: one annotator"]
