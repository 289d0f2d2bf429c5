"""A task type declares its own spec settings (issue 23): proof that a new setting needs no edit
to a shared file.

``CappedPairs`` exists only here. It declares a setting no other type has (``max_pairs``) in a
pydantic model of its own and is registered through the registry's public ``register``; nothing
in hume_sync/ names it or its setting. A spec using the setting parses, the validated value
reaches the type's sampling (it decides how many instances the store gets), and a misspelt key or
a bad value is refused in one line naming the spec file, the task and the key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import Field

from hume_sync import task_types
from hume_sync.errors import SpecError
from hume_sync.store import Store
from hume_sync.study.rules import StudyRules
from hume_sync.study.sampling import Sample, SamplingParams
from hume_sync.study.spec import parse_spec
from hume_sync.task_types.sts import STS
from hume_sync.task_types.sts.settings import STSSettings
from hume_sync.workflow.init import init_from_spec
from tests._paths import SOURCE_DATA


class CappedSettings(STSSettings):
    """STS's settings and the fake type's own: at most this many pairs go to annotators."""

    max_pairs: int = Field(ge=1)


class CappedPairs(STS):
    """STS's rules under another name, with a sample capped by its own setting."""

    name = "capped_pairs"
    mteb_type = "CappedPairsForTests"
    study_settings = CappedSettings
    seen: list[Any] = []  # noqa: RUF012  (what sampling received, read by the test)

    def study_sample(
        self, records: Sequence[Any], rng: np.random.Generator, params: SamplingParams
    ) -> Sample:
        self.seen.append(params.settings)
        cap = params.settings.max_pairs
        size = min(params.size or cap, cap)
        return super().study_sample(records, rng, dataclasses.replace(params, size=size))


@pytest.fixture
def capped() -> Iterator[StudyRules]:
    kind = task_types.register(CappedPairs())
    CappedPairs.seen = []
    try:
        yield kind
    finally:
        task_types.unregister(kind.name)


def _spec(**task_keys: Any) -> dict[str, Any]:
    return {
        "name": "capped",
        "tasks": [
            {
                "name": "Capped",
                "type": "capped_pairs",
                "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
                "size": 10,
                "score_range": [0, 5],
                "subsets": [{"language": "en"}],
                **task_keys,
            }
        ],
    }


def test_a_type_setting_reaches_sampling(capped: StudyRules, tmp_path: Path) -> None:
    spec = parse_spec(_spec(max_pairs=4), file="capped.yaml", base_dir=tmp_path)
    assert spec.tasks[0].subsets[0].settings == CappedSettings(max_pairs=4, score_range=(0, 5))
    init_from_spec(tmp_path / "study", spec)
    assert CappedPairs.seen == [spec.tasks[0].subsets[0].settings]
    with Store.open(tmp_path / "study") as store:
        [row] = store.subsets()
        assert len(store.instances(row.key)) == 4  # size 10, capped at 4 by the type's setting


def test_a_subset_overrides_its_tasks_setting(capped: StudyRules, tmp_path: Path) -> None:
    data = _spec(max_pairs=4)
    data["tasks"][0]["subsets"] = [{"language": "en", "max_pairs": 2}]
    spec = parse_spec(data, file="capped.yaml", base_dir=tmp_path)
    assert spec.tasks[0].subsets[0].settings.max_pairs == 2


@pytest.mark.parametrize(
    ("keys", "field", "reason"),
    [
        ({"max_pair": 4}, "max_pair", "unknown field"),
        ({"max_pairs": 0}, "subsets[default].max_pairs", "greater than or equal to 1"),
        ({}, "subsets[default].max_pairs", "Field required"),
    ],
)
def test_a_bad_type_setting_is_refused_naming_file_task_and_key(
    capped: StudyRules, tmp_path: Path, keys: dict[str, Any], field: str, reason: str
) -> None:
    with pytest.raises(SpecError) as info:
        parse_spec(_spec(**keys), file="capped.yaml", base_dir=tmp_path)
    err = info.value
    assert (err.file, err.task, err.field) == ("capped.yaml", "Capped", field)
    assert reason in err.reason and "\n" not in str(err)


def test_another_type_refuses_the_setting(capped: StudyRules, tmp_path: Path) -> None:
    data = _spec(max_pairs=4)
    data["tasks"][0]["type"] = "sts"
    with pytest.raises(SpecError) as info:
        parse_spec(data, file="capped.yaml", base_dir=tmp_path)
    assert (info.value.task, info.value.field) == ("Capped", "subsets[default].max_pairs")
    assert info.value.reason == "not used by sts tasks"
    task_types.unregister("capped_pairs")  # unregistered, the key is no type's
    with pytest.raises(SpecError) as info:
        parse_spec(data, file="capped.yaml", base_dir=tmp_path)
    assert (info.value.field, info.value.reason[:13]) == ("max_pairs", "unknown field")
    task_types.register(capped)
