"""StudyRules, the study side of every task type: checked for each registered type, and shown
to be enough: a type registered later is specified, sampled, planned and stored with no change
to the spec, sampling, planning or store code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hume_sync import task_types
from hume_sync.errors import SpecError
from hume_sync.store import Store
from hume_sync.study.rules import StudyRules
from hume_sync.study.settings_fields import TypeSettings
from hume_sync.study.sources import FORMATS
from hume_sync.study.spec import _SIZING_KEYS, _every_type_setting, parse_spec
from hume_sync.study.type_settings import settings_keys
from hume_sync.task_types.sts import STS
from hume_sync.workflow.init import init_from_spec
from tests._paths import SOURCE_DATA

TYPES = [task_types.get(n) for n in task_types.names()]


@pytest.mark.parametrize("kind", TYPES, ids=lambda t: t.name)
def test_every_type_states_its_study_rules(kind: StudyRules) -> None:
    assert isinstance(kind, StudyRules) and kind.name and kind.mteb_type
    settings = kind.study_settings
    assert settings is not None and issubclass(settings, TypeSettings)
    assert settings.model_config.get("extra") == "forbid"
    assert not settings_keys(settings) & set(_SIZING_KEYS)  # its own keys, not the shared ones
    assert "id" in kind.study_record_fields
    assert kind.study_formats and set(kind.study_formats) <= set(FORMATS)
    assert kind.study_accepts_mteb_type(kind.mteb_type)
    assert kind.name in kind.study_formats_problem()


def test_mteb_types_name_one_type_each() -> None:
    accepted = [m for t in TYPES for m in t.study_mteb_types]
    assert len(accepted) == len(set(accepted))


@pytest.mark.parametrize("kind", TYPES, ids=lambda t: t.name)
def test_a_field_of_another_type_is_refused_by_name(kind: StudyRules, tmp_path: Path) -> None:
    foreign = sorted(_every_type_setting() - settings_keys(kind.study_settings))[0]
    data = {
        "name": "s",
        "tasks": [
            {
                "name": "T",
                "type": kind.name,
                "source": {"path": "x.jsonl"},
                foreign: 3,
                "subsets": [{"language": "en", "size": 4}],
            }
        ],
    }
    with pytest.raises(SpecError) as info:
        parse_spec(data, base_dir=tmp_path, check_files=False)
    assert info.value.field == f"subsets[default].{foreign}"
    assert f"not used by {kind.name} tasks" in str(info.value)


class Pairs(STS):
    """A type registered after the store and the study code were written (here: STS's rules
    under another name)."""

    name = "pairs"
    mteb_type = "PairsForTests"


@pytest.fixture
def pairs() -> Iterator[StudyRules]:
    kind = task_types.register(Pairs())
    try:
        yield kind
    finally:
        task_types.unregister(kind.name)


def test_a_newly_registered_type_needs_no_other_change(pairs: StudyRules, tmp_path: Path) -> None:
    spec = parse_spec(
        {
            "name": "later",
            "tasks": [
                {
                    "name": "Pairs",
                    "type": "pairs",
                    "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
                    "size": 10,
                    "score_range": [0, 5],
                    "subsets": [{"language": "en"}],
                }
            ],
        },
        base_dir=tmp_path,
    )
    assert spec.tasks[0].type == "pairs" and spec.tasks[0].subsets[0].settings.bins == 5
    init_from_spec(tmp_path / "study", spec)
    with Store.open(tmp_path / "study") as store:
        [row] = store.subsets()
        assert (row.task_type, len(store.instances(row.key))) == ("pairs", 10)
    with pytest.raises(SpecError, match="expected one of classification, clustering"):
        parse_spec({"name": "x", "tasks": [{"name": "T", "type": "pair"}]})
