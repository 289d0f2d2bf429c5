"""Seats for subsets read in two languages (issue 36): a bitext subset shows a sentence in its
``language`` and the candidate translations in its ``target_language``, so only someone who
reads both can take one of its seats. No Label Studio: the seats are planned from the store,
and the commands below stop before any server is needed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync import task_types
from hume_sync.cli import main
from hume_sync.labelstudio import servers
from hume_sync.labelstudio.annotators import (
    plan_seats,
    reading_languages,
    seat_languages,
    speaks,
    study_languages,
)
from hume_sync.store import Store
from hume_sync.study.spec import annotators_for_all
from hume_sync.workflow.annotators import _unused_languages
from hume_sync.workflow.setup import OpenSeat, setup_study
from tests._bitext import sib_pairs, write_jsonl
from tests._paths import SOURCE_DATA

BITEXT, PAIR, STS = "Flores/eng-arb", "Flores/eng-arb-pair", "STSBenchmark/default"


def _spec(tmp_path: Path) -> dict[str, Any]:
    """English→Arabic Flores pairs (one subset by the policy, one with two annotators of its
    own) beside an English STS subset; HUME's policy: two annotators for English."""
    source = write_jsonl(tmp_path / "eng-arb.jsonl", sib_pairs("eng_Latn", "arb_Arab", 20))
    sts = {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False}
    return {
        "name": "seats",
        "seed": 5,
        "annotators": {"eng": 2, "default": 1},
        "tasks": [
            {"name": "Flores", "type": "bitext_mining", "source": {"path": str(source)},
             "target_language": "arb-Arab",
             "subsets": [{"name": "eng-arb", "language": "eng-Latn", "size": 4},
                         {"name": "eng-arb-pair", "language": "eng-Latn", "size": 4,
                          "annotators": 2}]},
            {"name": "STSBenchmark", "type": "sts", "source": sts, "score_range": [0, 5],
             "subsets": [{"language": "eng-Latn", "size": 3}]},
        ],
    }  # fmt: skip


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The study made by ``hume-sync init``, hume's home in ``tmp_path``, no Label Studio."""
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    d = tmp_path / "study"
    d.mkdir()
    (d / "study.yaml").write_text(yaml.safe_dump(_spec(tmp_path)), encoding="utf-8")
    assert main(["init", str(d), "--spec", str(d / "study.yaml")]) == 0
    return d


# ---------------------------------------------------------------------------- the hook


def test_bitext_mining_reads_the_sentence_and_the_translations_language() -> None:
    bitext = task_types.get("bitext_mining")
    config = {"target_language": "arb-Arab", "candidates": 4}
    assert bitext.study_reading_languages(config, "eng-Latn") == ("eng-Latn", "arb-Arab")
    # a config without one (never stored so: the spec requires it) falls back to the sentence's
    assert bitext.study_reading_languages({}, "eng-Latn") == ("eng-Latn",)


@pytest.mark.parametrize("name", [n for n in task_types.names() if n != "bitext_mining"])
def test_other_types_read_only_their_subsets_language(name: str) -> None:
    """The default: a stray ``target_language`` in another type's config changes nothing."""
    kind = task_types.get(name)
    assert kind.study_reading_languages({"target_language": "arb-Arab"}, "dan-Latn") == (
        "dan-Latn",
    )


def test_the_policy_gives_a_two_language_subset_the_fewer_seats() -> None:
    policy = {"eng": 2, "default": 1}
    assert annotators_for_all(["eng-Latn", "arb-Arab"], policy) == 1  # Arabic: default 1
    assert annotators_for_all(["eng-Latn"], policy) == 2
    assert annotators_for_all(["eng-Latn", "arb-Arab"], {"eng": 2, "arb": 3}) == 2
    assert annotators_for_all(["arb-Arab", "eng-Latn"], {"arb": 3, "en": 4}) == 3


# ---------------------------------------------------------------------------- seat planning


def test_a_bitext_seat_needs_a_reader_of_both_languages(study: Path) -> None:
    with Store.open(study) as st:
        subsets = {s.key: s for s in st.subsets()}
        # the spec's policy: the fewer of English's 2 and Arabic's 1; its own 2 wins; STS 2
        assert {k: s.overlap for k, s in subsets.items()} == {BITEXT: 1, PAIR: 2, STS: 2}
        assert reading_languages(subsets[BITEXT]) == ("eng", "ara")
        assert seat_languages(subsets[BITEXT]) == "eng+ara"
        assert seat_languages(subsets[STS]) == "eng"
        assert study_languages(st) == ("eng", "ara")

        a = st.add_annotator("a@x.org", ["eng"], "http://127.0.0.1:1", 2)
        b = st.add_annotator("b@x.org", ["ara"], "http://127.0.0.1:2", 2)
        assert not speaks(a, subsets[BITEXT]) and not speaks(b, subsets[BITEXT])
        plan = plan_seats(st)
        assert plan[BITEXT] == [None] and plan[PAIR] == [None, None]  # one language is not enough
        assert plan[STS] == [a.slot, None]

        c = st.add_annotator("c@x.org", ["eng", "ara"], "http://127.0.0.1:3", 2)
        d = st.add_annotator("d@x.org", ["ara", "en"], "http://127.0.0.1:4", 2)  # any order
        assert speaks(c, subsets[BITEXT]) and speaks(d, subsets[BITEXT])
        plan = plan_seats(st)
        assert plan[BITEXT] == [c.slot]
        assert plan[PAIR] == [c.slot, d.slot]
        assert plan[STS] == [a.slot, c.slot]


def test_setup_lists_the_open_bitext_seats_with_both_languages(study: Path) -> None:
    def no_server(url: str) -> Any:
        raise AssertionError(f"setup asked for the server at {url} with no annotator seated")

    with Store.open(study) as st:
        st.add_annotator("a@x.org", ["ara"], "http://127.0.0.1:1", 2)  # seated nowhere
        summary = setup_study(st, no_server)
    assert summary.projects == []
    assert summary.open_seats == [
        OpenSeat(BITEXT, "eng+ara"),
        OpenSeat(PAIR, "eng+ara"),
        OpenSeat(PAIR, "eng+ara"),
        OpenSeat(STS, "eng"),
        OpenSeat(STS, "eng"),
    ]


def test_the_target_language_counts_as_one_of_the_study(study: Path) -> None:
    with Store.open(study) as st:
        assert _unused_languages(st, ("ara", "fra")) == ("fra",)
        assert _unused_languages(st, ("ara",)) == ()


# ---------------------------------------------------------------------------- the commands


def test_the_commands_name_both_languages_and_accept_the_target_one(
    study: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["setup", str(study)]) == 0
    out = capsys.readouterr().out
    assert f"  {BITEXT:<44} open seat: no annotator for eng+ara yet" in out.splitlines()
    assert f"  {STS:<44} open seat: no annotator for eng yet" in out.splitlines()
    assert "5 seat(s) wait for annotators" in out

    assert main(["status", str(study)]) == 0
    out = capsys.readouterr().out
    assert out.count("open seat: needs an annotator for eng+ara (4 tasks)") == 3
    assert out.count("open seat: needs an annotator for eng (3 tasks)") == 2

    # the translations' language is one of the study's: refused only where no subset has it
    assert main(["annotators", "add", str(study), "a@x.org", "--languages", "fra"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.endswith("(its languages: eng, ara); nothing registered")
    # Arabic alone passes the language check and stops at the server (no token given here)
    add = ["annotators", "add", str(study), "a@x.org", "--languages", "ara"]
    assert main([*add, "--url", "http://127.0.0.1:9"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "give the admin API token of http://127.0.0.1:9 in LABEL_STUDIO_API_KEY" in line
    assert not (Path(os.environ["HUME_HOME"]) / servers.ANNOTATORS_DIR).exists()

    with Store.open(study) as st:
        st.add_annotator("c@x.org", ["eng", "ara"], "http://127.0.0.1:3", 2)
        st.add_annotator("a@x.org", ["eng"], "http://127.0.0.1:1", 2)
    assert main(["annotators", "list", str(study), "--json"]) == 0
    listed = {
        r["email"]: [s["subset"] for s in r["subsets"]]
        for r in json.loads(capsys.readouterr().out)["annotators"]
    }
    assert listed == {"c@x.org": [BITEXT, PAIR, STS], "a@x.org": [STS]}
