"""Derive a small retrieval set in the BEIR layout from STS-B test pairs (tests/data/source).

As mteb derives some retrieval tasks from paired data: the first sentence of a pair is a query,
its partner the judged document (grade 2 where the pair's similarity is ≥ 4, grade 1 where it
is ≥ 3), and every other sentence of the first ``PAIRS`` pairs is in the corpus. Pairs scored
below 1 give queries whose only judgment is "not relevant" (grade 0): a study must never draw
them. A query sentence is kept out of the corpus (it would retrieve itself, unjudged).
Run from the repository root; the output is committed, so tests never run this.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "source" / "stsb-en-test.csv"
OUT = HERE / "stsb"
PAIRS = 400


def main() -> None:
    with SOURCE.open(encoding="utf-8", newline="") as fh:
        rows = [(a.strip(), b.strip(), float(s)) for a, b, s in csv.reader(fh)][:PAIRS]
    queries: dict[str, str] = {}
    qrels: list[tuple[str, str, int]] = []
    docs: dict[str, str] = {}  # text -> id, in first-seen order
    as_query = {a for a, _, s in rows if s >= 3 or s < 1}
    for a, b, _ in rows:
        for text in (a, b):
            if text not in as_query and text not in docs:
                docs[text] = f"d{len(docs)}"
    for n, (a, b, score) in enumerate(rows):
        if a not in as_query or b not in docs or a in queries.values():
            continue
        qid = f"q{n}"
        queries[qid] = a
        grade = 2 if score >= 4 else 1 if score >= 3 else 0
        qrels.append((qid, docs[b], grade))
    (OUT / "qrels").mkdir(parents=True, exist_ok=True)
    with (OUT / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for text, did in docs.items():
            fh.write(json.dumps({"_id": did, "title": "", "text": text}) + "\n")
    with (OUT / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for qid, text in queries.items():
            fh.write(json.dumps({"_id": qid, "text": text}) + "\n")
    with (OUT / "qrels" / "test.tsv").open("w", encoding="utf-8") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for qid, did, grade in qrels:
            fh.write(f"{qid}\t{did}\t{grade}\n")


if __name__ == "__main__":
    main()
