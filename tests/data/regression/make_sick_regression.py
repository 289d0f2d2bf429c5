"""Derive a small text → number set from SICK's relatedness scores (tests/data/source).

mteb's two Regression tasks (RuSciBench's citation counts and years) cannot be downloaded here,
so the tests need another real, human-made number per text: SICK's relatedness, the mean of
ten crowd ratings from 1 to 5 per sentence pair. Each pair becomes one text, ``A ⟷ B`` (the
STS type shows a pair so in its item lists), its relatedness the value, written as SICK writes
it. The first ``TEST`` pairs (in SICK's file order) are the evaluation split, the next
``TRAIN`` the train pool mteb's linear regression learns from. A derived set: the texts are
SICK's, the task (predict relatedness from one text) is ours.
Run from the repository root; the output is committed, so tests never run this.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "source" / "SICK_test_annotated.txt"
OUT = HERE / "sick"
TEST, TRAIN = 120, 400


def main() -> None:
    with SOURCE.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    records = [
        {
            "id": r["pair_ID"],
            "text": f"{r['sentence_A'].strip()} ⟷ {r['sentence_B'].strip()}",
            "value": float(r["relatedness_score"]),
        }
        for r in rows[: TEST + TRAIN]
    ]
    OUT.mkdir(parents=True, exist_ok=True)
    for name, part in (("test", records[:TEST]), ("train", records[TEST:])):
        with (OUT / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for rec in part:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
