"""Effort, cost and quality signals on real servers (issue 38): ``status --json``, ``status``'s
text, the dashboard page and, after the close, the report (``export --rate 30``) carry the hours,
the flags and the costs computed here from the lead times the annotators' Label Studio recorded.

Two annotators, each on a Label Studio of their own, answer 12 English SIB-200 items through the
API with their own tokens: A gives gold in 20 s each but leaves one task open over lunch
(4,000 s); B rushes (2 s each), always picks the same label and leaves 2 items undone. Worked
out by hand from these times (the maths is :mod:`scoring.effort`, the rule its Methods phrase):

- the type's raw median over all 22 timed answers (10 × 2 s, 11 × 20 s, 1 × 4,000 s) is 20 s,
  so the cap is min(max(5 × 20, 60), 1,800) = 100 s: the lunch task counts 100 s;
- A: 11 × 20 + 100 = 320 s so far, nothing owed; B: 10 × 2 = 20 s so far, 2 items owed at their
  own mean of 2 s = 4 s;
- B's answers are all under 0.25 × A's median (20 s): 10 of 10 fast (flagged above 0.2); B's
  most frequent answer is 10 of 10 (flagged above (1 + 1/k)/2 for k labels); A is not flagged
  for speed (no answer under 0.25 × 2 s).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from hume_sync.cli import main
from hume_sync.labelstudio.servers import Clients
from hume_sync.report.dashboard_html import render_page
from hume_sync.store import Store, gold
from hume_sync.workflow.dashboard import Snapshots
from tests._annotate import gold_result, hume_env, set_up_study
from tests._markdown import md_table
from tests._studies import real_data_spec

pytestmark = pytest.mark.labelstudio

ENG = "SIB200Classification/eng_Latn"
N_ITEMS = 12
A_SECONDS, LUNCH_SECONDS, B_SECONDS = 20.0, 4000.0, 2.0
B_ANSWERED = 10
CAP = min(max(5 * 20.0, 60.0), 1800.0)  # the raw median of the 22 times is 20 s
A_HOURS = ((N_ITEMS - 1) * A_SECONDS + CAP) / 3600
B_HOURS = B_ANSWERED * B_SECONDS / 3600
B_OWED_HOURS = (N_ITEMS - B_ANSWERED) * B_SECONDS / 3600


@pytest.fixture(scope="module")
def world(annotator_servers, tmp_path_factory):
    root = tmp_path_factory.mktemp("effort")
    mp = hume_env(root)
    spec = real_data_spec("effort", 5, cls_eng=N_ITEMS, cls_arb=2, sts=2, rerank=2)
    spec["tasks"] = spec["tasks"][:1]
    spec["tasks"][0]["subsets"] = spec["tasks"][0]["subsets"][:1]  # English classification only
    a, b = annotator_servers
    study = set_up_study(root / "study", spec, [(a, "eng"), (b, "eng")], mp)
    client_a, client_b = a.server.client(a.token), b.server.client(b.token)
    with Store.open(study) as store:
        sub = store.subset(ENG)
        golds = gold(store, ENG)
        labels = list(sub.config["label_set"])
        ta, tb = store.slot_tasks(ENG, 1), store.slot_tasks(ENG, 2)
        insts = store.instances(ENG)
        for k, inst in enumerate(insts):
            g = golds[inst.hume_id]
            seconds = LUNCH_SECONDS if k == 0 else A_SECONDS
            client_a.create_annotation(ta[inst.hume_id], gold_result(sub, inst, g), seconds)
            if k < B_ANSWERED:
                result = gold_result(sub, inst, labels[0])
                client_b.create_annotation(tb[inst.hume_id], result, B_SECONDS)
        gold_counts = [sum(golds[i.hume_id] == lab for i in insts) for lab in labels]
    assert main(["pull", str(study)]) == 0
    yield {"dir": study, "labels": labels, "gold_counts": gold_counts}
    mp.undo()


def _status_json(study: Any, capsys: Any) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["status", str(study), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["effort_quality"]


def _by_slot(data: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {a["slot"]: a for a in data["annotators"]}


def test_status_json_hours_and_flags(world, capsys) -> None:
    data = _status_json(world["dir"], capsys)
    a, b = _by_slot(data)[1], _by_slot(data)[2]
    assert a["hours_so_far"] == pytest.approx(A_HOURS, abs=1e-9)
    assert a["hours_owed"] == pytest.approx(0.0, abs=1e-12)
    assert b["hours_so_far"] == pytest.approx(B_HOURS, abs=1e-9)
    assert b["hours_owed"] == pytest.approx(B_OWED_HOURS, abs=1e-9)
    assert data["total"]["hours_so_far"] == pytest.approx(A_HOURS + B_HOURS, abs=1e-9)
    assert data["total"]["hours_owed"] == pytest.approx(B_OWED_HOURS, abs=1e-9)
    # B: all 10 answers fast and all the same label; A: none fast, gold's own spread
    assert b["fast"]["value"] == 1.0 and b["fast"]["flagged"]
    assert b["straight_lining"]["value"] == 1.0 and b["straight_lining"]["flagged"]
    assert a["fast"]["value"] == 0.0 and not a["fast"]["flagged"]
    k = len(world["labels"])
    a_share = max(world["gold_counts"]) / N_ITEMS
    assert a["straight_lining"]["value"] == pytest.approx(a_share)
    assert a["straight_lining"]["flagged"] == (a_share > (1 + 1 / k) / 2)
    flags = {f["flag"] for f in b["flags"]}
    assert flags == {f"fast answers on {ENG}", f"straight-lining on {ENG}"}
    assert not a["flags"] or all("straight-lining" in f["flag"] for f in a["flags"])
    assert "no gold" in data["methods"]["quality"] or "never gold" in data["methods"]["quality"]


def test_status_text_shows_the_hours_and_the_flags(world, capsys) -> None:
    capsys.readouterr()
    assert main(["status", str(world["dir"])]) == 0
    out = capsys.readouterr().out
    assert f"Hours: {A_HOURS + B_HOURS:.2f} spent, {B_OWED_HOURS:.2f} still owed" in out
    lines = [line for line in out.splitlines() if line.startswith("flag: ")]
    assert any(f"fast answers on {ENG} (100% of 10" in line for line in lines)
    assert any(f"straight-lining on {ENG} (100% of 10" in line for line in lines)


def _cell(page: str, annotator: str, key: str) -> tuple[float, int]:
    row = re.search(rf'<tr data-annotator="{annotator}">(.*?)</tr>', page, re.S)
    assert row, annotator
    cell = re.search(rf'data-k="{key}" data-v="([^"]*)"(?: data-flag="(\d)")?', row.group(1))
    assert cell, (annotator, key)
    return float(cell.group(1)), int(cell.group(2) or 0)


def test_the_dashboard_shows_the_same_numbers(world) -> None:
    snapshots = Snapshots(world["dir"] / "study.sqlite", Clients, refresh_s=30)
    page = render_page(snapshots.read())
    assert "Effort and quality signals" in page
    assert _cell(page, "annotator-1", "hours_so_far")[0] == pytest.approx(A_HOURS, abs=1e-9)
    assert _cell(page, "annotator-2", "hours_owed")[0] == pytest.approx(B_OWED_HOURS, abs=1e-9)
    assert _cell(page, "annotator-2", "fast") == (1.0, 1)
    assert _cell(page, "annotator-2", "straight_lining") == (1.0, 1)
    assert _cell(page, "annotator-1", "fast") == (0.0, 0)
    assert f'data-flag-text="fast answers on {ENG}"' in page


def test_the_report_shows_hours_flags_and_cost(world, tmp_path) -> None:
    assert main(["close", str(world["dir"]), "--force"]) == 0
    out = tmp_path / "report"
    assert main(["export", str(world["dir"]), "--out", str(out), "--rate", "30"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    people = {r["annotator"]: r for r in md_table(text, "annotator | hours so far")}
    assert people["annotator-1"]["hours so far"].startswith(f"{A_HOURS:.2f}")
    assert people["annotator-2"]["hours so far"].startswith(f"{B_HOURS:.2f}")
    assert people["annotator-2"]["hours still owed"].startswith(f"{B_OWED_HOURS:.2f}")
    assert f"fast answers on {ENG}" in people["annotator-2"]["flags"]
    assert f"straight-lining on {ENG}" in people["annotator-2"]["flags"]
    [plan] = [r for r in md_table(text, "subset | items") if r["subset"] == ENG]
    items = int(plan["items for ±0.05"])
    mean_s = ((N_ITEMS - 1) * A_SECONDS + CAP + B_ANSWERED * B_SECONDS) / (N_ITEMS + B_ANSWERED)
    hours = items * 2 * mean_s / 3600  # two annotators per item
    assert plan["annotator-hours for ±0.05"].startswith(f"{hours:.2f}")
    assert plan["cost at 30 per hour"].startswith(f"{hours * 30:.2f}")
    assert "lead_time" in text and "capped" in text  # the cap is named in Methods
