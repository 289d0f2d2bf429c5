"""Text from the data made safe for the files hume writes: CSV cells and Markdown.

Task names, model names, annotator ids and item texts come from users and datasets. Two ways
they could act instead of being read:

- **CSV formula injection.** A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or
  ``@`` as a formula (``=HYPERLINK(...)`` opens a link), and tab or carriage return can start one
  too. As OWASP recommends, such a text cell gets a leading single quote, which spreadsheets
  show as text; the csv module then quotes the cell as needed. Numbers stay numbers: an ``int``
  or ``float`` (``-0.25``), or a text that is a plain number (``"-0.25"``, ``"1e-3"``), is
  written as it is.
- **Raw HTML in Markdown.** Markdown renderers pass HTML through, so a ``<script>`` or an
  ``<img onerror=...>`` in an item text would run where the report is viewed. Markup can only
  start at a ``<`` followed by a letter, ``/``, ``!`` or ``?`` (a tag, a comment, an autolink),
  and an entity only at ``&name;`` or ``&#...;``: before data goes into ``report.md``, every
  ``<`` but one before a space, a digit or ``=`` becomes ``&lt;`` and such an ``&`` becomes
  ``&amp;``, so it shows as the same text and never acts. Everything else stays as
  written, so the Markdown source reads as text: ``HUME's``, ``"quoted"``, ``κ < 0.4``,
  ``Zou & Donner``, ``>0.8`` (the former escaping printed ``HUME&#x27;s``).
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: First characters that make a spreadsheet evaluate a cell (OWASP CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell that no spreadsheet runs as a formula (numbers unchanged)."""
    if not isinstance(value, str) or not value.startswith(FORMULA_START):
        return value
    if _PLAIN_NUMBER.match(value):
        return value
    return "'" + value


def csv_rows(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV document (``\\n`` line ends) with every cell passed through :func:`csv_cell`."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([csv_cell(h) for h in header])
    writer.writerows([csv_cell(c) for c in row] for row in rows)
    return buf.getvalue()


def csv_records(records: Sequence[Mapping[str, Any]]) -> str:
    """:func:`csv_rows` for dicts that share the keys of the first one (empty: empty text)."""
    if not records:
        return ""
    header = list(records[0])
    return csv_rows(header, ([r.get(k) for k in header] for r in records))


#: A ``<`` that could open markup (not one before a space, a digit, ``=`` or the end).
_MARKUP_START = re.compile(r"<(?![\s\d=]|$)")
#: A ``&`` that could start an entity or character reference.
_ENTITY_START = re.compile(r"&(?=#?\w+;)")


def md_text(value: Any) -> str:
    """Data for a Markdown document, one line (newlines become spaces), where it can open no
    tag and spell no entity: a ``<`` (but one before a space, a digit, ``=`` or the end)
    becomes ``&lt;`` and an ``&`` before ``name;`` or ``#...;`` becomes ``&amp;``; quotes and
    other text are left as they are."""
    text = str(value)
    if text.isprintable() and "<" not in text and "&" not in text:
        return text  # nothing to change (the common case; the rest below)
    text = " ".join(text.splitlines())
    return _MARKUP_START.sub("&lt;", _ENTITY_START.sub("&amp;", text))


def md_cell(value: Any) -> str:
    """:func:`md_text` for a Markdown table cell (``|`` escaped too)."""
    return md_text(value).replace("|", "\\|")


def md_cell_plain(text: str) -> bool:
    """Whether :func:`md_cell` leaves ``text`` as it is: no line break, ``<``, ``&`` or ``|``.

    Why: most cells of a report are numbers and names, and the writers escape thousands of
    them (issue 38); a row whose joined text passes this needs no cell escaped. Each test is
    on single characters, so the joined text of several cells passes exactly when every cell
    does. Characters that are not printable (line breaks among them) fail it, and such text
    takes :func:`md_cell`'s full way.
    """
    return text.isprintable() and "<" not in text and "&" not in text and "|" not in text


#: What :func:`html.escape` (``quote=True``) replaces.
_HTML_SPECIAL = re.compile("[&<>\"']")


def html_text(value: Any) -> str:
    """Data for an HTML page (text or attribute value): ``&``, ``<``, ``>`` and quotes escaped,
    so an email, task name or error message shows as the same text and never acts as markup."""
    text = str(value)
    if _HTML_SPECIAL.search(text) is None:
        return text  # nothing to escape: the common case, one search instead of five replaces
    return html.escape(text, quote=True)


def html_plain(text: str) -> bool:
    """Whether :func:`html_text` leaves ``text`` as it is (none of ``&<>"'``); as
    :func:`md_cell_plain`, the joined text of several cells passes exactly when each does."""
    return _HTML_SPECIAL.search(text) is None
