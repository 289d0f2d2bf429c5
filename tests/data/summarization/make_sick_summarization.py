"""Derive a small summarization-shaped set from SICK's test pairs (tests/data/source).

SummEval (mteb's Summarization tasks) cannot be downloaded here, and no summarization set with
expert scores ships beside the repository. SICK reuses many a ``sentence_A`` in several pairs,
each pair with a human relatedness score on 1–5 (the mean of ten raters), as SummEval's
relevance is a mean of expert scores on 1–5. Grouping the pairs by ``sentence_A`` gives a
set in mteb's Summarization columns: ``text`` = ``sentence_A``, its ``machine_summaries`` = its
partners (``sentence_B``, file order), ``relevance`` = their relatedness scores, and
``human_summaries`` = ``[sentence_A]`` (the one reference). It is a derived set, shaped like
summarization, not summaries: its gold is relatedness, not summary relevance. Texts with
fewer than ``MIN_PARTNERS`` partners are left out (a correlation over two summaries says
little). Run from the repository root; the output is committed, so tests never run this.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "source" / "SICK_test_annotated.txt"
OUT = HERE / "sick" / "texts.jsonl"
MIN_PARTNERS = 3


def main() -> None:
    with SOURCE.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    groups: dict[str, list[dict[str, str]]] = {}  # sentence_A -> its pairs, in file order
    for r in rows:
        groups.setdefault(r["sentence_A"].strip(), []).append(r)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as fh:
        for text, pairs in groups.items():
            if len(pairs) < MIN_PARTNERS:
                continue
            record = {
                "id": f"sick-{pairs[0]['pair_ID']}",
                "text": text,
                "human_summaries": [text],
                "machine_summaries": [p["sentence_B"].strip() for p in pairs],
                "relevance": [float(p["relatedness_score"]) for p in pairs],
            }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
