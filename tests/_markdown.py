"""Reading the tables of an exported ``report.md`` back, for tests that check its numbers."""

from __future__ import annotations

import re


def md_table(md: str, first_header: str) -> list[dict[str, str]]:
    """The Markdown table whose header row starts with ``first_header``, as dicts; footnote
    marks (superscript digits) are dropped from the cells."""
    lines = md.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header}"))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [re.sub("[⁰¹²³⁴⁵⁶⁷⁸⁹]+", "", c).strip() for c in line.strip("|").split("|")]
        rows.append(dict(zip(header, cells, strict=True)))
    return rows
