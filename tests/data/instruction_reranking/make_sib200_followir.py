"""Derive a small FollowIR-shaped set from SIB-200 (tests/data/source/sib200), eng and arb.

Each query is a SIB-200 test sentence (its topic A). Its seven candidates are train sentences:
two of topic A, two of a second topic B, three of other topics. The original instruction counts
both topics relevant ("A or B"); the changed instruction narrows it to A and says B is not
relevant, so the two B candidates are the changed documents p-MRR follows (FollowIR changes an
instruction the same way: it narrows what is relevant). The Arabic file holds the same queries
and candidates in Arabic; its instructions and topic names were translated by hand below (SIB-200
names its topics in English only). Candidate
order is deterministic and mixed; the study shuffles it again. Run from the repository root;
the output is committed, so tests never run this.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "source" / "sib200"
LANGUAGES = ("eng_Latn", "arb_Arab")
N_QUERIES = 24
#: How each language's instructions are phrased.
PHRASES = {
    "eng_Latn": (
        "Relevant documents are about {a} or about {b}.",
        "Relevant documents are about {a}. Documents about {b} are not relevant.",
    ),
    "arb_Arab": (
        "الوثائق ذات الصلة تتناول {a} أو {b}.",
        "الوثائق ذات الصلة تتناول {a}. الوثائق التي تتناول {b} ليست ذات صلة.",
    ),
}
TOPICS_AR = {
    "science/technology": "العلوم والتكنولوجيا",
    "travel": "السفر",
    "politics": "السياسة",
    "sports": "الرياضة",
    "health": "الصحة",
    "entertainment": "الترفيه",
    "geography": "الجغرافيا",
}


def _rows(lang: str, split: str) -> list[dict[str, str]]:
    with (SOURCE / lang / f"{split}.tsv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    return sorted(rows, key=lambda r: int(r["index_id"]))


def main() -> None:
    test_en = _rows("eng_Latn", "test")
    train_en = _rows("eng_Latn", "train")
    by_topic: dict[str, list[dict[str, str]]] = {}
    for r in train_en:
        by_topic.setdefault(r["category"], []).append(r)
    topics = sorted(by_topic)
    plans = []
    for q, row in enumerate(test_en[:N_QUERIES]):
        a = row["category"]
        others = [t for t in topics if t != a]
        b = others[q % len(others)]
        rest = [t for t in others if t != b]
        picks = [(by_topic[a][(2 * q + j) % len(by_topic[a])], True, True) for j in range(2)]
        picks += [(by_topic[b][(3 * q + j) % len(by_topic[b])], True, False) for j in range(2)]
        picks += [
            (by_topic[rest[(q + j) % len(rest)]][(5 * q + j) % 40], False, False) for j in range(3)
        ]
        order = [picks[(3 * q + 5 * j) % 7] for j in range(7)]
        plans.append((row["index_id"], a, b, order))
    for lang in LANGUAGES:
        text = {r["index_id"]: r["text"].strip() for s in ("train", "test") for r in _rows(lang, s)}
        og, changed = PHRASES[lang]
        name = (lambda t: TOPICS_AR[t]) if lang == "arb_Arab" else (lambda t: t)
        out = HERE / "sib200" / lang
        out.mkdir(parents=True, exist_ok=True)
        with (out / "test.jsonl").open("w", encoding="utf-8") as fh:
            for qid, a, b, order in plans:
                record = {
                    "id": f"q{qid}",
                    "query": text[qid],
                    "instruction_og": og.format(a=name(a), b=name(b)),
                    "instruction_changed": changed.format(a=name(a), b=name(b)),
                    "candidates": [
                        {
                            "id": r["index_id"],
                            "text": text[r["index_id"]],
                            "relevant_og": rel_og,
                            "relevant_changed": rel_changed,
                        }
                        for r, rel_og, rel_changed in order
                    ],
                }
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
