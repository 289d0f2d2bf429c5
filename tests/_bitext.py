"""SIB-200's Flores sentences as bitext pairs, for the bitext-mining tests.

SIB-200's six languages hold the same Flores-200 sentences, aligned by ``index_id``: joining two
languages' files on it gives a real bitext set (a sentence and its human translation). The
tests build their sources here, by their own reading of the TSV files, never through hume.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests._paths import SOURCE_DATA

SIB = SOURCE_DATA / "sib200"


def sib_texts(lang: str, split: str = "test") -> list[tuple[str, str]]:
    """``(index_id, text)`` of one SIB-200 language and split, in file order."""
    path = SIB / lang / f"{split}.tsv"
    if not path.exists():
        pytest.skip(f"shared test data missing: {path}")
    with path.open(encoding="utf-8", newline="") as fh:
        return [
            (r["index_id"], r["text"])
            for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        ]


def sib_pairs(
    source: str, target: str, n: int | None = None, split: str = "test"
) -> list[dict[str, str]]:
    """The first ``n`` sentences of ``source`` (file order) with their ``target`` translation:
    ``{id, sentence1, sentence2}``, id = SIB-200's index id."""
    targets = dict(sib_texts(target, split))
    rows = [
        {"id": i, "sentence1": text, "sentence2": targets[i]}
        for i, text in sib_texts(source, split)
        if i in targets
    ]
    return rows[:n] if n is not None else rows


def write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path
