"""Source loading: local files (real SIB-200 / STS data), typed errors, MTEB metadata and the
conversion of MTEB-shaped datasets built in memory. The hub download itself is not reachable
here; its failure path is tested, a real download is not."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from datasets import ClassLabel, Dataset, DatasetDict, Features, Value

from hume_sync.study import sources
from hume_sync.study.planning import load_subset
from hume_sync.study.sources import (
    Candidate,
    PairItem,
    QueryItem,
    SourceError,
    TextItem,
    load_mteb,
    load_records,
    mteb_task_info,
    records_from_classification,
    records_from_clustering,
    records_from_reranking_rows,
    records_from_retrieval,
    records_from_sts,
)
from hume_sync.study.spec import parse_spec
from hume_sync.task_types import get
from tests._paths import SOURCE_DATA

os.environ["HF_HUB_OFFLINE"] = "1"

DATA = Path(__file__).parent / "data"
SIB = SOURCE_DATA / "sib200"
SIB_COLUMNS = {"id": "index_id", "text": "text", "label": "category"}
SIB_LABELS = {
    "science/technology",
    "travel",
    "politics",
    "sports",
    "health",
    "entertainment",
    "geography",
}


# ---- local files on real data


def test_sib200_tsv_with_column_mapping() -> None:
    eng = load_records(get("classification"), SIB / "eng_Latn" / "test.tsv", columns=SIB_COLUMNS)
    arb = load_records(get("classification"), SIB / "arb_Arab" / "test.tsv", columns=SIB_COLUMNS)
    assert len(eng) == len(arb) == 204
    assert {r.label for r in eng} == SIB_LABELS
    first = eng[0]
    assert isinstance(first, TextItem) and first.id == "1523"
    assert first.label == "science/technology" and first.text.startswith("Mutation adds")
    # the same sentences in every language: ids and labels line up, texts differ
    assert [(r.id, r.label) for r in arb] == [(r.id, r.label) for r in eng]
    assert arb[0].text.startswith("تضيف الطفرة")
    train = load_records(get("classification"), SIB / "eng_Latn" / "train.tsv", columns=SIB_COLUMNS)
    assert len(train) == 701


def test_stsb_csv_without_header_keeps_quoted_commas() -> None:
    pairs = load_records(get("sts"), SOURCE_DATA / "stsb-en-test.csv", header=False)
    assert len(pairs) == 1379
    assert all(isinstance(p, PairItem) and 0 <= p.score <= 5 for p in pairs)
    assert pairs[0] == PairItem(
        "1", "A girl is styling her hair.", "A girl is brushing her hair.", 2.5
    )
    quoted = [p for p in pairs if p.sentence1.startswith("Three young men run, jump")]
    assert len(quoted) == 1 and quoted[0].score == 1.5
    assert quoted[0].sentence2 == "Three men are jumping off a wall."


def test_positional_columns_sts12_and_named_columns_sick() -> None:
    sts12 = load_records(
        get("sts"),
        SOURCE_DATA / "sts12_MSRpar.test.tsv",
        header=False,
        columns={"score": 0, "sentence1": 1, "sentence2": 2},
    )
    assert sts12[0].score == 4.4 and sts12[0].sentence1.startswith("The problem likely")  # type: ignore[union-attr]
    assert sts12[2].sentence1.startswith('"It\'s a huge black eye,"')  # type: ignore[union-attr]
    sick = load_records(
        get("sts"),
        SOURCE_DATA / "SICK_test_annotated.txt",
        fmt="tsv",
        columns={
            "id": "pair_ID",
            "sentence1": "sentence_A",
            "sentence2": "sentence_B",
            "score": "relatedness_score",
        },
    )
    assert len(sick) == 4927 and sick[0].id == "6" and sick[0].score == 3.3  # type: ignore[union-attr]


def test_reranking_jsonl_fixture() -> None:
    queries = load_records(get("reranking"), DATA / "sib200_eng_rerank.jsonl")
    assert len(queries) == 36
    assert all(isinstance(q, QueryItem) and len(q.candidates) == 9 for q in queries)
    no_relevant = [q.id for q in queries if not any(c.relevant for c in q.candidates)]  # type: ignore[union-attr]
    assert no_relevant == ["q39", "q184"]


def test_load_subset_follows_the_spec(tmp_path: Path) -> None:
    spec = parse_spec(
        {
            "name": "s",
            "tasks": [
                {
                    "name": "SIB",
                    "type": "classification",
                    "source": {
                        "path": str(SIB / "{subset}" / "test.tsv"),
                        "train_path": str(SIB / "{subset}" / "train.tsv"),
                        "columns": SIB_COLUMNS,
                    },
                    "subsets": [{"name": "arb_Arab", "language": "arb-Arab", "size": 14}],
                }
            ],
        },
        base_dir=tmp_path,
    )
    task, subset = next(spec.iter_subsets())
    data = load_subset(task, subset)
    assert len(data.records) == 204 and data.train is not None and len(data.train) == 701
    assert data.origin["format"] == "tsv" and len(data.origin["sha256"]) == 64
    assert data.origin["train_sha256"] != data.origin["sha256"]


# ---- typed errors


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _obj(**kw: Any) -> str:
    return json.dumps(kw)


@pytest.mark.parametrize(
    ("task_type", "lines", "line", "words"),
    [
        ("classification", [_obj(id=1, text="a", label="x"), "{not json"], 2, "invalid JSON"),
        ("classification", [_obj(id=1, text="a", label="x"), "[1, 2]"], 2, "JSON object"),
        (
            "classification",
            [
                _obj(id="a", text="t", label="x"),
                _obj(id="b", text="t", label="y"),
                _obj(id="a", text="u", label="y"),
            ],
            3,
            "duplicate id 'a' (first on line 1)",
        ),
        ("classification", [_obj(id=1, text="a")], 1, "missing field 'label'"),
        ("classification", [_obj(text="a", label="x")], 1, "missing field 'id'"),
        ("classification", [_obj(id=1, text="  ", label="x")], 1, "'text' is empty"),
        ("sts", [_obj(id=1, sentence1="a", sentence2="b", score="high")], 1, "number"),
        ("sts", [_obj(id=1, sentence1="a", sentence2="b", score=float("nan"))], 1, "finite"),
        (
            "reranking",
            [_obj(id="q", query="q", candidates=[{"id": "c", "text": "t", "relevant": 2}])],
            1,
            "relevant must be",
        ),
        (
            "reranking",
            [
                _obj(
                    id="q",
                    query="q",
                    candidates=[
                        {"id": "c", "text": "t", "relevant": 1},
                        {"id": "c", "text": "u", "relevant": 0},
                    ],
                )
            ],
            1,
            "duplicate candidate id 'c'",
        ),
        ("reranking", [_obj(id="q", query="q", candidates=[])], 1, "non-empty list"),
    ],
)
def test_jsonl_errors_name_file_and_line(
    tmp_path: Path, task_type: str, lines: list[str], line: int, words: str
) -> None:
    path = _write(tmp_path, "data.jsonl", lines)
    with pytest.raises(SourceError) as info:
        load_records(get(task_type), path)
    err = info.value
    assert err.line == line and words in err.reason
    assert str(err).startswith(f"{path}:{line}: ") and "\n" not in str(err)


def test_delimited_errors(tmp_path: Path) -> None:
    short = _write(tmp_path, "a.tsv", ["text\tlabel", "hello\tx", "only-one-column"])
    with pytest.raises(SourceError, match=r"a\.tsv:3: expected at least 2 columns, found 1"):
        load_records(get("classification"), short)
    no_col = _write(tmp_path, "b.tsv", ["index_id\tcategory\tsentence", "1\tx\thello"])
    with pytest.raises(SourceError, match=r"b\.tsv:1: no column 'text' for field 'text'"):
        load_records(get("classification"), no_col)
    dup = _write(tmp_path, "c.csv", ["id,text,label", "1,a,x", "1,b,y"])
    with pytest.raises(SourceError, match=r"c\.csv:3: duplicate id '1'"):
        load_records(get("classification"), dup)
    bad = _write(tmp_path, "d.csv", ["a,b,not-a-number"])
    with pytest.raises(SourceError, match=r"d\.csv:1: score must be a number"):
        load_records(get("sts"), bad, header=False)
    with pytest.raises(SourceError, match="reranking sources must be JSONL"):
        load_records(get("reranking"), dup)
    with pytest.raises(SourceError, match="file not found"):
        load_records(get("sts"), tmp_path / "missing.csv")
    with pytest.raises(SourceError, match="cannot tell the format"):
        load_records(get("sts"), tmp_path / "data.xlsx")
    empty = _write(tmp_path, "e.jsonl", [""])
    with pytest.raises(SourceError, match="no records"):
        load_records(get("sts"), empty)


# ---- MTEB metadata (real, offline) and conversion of MTEB-shaped data


HUME_TASKS = {
    "HUMEEmotionClassification": ("classification", "accuracy", ["default"]),
    "HUMEToxicConversationsClassification": ("classification", "accuracy", ["default"]),
    "HUMETweetSentimentExtractionClassification": ("classification", "accuracy", ["default"]),
    "HUMEMultilingualSentimentClassification": (
        "classification",
        "accuracy",
        ["eng", "ara", "nor", "rus"],
    ),
    "HUMEArxivClusteringP2P": ("clustering", "v_measure", ["default"]),
    "HUMERedditClusteringP2P": ("clustering", "v_measure", ["default"]),
    "HUMEWikiCitiesClustering": ("clustering", "v_measure", ["default"]),
    "HUMESIB200ClusteringS2S": (
        "clustering",
        "v_measure",
        ["eng_Latn", "arb_Arab", "dan_Latn", "fra_Latn", "rus_Cyrl"],
    ),
    "HUMECore17InstructionReranking": ("reranking", "map_at_1000", ["default"]),
    "HUMENews21InstructionReranking": ("reranking", "map_at_1000", ["default"]),
    "HUMERobust04InstructionReranking": ("reranking", "map_at_1000", ["default"]),
    "HUMEWikipediaRerankingMultilingual": ("reranking", "map_at_1000", ["en", "da", "no"]),
    "HUMESICK-R": ("sts", "cosine_spearman", ["default"]),
    "HUMESTS12": ("sts", "cosine_spearman", ["default"]),
    "HUMESTSBenchmark": ("sts", "cosine_spearman", ["default"]),
    "HUMESTS22": ("sts", "cosine_spearman", ["en", "ar", "fr", "ru"]),
}


@pytest.mark.parametrize("name", list(HUME_TASKS))
def test_mteb_metadata_of_every_hume_task_offline(name: str) -> None:
    info = mteb_task_info(name)
    task_type, main_score, subsets = HUME_TASKS[name]
    assert (info.name, info.task_type, info.main_score) == (name, task_type, main_score)
    assert list(info.hf_subsets) == subsets
    assert info.eval_splits == ("test",)
    assert info.dataset_path.startswith("mteb/") and len(info.revision) == 40
    # Only classification draws a train pool (mteb's undersampling): its sizes and split.
    pool = {"classification": ((8, 16, 32), "train")}.get(task_type)
    if pool is None:
        assert info.samples_per_label is None
    else:
        assert info.samples_per_label in pool[0] and info.train_split == pool[1]


def test_text_to_text_any2any_retrieval_reads_as_retrieval_and_other_modalities_do_not() -> None:
    """mteb files one text-only task under Any2AnyRetrieval (WebQAT2TRetrieval, an
    ``AbsTaskRetrieval``): the retrieval type reads it. Its image and audio siblings have
    nothing a person can read here: refused in one line naming the modality."""
    info = mteb_task_info("WebQAT2TRetrieval")
    assert (info.task_type, info.mteb_type, info.main_score) == (
        "retrieval",
        "Any2AnyRetrieval",
        "ndcg_at_10",
    )
    with pytest.raises(SourceError, match=r"text-only tasks; this one's modalities include image"):
        mteb_task_info("CUB200I2IRetrieval")


def test_unknown_mteb_task() -> None:
    with pytest.raises(SourceError, match="unknown MTEB task 'NoSuchTask'"):
        mteb_task_info("NoSuchTask")


def test_hub_unreachable_is_one_line_source_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real load path: mteb's load_data() against an unreachable hub (offline mode)."""
    import datasets.config
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    with pytest.raises(SourceError) as info:
        load_mteb("HUMESTS12")
    assert str(info.value) == (
        "mteb:HUMESTS12: cannot load MTEB task HUMESTS12: the Hugging Face hub is not "
        "reachable (offline); use local files"
    )


def test_hub_probe_fails_fast_when_not_in_offline_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(sources, "_hub_reachable", lambda timeout=3.0: False)
    calls: list[str] = []
    task = sources._get_mteb_task("HUMESICK-R")
    monkeypatch.setattr(task, "load_data", lambda *a, **k: calls.append("load"))
    with pytest.raises(SourceError, match="hub is not reachable"):
        load_mteb("HUMESICK-R")
    assert calls == []  # never reached the retry loop


def _sib_rows(lang: str = "eng_Latn", n: int | None = None) -> list[TextItem]:
    rows = load_records(get("classification"), SIB / lang / "test.tsv", columns=SIB_COLUMNS)
    return rows[:n] if n else rows  # type: ignore[return-value]


def test_classification_conversion_classlabel_labeltext_and_plain() -> None:
    rows = _sib_rows(n=30)
    names = sorted(SIB_LABELS)
    features = Features({"text": Value("string"), "label": ClassLabel(names=names)})
    ds = Dataset.from_dict(
        {"text": [r.text for r in rows], "label": [names.index(r.label) for r in rows]},
        features=features,
    )
    out = records_from_classification(ds, label_names=sources.classification_label_names(ds))
    assert [(r.id, r.text, r.label) for r in out] == [
        (str(i), r.text, r.label) for i, r in enumerate(rows)
    ]
    # label_text column (as in several MTEB datasets), with an id column
    ds2 = Dataset.from_dict(
        {
            "id": [r.id for r in rows],
            "text": [r.text for r in rows],
            "label": [names.index(r.label) for r in rows],
            "label_text": [r.label for r in rows],
        }
    )
    out2 = records_from_classification(ds2, label_names=sources.classification_label_names(ds2))
    assert [(r.id, r.label) for r in out2] == [(r.id, r.label) for r in rows]
    # plain ints without names stay ints as strings
    ds3 = Dataset.from_dict({"text": ["a", "b"], "label": [0, 1]})
    assert [r.label for r in records_from_classification(ds3)] == ["0", "1"]
    with pytest.raises(SourceError, match="no column 'text'"):
        records_from_classification(Dataset.from_dict({"sentence": ["a"], "label": [0]}))


def test_load_mteb_classification_with_train_split_from_memory() -> None:
    """Full load_mteb path for a multilingual classification task (nested subset → splits)."""
    test_rows, train_rows = _sib_rows(n=20), _sib_rows(n=40)[20:]

    def ds(rows: list[TextItem]) -> Dataset:
        return Dataset.from_dict({"text": [r.text for r in rows], "label": [r.label for r in rows]})

    fake = {"ara": DatasetDict(test=ds(test_rows), train=ds(train_rows))}
    data = load_mteb("HUMEMultilingualSentimentClassification", "ara", dataset=fake)
    assert [r.label for r in data.records] == [r.label for r in test_rows]  # type: ignore[union-attr]
    assert data.train is not None and [t.text for t in data.train] == [r.text for r in train_rows]
    assert data.origin["mteb"] == "HUMEMultilingualSentimentClassification"
    assert data.origin["hf_subset"] == "ara" and data.origin["split"] == "test"
    with pytest.raises(SourceError, match="no subset 'fra'"):
        load_mteb("HUMEMultilingualSentimentClassification", "fra", dataset=fake)
    with pytest.raises(SourceError, match="is a classification task, not sts"):
        load_mteb("HUMEMultilingualSentimentClassification", "ara", kind=get("sts"), dataset=fake)


def test_clustering_conversion_legacy_sets_and_item_rows() -> None:
    eng = _sib_rows()
    set_a, set_b = eng[:30], eng[30:50]
    legacy = Dataset.from_dict(
        {
            "sentences": [[r.text for r in set_a], [r.text for r in set_b]],
            "labels": [[r.label for r in set_a], [r.label for r in set_b]],
        }
    )
    out = records_from_clustering(legacy)
    assert len(out) == 50 and out[0].id == "0-0" and out[30].id == "1-0"
    assert out[30].group == "1" and out[30].label == set_b[0].label
    items = Dataset.from_dict(
        {"sentences": [r.text for r in set_a], "labels": [[r.label, "sub"] for r in set_a]}
    )
    flat = records_from_clustering(items)
    assert [r.label for r in flat] == [r.label for r in set_a] and flat[0].group is None
    # the full path for a legacy-clustering HUME task, monolingual layout
    data = load_mteb("HUMEArxivClusteringP2P", dataset=DatasetDict(test=legacy))
    assert len(data.records) == 50


def test_sts_conversion() -> None:
    pairs = load_records(get("sts"), SOURCE_DATA / "stsb-en-test.csv", header=False)[:25]
    ds = Dataset.from_dict(
        {
            "sentence1": [p.sentence1 for p in pairs],  # type: ignore[union-attr]
            "sentence2": [p.sentence2 for p in pairs],  # type: ignore[union-attr]
            "score": [p.score for p in pairs],  # type: ignore[union-attr]
        }
    )
    out = records_from_sts(ds)
    assert [(o.sentence1, o.score) for o in out] == [(p.sentence1, p.score) for p in pairs]  # type: ignore[union-attr]
    fake = {"ru": DatasetDict(test=ds)}
    assert len(load_mteb("HUMESTS22", "ru", dataset=fake).records) == 25


def _retrieval_split(with_top_ranked: bool) -> dict[str, Any]:
    """MTEB v2 retrieval layout built from the reranking fixture."""
    queries = load_records(get("reranking"), DATA / "sib200_eng_rerank.jsonl")[:4]
    corpus: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    top: dict[str, list[str]] = {}
    for q in queries:
        assert isinstance(q, QueryItem)
        qrels[q.id] = {c.id: int(c.relevant) for c in q.candidates if c.relevant}
        qrels[q.id] |= {q.candidates[-1].id: 0} if not q.candidates[-1].relevant else {}
        top[q.id] = [c.id for c in q.candidates]
        for c in q.candidates:
            corpus[c.id] = c.text
    return {
        "corpus": Dataset.from_dict(
            {
                "id": list(corpus),
                "title": ["T"] + [""] * (len(corpus) - 1),
                "text": list(corpus.values()),
            }
        ),
        "queries": Dataset.from_dict(
            {
                "id": [q.id for q in queries],
                "text": [q.query for q in queries],  # type: ignore[union-attr]
                "instruction": ["Relevant: same topic."] * len(queries),
            }
        ),
        "relevant_docs": qrels,
        "top_ranked": top if with_top_ranked else None,
        "_queries": queries,
    }


def test_retrieval_conversion_with_and_without_top_ranked() -> None:
    split = _retrieval_split(True)
    queries = split.pop("_queries")
    out = records_from_retrieval(split)
    assert [q.id for q in out] == [q.id for q in queries]
    for got, want in zip(out, queries, strict=True):
        assert got.query == want.query + " Relevant: same topic."
        assert [c.id for c in got.candidates] == [c.id for c in want.candidates]
        assert [c.relevant for c in got.candidates] == [c.relevant for c in want.candidates]
    first_doc = split["corpus"]["id"][0]
    titled = [c for q in out for c in q.candidates if c.id == first_doc]
    assert titled and titled[0].text.startswith("T ")  # MTEB: title + " " + text
    # without top_ranked the candidates are the judged documents
    split2 = _retrieval_split(False)
    split2.pop("_queries")
    judged = records_from_retrieval(split2)
    assert all(
        set(c.id for c in q.candidates) == set(split2["relevant_docs"][q.id]) for q in judged
    )
    fake = {"default": {"test": split}}
    data = load_mteb("HUMECore17InstructionReranking", dataset=fake)
    assert [q.id for q in data.records] == [q.id for q in out]
    split["top_ranked"] = {queries[0].id: ["missing-doc"]}
    with pytest.raises(SourceError, match="candidate 'missing-doc' not in the corpus"):
        records_from_retrieval(split)


def test_legacy_reranking_rows() -> None:
    ds = Dataset.from_dict(
        {"query": ["q1", "q2"], "positive": [["a"], ["b", "c"]], "negative": [["x", "y"], []]}
    )
    out = records_from_reranking_rows(ds)
    assert out[0].candidates == (
        Candidate("p0", "a", True),
        Candidate("n0", "x", False),
        Candidate("n1", "y", False),
    )
    assert [c.relevant for c in out[1].candidates] == [True, True]
