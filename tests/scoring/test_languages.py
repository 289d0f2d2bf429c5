"""The one language table: mteb's ISO 639-1 → 639-3 table, Norwegian as Bokmål, and the
HUME(v1) table against the installed mteb's benchmark."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from scoring.hume_v1 import HUME_V1, HUME_V1_TASKS
from scoring.languages import (
    HUME_CHOICES,
    annotator_language,
    iso_639_1_table,
    language_code,
    normalise_language,
)


def _mteb_file(name: str) -> Path:
    """A data file of the installed mteb, found without importing mteb (which takes seconds)."""
    spec = importlib.util.find_spec("mteb")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("mteb is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "languages" / name
    if not path.is_file():
        pytest.skip(f"this mteb has no {name}")
    return path


def test_two_letter_table_is_mteb_s() -> None:
    mteb_table = json.loads(_mteb_file("iso_639_1_to_3.json").read_text(encoding="utf-8"))
    assert iso_639_1_table() == mteb_table


def test_every_code_is_an_iso_639_3_code_mteb_knows() -> None:
    known = json.loads(_mteb_file("iso_639_3_to_language.json").read_text(encoding="utf-8"))
    codes = {*iso_639_1_table().values(), *HUME_CHOICES.values()}
    assert codes <= set(known)


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ("en", "eng"),
        ("eng", "eng"),
        ("eng-Latn", "eng"),
        ("EN", "eng"),
        ("eng_Latn", "eng"),
        ("ar", "ara"),
        ("ara-Arab", "ara"),
        ("arb-Arab", "arb"),  # reports keep Standard Arabic apart, as MTEB's result files do
        ("da", "dan"),
        ("ru", "rus"),
        ("fr", "fra"),
        ("tr", "tur"),  # any ISO 639-1 code, not only HUME's languages
        ("no", "nob"),
        ("nor", "nob"),
        ("nb", "nob"),
        ("nob-Latn", "nob"),
        ("nn", "nno"),  # Nynorsk stays Nynorsk
        ("xyz", "xyz"),  # unknown codes pass through
    ],
)
def test_normalise_language(given: str, code: str) -> None:
    assert normalise_language(given) == code


def test_language_code_keeps_the_code_as_written() -> None:
    assert [language_code(t) for t in ("eng-Latn", "en", "nob_Latn", "ARB-Arab")] == [
        "eng",
        "en",
        "nob",
        "arb",
    ]


def test_annotators_read_standard_arabic_as_arabic() -> None:
    assert annotator_language("arb-Arab") == annotator_language("ar") == "ara"
    assert annotator_language("no") == annotator_language("nob-Latn") == "nob"


def test_hume_v1_table() -> None:
    assert len(HUME_V1) == 16 and len(HUME_V1_TASKS) == 16
    assert sum(len(t.subsets) for t in HUME_V1) == 26  # the benchmark's subsets, French left out
    assert all(normalise_language(lang) != "fra" for t in HUME_V1 for _, lang in t.subsets)
    assert HUME_V1_TASKS["HUMESTS22"] == "sts"
    with pytest.raises(TypeError):
        HUME_V1_TASKS["HUMESTS22"] = "clustering"  # type: ignore[index]
