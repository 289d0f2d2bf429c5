"""Issue 11 item 8: names and texts from the data cannot act in the files hume writes.

CSV (scores.csv, `leaderboard --format csv`): a cell that starts with = + - @ tab or CR is a
formula in a spreadsheet; it gets a leading single quote (OWASP), numbers stay numbers.
Markdown (report.md, `leaderboard --format markdown`): raw HTML from the data is escaped (every
`<` that could open a tag), quotes are left as they are (issue 37).
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import yaml

from hume_sync.cli import main
from hume_sync.store import AnnotationRecord, Store, gold
from tests._paths import MTEB_RESULTS, REPO_ROOT
from tests.task_type_examples import examples

DEMO = REPO_ROOT / "hume_sync" / "demo_data"
FORMULA_MODEL = '=HYPERLINK("http://evil.example/x","click")'
SCRIPT = "<script>alert('x')</script>"
IMG = "<img src=x onerror=alert(1)>"


def test_leaderboard_csv_neutralises_formulas_and_keeps_numbers(tmp_path, capsys):
    src = MTEB_RESULTS / "sentence-transformers__all-MiniLM-L6-v2"
    for folder, name in (("evil__a", FORMULA_MODEL), ("evil__b", "@SUM(1+1)*cmd|' /C calc'!A0")):
        shutil.copytree(src, tmp_path / folder)
        for meta in (tmp_path / folder).glob("*/model_meta.json"):
            data = json.loads(meta.read_text())
            meta.write_text(json.dumps({**data, "name": name}))
    assert main(["leaderboard", str(tmp_path), "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    cells = {r[1]: r for r in rows[1:]}
    assert "'" + FORMULA_MODEL in cells and "'@SUM(1+1)*cmd|' /C calc'!A0" in cells
    assert not any(c.startswith(("=", "+", "@")) for r in rows for c in r)
    row = cells["'" + FORMULA_MODEL]
    assert float(row[3]) > 0 and row[3][0].isdigit()  # the mean stays a number


def test_leaderboard_markdown_escapes_html(tmp_path, capsys):
    src = MTEB_RESULTS / "sentence-transformers__all-MiniLM-L6-v2"
    shutil.copytree(src, tmp_path / "evil__c")
    for meta in (tmp_path / "evil__c").glob("*/model_meta.json"):
        meta.write_text(json.dumps({**json.loads(meta.read_text()), "name": SCRIPT}))
    assert main(["leaderboard", str(tmp_path), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    # The tags are escaped, so they show as text and never open; the quotes stay quotes.
    assert "<script>" not in out and "&lt;script>alert('x')&lt;/script>" in out
    assert not re.search(r"<[A-Za-z/!?]", out)


def _hostile_study(tmp_path: Path) -> Path:
    """Classification items whose texts carry HTML, a task named like a formula, and an STS
    subset that one annotator rates against gold (a negative Spearman)."""
    data = tmp_path / "items.jsonl"
    texts = [SCRIPT, IMG, "=cmd|' /C calc'!A0", "plain text", "another", "+1 and more"]
    data.write_text(
        "\n".join(
            json.dumps({"id": f"i{n}", "text": t, "label": "pos" if n % 2 else "neg"})
            for n, t in enumerate(texts)
        ),
        encoding="utf-8",
    )
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "injection",
                "annotators": 2,
                "tasks": [
                    {
                        "name": "=1+2",
                        "type": "classification",
                        "source": {"path": str(data)},
                        "sampling": "all",
                        "subsets": [{"language": "eng-Latn", "size": 6}],
                    },
                    {
                        "name": "-Similarity",
                        "type": "sts",
                        "source": {"path": str(DEMO / "similarity_en.jsonl")},
                        "sampling": "all",
                        "subsets": [{"language": "eng-Latn", "size": 6}],
                    },
                ],
            }
        ),
        encoding="utf-8",
    )
    study = tmp_path / "study"
    assert main(["init", str(study), "--spec", str(spec)]) == 0
    records = []
    with Store.open(study) as store:
        for sub in store.subsets():
            for hid, g in gold(store, sub.key).items():
                # Both annotators answer away from gold (STS: the mirrored level, so that the
                # annotators' Spearman, a number in a cell that starts with '-', is negative).
                simulated = examples(sub.task_type)
                away = simulated.other_answer(
                    simulated.perfect_answer(g), sub.config.get("label_set") or []
                )
                answers = {"ls-user-1": away, "ls-user-2": away}
                for who, answer in answers.items():
                    n = len(records) + 1
                    records.append(AnnotationRecord(n, hid, n, who, answer=answer))
        store.upsert_annotations(records)
    return study


def test_export_csv_and_markdown_are_inert(tmp_path):
    study = _hostile_study(tmp_path)
    out = tmp_path / "out"
    assert main(["export", str(study), "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO((out / "scores.csv").read_text(encoding="utf-8"))))
    assert rows and all(r["task_name"] in ("'=1+2", "'-Similarity") for r in rows)
    assert all(r["subset"].startswith("'") for r in rows)
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "@", "\t", "\r")), row
            if value.startswith("-"):
                float(value)  # a negative number, written as a number
    sts = [r for r in rows if r["task_name"] == "'-Similarity" and r["kind"] == "annotator"]
    assert sts and all(float(r["score"]) < 0 for r in sts)  # the score stays numeric
    report = (out / "report.md").read_text(encoding="utf-8")
    assert SCRIPT not in report and IMG not in report and "<img" not in report
    assert "&lt;script>alert('x')&lt;/script>" in report
    assert "&lt;img src=x onerror=alert(1)>" in report
    # No tag opens anywhere but the line breaks the report itself puts in list cells.
    assert set(re.findall(r"<[A-Za-z/!?][^>]*>?", report)) <= {"<br>"}
    assert "&#x27;" not in report and "&quot;" not in report
