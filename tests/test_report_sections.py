"""report.md and report.html carry the same sections in the same order (issue 37).

Both files are laid out from one ordered list of sections (``hume_sync.report.sections``).
A real report (tests/_report_study.py: three annotators, an LLM annotator, models from a
results folder) is exported; the headings of both files, read back from the files, must be the
same list, the one the section list gives, and include the sections that had drifted apart
(Warnings was in the Markdown only; "Against the best annotator" was conditional in one file
and always shown in the other). Each table's footnotes are the same in both files, and a
reason shared by two cells is printed once.
"""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

import pytest

from hume_sync.report import html_writer, sections
from hume_sync.report.blocks import Footnoted, Section, Table
from hume_sync.report.model import build_report
from hume_sync.store import Store
from tests._report_study import export_report_study


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("sections")
    made, out, _ = export_report_study(root, annotators="abc")
    with Store.open(made["study"]) as store:
        report = build_report(store, results_dir=str(root / "results"))
    return {
        "md": (out / "report.md").read_text(encoding="utf-8"),
        "html": (out / "report.html").read_text(encoding="utf-8"),
        "sections": sections.build(report),
    }


def md_headings(md: str) -> list[tuple[int, str]]:
    return [(len(h), t) for h, t in re.findall(r"^(#{1,3}) (.+)$", md, flags=re.M)]


def html_headings(page: str) -> list[tuple[int, str]]:
    found = re.findall(r"<h([1-3])[^>]*>(.*?)</h\1>", page)
    return [(int(level), html_lib.unescape(text)) for level, text in found]


def headings(secs: list[Any]) -> list[tuple[int, str]]:
    """The headings of ``secs`` and of the subsections in them, in reading order."""
    out = []
    for s in secs:
        if isinstance(s, Section):
            out.append((s.level, s.heading))
            out += headings(s.blocks)
    return out


def test_both_files_carry_the_same_sections_in_the_same_order(exported):
    md, page = md_headings(exported["md"]), html_headings(exported["html"])
    assert md == page
    assert md == headings(exported["sections"])
    level2 = [t for level, t in md if level == 2]
    assert level2[:3] == [
        "Late and invalid answers",
        "Table 1: mean over subsets (%)",
        "Humans against the models, per subset",
    ]
    assert level2[-3:] == ["Sealing", "Warnings", "Methods"]
    # The sections that had drifted are in both files now: this study has an LLM paired
    # with the best annotator and agreement warnings.
    assert "Against the best annotator" in level2 and "Agreement per task" in level2
    assert "Effort and quality signals" in level2  # issue 38
    assert len(level2) == 16


def test_a_section_missing_from_one_file_is_seen(exported):
    """The comparison above fails when one writer drops a section (here: Warnings)."""
    fewer = [s for s in exported["sections"] if s.heading != "Warnings"]
    page = html_writer.write(fewer, "t")
    assert html_headings(page) != md_headings(exported["md"])


def test_footnotes_are_the_same_in_both_files(exported):
    md_notes = re.findall(r"^(\d+)\. (.+)$", exported["md"], flags=re.M)
    lists = re.findall(r'<ol class="notes">(.*?)</ol>', exported["html"])
    html_notes = [
        (str(n), html_lib.unescape(li))
        for items in lists
        for n, li in enumerate(re.findall(r"<li>(.*?)</li>", items), 1)
    ]
    assert md_notes == html_notes
    assert any(t.startswith("not estimable: no interval on ") for _, t in md_notes)
    # Table 1's cells hold marks, not sentences.
    table1 = exported["md"].split("## Table 1")[1].split("\n### ")[0]
    assert "not estimable" not in "\n".join(ln for ln in table1.splitlines() if ln[:1] == "|")
    assert re.search(r"\| n/e[¹²³⁴⁵⁶⁷⁸⁹⁰]+ \|", table1)


def test_identical_reasons_share_one_number_in_reading_order():
    a, b = "not estimable: one annotator", "no interval: leave-one-out scores share annotators"
    table = Table(
        ["x", "y"],
        [
            ["1", Footnoted("n/e", a)],
            [Footnoted("0.5", b), Footnoted("n/e", a)],
            [["line"], Footnoted("0.7", b)],
        ],
    )
    rows, notes = table.numbered()
    assert rows == [["1", "n/e¹"], ["0.5²", "n/e¹"], [["line"], "0.7²"]]
    assert notes == [a, b]


def test_markdown_leaves_quotes_alone(exported):
    md = exported["md"]
    assert "HUME's aggregate" in md
    assert "&#x27;" not in md and "&quot;" not in md
