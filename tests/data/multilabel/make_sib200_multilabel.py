"""Derive a small multilabel set from SIB-200 (tests/data/source/sib200), in two languages.

SIB-200 gives each Flores-200 sentence one topic. Two sentences read one after the other make a
short passage whose topics are both of theirs: a split's sentences in ``index_id`` order (Flores
order, where neighbours often come from one article; the files themselves are grouped by topic)
are joined two by two with a space, and the passage's labels are the union of their topics
(one label when the two share it, else two: 42 and 60 of the 102 test passages). The same
sentences are joined in Arabic, so both languages hold the same passages with the same labels.
The passage id is ``<index_id>+<index_id>``. Run from the repository root; the output is committed,
so tests never run this.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "source" / "sib200"
OUT = HERE / "sib200"
LANGUAGES = ("eng_Latn", "arb_Arab")
SPLITS = ("train", "test")


def _rows(lang: str, split: str) -> list[dict[str, str]]:
    with (SOURCE / lang / f"{split}.tsv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def main() -> None:
    for split in SPLITS:
        order = sorted(_rows(LANGUAGES[0], split), key=lambda r: int(r["index_id"]))
        for lang in LANGUAGES:
            by_id = {r["index_id"]: r for r in _rows(lang, split)}
            out = OUT / lang
            out.mkdir(parents=True, exist_ok=True)
            with (out / f"{split}.jsonl").open("w", encoding="utf-8") as fh:
                for k in range(0, len(order) - 1, 2):
                    a, b = by_id[order[k]["index_id"]], by_id[order[k + 1]["index_id"]]
                    record = {
                        "id": f"{a['index_id']}+{b['index_id']}",
                        "text": f"{a['text'].strip()} {b['text'].strip()}",
                        "labels": sorted({a["category"], b["category"]}),
                    }
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
