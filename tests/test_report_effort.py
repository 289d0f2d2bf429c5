"""Effort, cost and quality signals in the report (issue 38), on a study filled in its store.

Three annotators answer a SIB-200 classification subset of 20 items, with Label Studio lead
times set here: ``careful`` answers every item in 200–400 s and leaves one task open over lunch
(5,000 s, which the cap must cut); ``rusher`` answers 18 items, 14 of them in 20 s; ``liner``
answers 15 items, always the same label, in 250 s. Every number the report prints (hours so far
and still owed, the flags, the annotator-hours for ±0.05 and their cost at ``--rate 30``) is
worked out below from those lead times by the rules the Methods state, not read back from the
code that prints them. ``--rate`` refuses what is not a positive number in one line, and the
score files stay the same bytes with or without it.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from hume_sync.cli import main
from hume_sync.store import AnnotationRecord, Store, gold
from tests._markdown import md_table
from tests._studies import SIB, SIB_COLUMNS, write_spec

N_ITEMS = 20
SUBSET = "SIB200Classification/eng_Latn"
RATE = 30.0
OPEN_OVER_LUNCH = 5000.0


def spec() -> dict[str, Any]:
    source = {"path": str(SIB / "{subset}" / "test.tsv"), "columns": SIB_COLUMNS}
    return {
        "name": "efforttest",
        "seed": 7,
        "annotators": {"default": 3},
        "tasks": [
            {
                "name": "SIB200Classification",
                "type": "classification",
                "source": source,
                "subsets": [{"name": "eng_Latn", "language": "eng-Latn", "size": N_ITEMS}],
            }
        ],
    }


def careful(k: int, g: str, labels: list[str]) -> tuple[str, float] | None:
    return g, OPEN_OVER_LUNCH if k == 7 else 200.0 + 50.0 * (k % 5)


def rusher(k: int, g: str, labels: list[str]) -> tuple[str, float] | None:
    return None if k >= 18 else (g, 20.0 if k < 14 else 300.0)


def liner(k: int, g: str, labels: list[str]) -> tuple[str, float] | None:
    return None if k >= 15 else (sorted(labels)[0], 250.0)


ANNOTATORS = {"careful": careful, "rusher": rusher, "liner": liner}


def make_study(root: Path, *, timed: bool = True, bad_time: bool = False) -> dict[str, Any]:
    """The study, and per annotator key their lead times and answers as the store holds them
    (``timed=False``: no lead_time stored; ``bad_time``: the first one stored is negative)."""
    study = root / "study"
    assert main(["init", str(study), "--spec", str(write_spec(study, spec()))]) == 0
    made: dict[str, Any] = {"study": study, "times": {}, "answers": {}, "golds": {}}
    with Store.open(study) as store:
        sub = store.subset(SUBSET)
        labels = list(sub.config["label_set"])
        golds = gold(store, SUBSET)
        records, ann_id = [], 1
        for i, (who, rule) in enumerate(ANNOTATORS.items()):
            key = store.add_annotator(f"{who}@example.org", ["eng"], f"http://h:{9200 + i}", None)
            made[who] = key.key
            times, answers, golds_given = [], [], []
            for k, inst in enumerate(store.instances(SUBSET)):
                given = rule(k, golds[inst.hume_id], labels)
                if given is None:
                    continue
                answer, lead_time = given
                times.append(lead_time)
                answers.append(answer)
                golds_given.append(golds[inst.hume_id])
                records.append(
                    AnnotationRecord(
                        ann_id,
                        inst.hume_id,
                        1000 + ann_id,
                        key.key,
                        answer,
                        lead_time=(-5.0 if bad_time and ann_id == 1 else lead_time)
                        if timed
                        else None,
                        slot=key.slot,
                    )
                )
                ann_id += 1
            made["times"][key.key], made["answers"][key.key] = times, answers
            made["golds"][key.key] = golds_given
        store.upsert_annotations(records, subset=SUBSET)
        # a newcomer with a project and no answer yet: owes every item at the panel's rate
        newcomer = store.add_annotator("newcomer@example.org", ["eng"], "http://h:9299", None)
        store.set_slot_project(SUBSET, newcomer.slot, 77, "hume-test")
        made["newcomer"] = newcomer.key
        made["labels"] = labels
    return made


def expected(made: dict[str, Any]) -> dict[str, Any]:
    """What the report must say, from the lead times and answers by the Methods' rules."""
    everyone = [t for ts in made["times"].values() for t in ts]
    cap = min(max(5 * statistics.median(everyone), 60.0), 1800.0)
    capped = {who: [min(t, cap) for t in ts] for who, ts in made["times"].items()}
    mean_all = statistics.fmean([t for ts in capped.values() for t in ts])
    out: dict[str, Any] = {"cap": cap, "mean_s": mean_all, "seats": {}}
    for who, ts in capped.items():
        others = [t for o, os_ in made["times"].items() if o != who for t in os_]
        floor = 0.25 * statistics.median(others)
        answers = made["answers"][who]
        top = max(answers.count(a) for a in set(answers))
        owed = N_ITEMS - len(ts)
        out["seats"][who] = {
            "median": statistics.median(ts),
            "so_far": sum(ts) / 3600,
            "owed": owed * statistics.fmean(ts) / 3600,
            "items_owed": owed,
            "fast": sum(t < floor for t in made["times"][who]) / len(ts),
            "straight": top / len(answers),
        }
    return out


def section(md: str, heading: str) -> str:
    return md.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("effort")
    made = make_study(root)
    outs = {}
    for name, extra in (("plain", []), ("rate", ["--rate", "30"])):
        out = root / name
        assert main(["export", str(made["study"]), "--out", str(out), *extra]) == 0
        outs[name] = out
    md = (outs["rate"] / "report.md").read_text(encoding="utf-8")
    return {"made": made, "want": expected(made), "outs": outs, "md": md}


def test_hours_so_far_and_owed_per_seat(exported):
    made, want = exported["made"], exported["want"]
    rows = {r["annotator"]: r for r in md_table(exported["md"], "subset | annotator")}
    assert set(rows) == {made[w] for w in ANNOTATORS} | {made["newcomer"]}
    for who in ANNOTATORS:
        row, seat = rows[made[who]], want["seats"][made[who]]
        assert row["subset"] == SUBSET
        assert row["median s per item"] == f"{seat['median']:.1f}"
        assert row["hours so far"] == f"{seat['so_far']:.2f}"
        assert row["hours still owed"] == f"{seat['owed']:.2f} ({seat['items_owed']} items)"
    late = rows[made["newcomer"]]
    assert late["median s per item"] == "–" and late["hours so far"] == "0.00"
    assert late["hours still owed"] == f"{N_ITEMS * want['mean_s'] / 3600:.2f} ({N_ITEMS} items)"
    # the task left open over lunch counts as the cap, not as 5,000 s
    careful_times = made["times"][made["careful"]]
    assert want["cap"] < OPEN_OVER_LUNCH
    assert rows[made["careful"]]["hours so far"] != f"{sum(careful_times) / 3600:.2f}"
    effort = section(exported["md"], "Effort and quality signals")
    assert f"1 answer(s) capped at {want['cap']:g} s" in effort
    assert "priced at the panel's mean capped time" in effort


def test_the_rusher_and_the_straight_liner_are_flagged(exported):
    made, want = exported["made"], exported["want"]
    rows = {r["annotator"]: r for r in md_table(exported["md"], "subset | annotator")}
    for who in ANNOTATORS:
        seat = want["seats"][made[who]]
        fast_flag = " ⚑" if seat["fast"] > 0.2 else ""
        straight_flag = " ⚑" if seat["straight"] > (1 + 1 / len(made["labels"])) / 2 else ""
        assert rows[made[who]]["fast answers"] == f"{seat['fast']:.3f}{fast_flag}"
        assert rows[made[who]]["straight-lining"] == f"{seat['straight']:.3f}{straight_flag}"
    assert "⚑" in rows[made["rusher"]]["fast answers"]
    assert "⚑" in rows[made["liner"]]["straight-lining"]
    calm = rows[made["careful"]]
    assert "⚑" not in calm["fast answers"] + calm["straight-lining"]
    # beside the signals, each annotator's own accuracy against gold, from the panel
    for who in ANNOTATORS:
        key = made[who]
        right = [a == g for a, g in zip(made["answers"][key], made["golds"][key], strict=True)]
        assert rows[key]["vs gold"] == f"{sum(right) / len(right):.3f}"
    assert rows[made["careful"]]["vs gold"] == "1.000"
    study_wide = md_table(exported["md"], "annotator | hours so far")
    per_annotator = {r["annotator"]: r for r in study_wide}
    assert per_annotator[made["rusher"]]["flags"] == f"⚑ fast answers on {SUBSET}"
    assert per_annotator[made["liner"]]["flags"] == f"⚑ straight-lining on {SUBSET}"
    assert per_annotator[made["careful"]]["flags"] == "none"
    for who in ANNOTATORS:
        seat = want["seats"][made[who]]
        assert per_annotator[made[who]]["hours so far"] == f"{seat['so_far']:.2f}"


def test_annotator_hours_and_cost_for_the_target(exported):
    want = exported["want"]
    scores = json.loads((exported["outs"]["rate"] / "scores.json").read_text())
    items = scores["subsets"][0]["planning"]["n_items_for_target"]
    assert isinstance(items, int) and items > N_ITEMS
    hours = items * 3 * want["mean_s"] / 3600  # three annotators per item
    (row,) = md_table(exported["md"], "subset | items")
    assert row["items for ±0.05"] == str(items)
    assert row["annotator-hours for ±0.05"] == f"{hours:.2f}"
    assert row["cost at 30 per hour"] == f"{hours * RATE:.2f}"
    plain = (exported["outs"]["plain"] / "report.md").read_text(encoding="utf-8")
    (row,) = md_table(plain, "subset | items")
    assert row["annotator-hours for ±0.05"] == f"{hours:.2f}" and "cost at" not in " ".join(row)
    everyone = [t for ts in exported["made"]["times"].values() for t in ts]
    assert f"median {statistics.median(everyone):.1f} s per item" in exported["md"]
    assert f"mean {want['mean_s']:.1f} s (capped at {want['cap']:g} s)" in exported["md"]


def test_both_files_carry_the_section_and_the_cost(exported):
    page = (exported["outs"]["rate"] / "report.html").read_text(encoding="utf-8")
    assert "Effort and quality signals" in page and "cost at 30 per hour" in page
    methods = section(exported["md"], "Methods")
    assert "**Effort and cost**" in methods and "capped at 5× the panel's median" in methods
    assert "**Quality signals**" in methods and "straight-lining" in methods


def test_the_score_files_do_not_change_with_the_rate(exported):
    plain, rate = exported["outs"]["plain"], exported["outs"]["rate"]
    for name in ("scores.json", "scores.csv"):
        assert (plain / name).read_bytes() == (rate / name).read_bytes()
    files = sorted(p.relative_to(plain) for p in (plain / "mteb_results").rglob("*") if p.is_file())
    assert files
    for rel in files:
        assert (plain / rel).read_bytes() == (rate / rel).read_bytes()
    assert "lead_time" not in (plain / "scores.json").read_text()


def test_a_study_without_lead_times_says_so_in_one_line(tmp_path):
    made = make_study(tmp_path, timed=False)
    out = tmp_path / "out"
    args = ["export", str(made["study"]), "--out", str(out), "--rate", "30", "--with-emails"]
    assert main(args) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    part = section(md, "Effort and quality signals").strip()
    assert part.startswith("No answer in this study has a Label Studio lead_time")
    assert "hours so far" not in part and "| straight-lining |" in part
    # named by email, and each row still finds that annotator's score in the panel
    rows = {r["annotator"]: r for r in md_table(md, "subset | annotator")}
    assert rows["liner@example.org"]["straight-lining"] == "1.000 ⚑"
    assert rows["careful@example.org"]["vs gold"] == "1.000"
    assert rows["newcomer@example.org"]["vs gold"] == "–"
    (row,) = md_table(md, "subset | items")
    assert row["annotator-hours for ±0.05"] == "–" and row["cost at 30 per hour"] == "–"
    assert "no timed answer of this task type" in section(md, "Sample-size planning")


def test_a_refused_lead_time_costs_the_section_not_the_export(tmp_path):
    made = make_study(tmp_path, bad_time=True)
    out = tmp_path / "out"
    assert main(["export", str(made["study"]), "--out", str(out)]) == 0
    md = (out / "report.md").read_text(encoding="utf-8")
    part = section(md, "Effort and quality signals").strip()
    assert part.startswith("Effort and quality signals could not be computed: a lead_time")
    assert "Table 1" in md and (out / "scores.json").exists()


@pytest.mark.parametrize("rate", ["-1", "x", "0", "inf", "nan"])
def test_a_bad_rate_is_one_line_and_exit_2(tmp_path, capsys, rate):
    out = tmp_path / "out"
    assert main(["export", str(tmp_path / "missing"), "--out", str(out), "--rate", rate]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    why = "not a positive number of money per annotator-hour"
    assert err == [f"hume-sync export: error: --rate {rate!r}: {why}"]
    assert not out.exists()
