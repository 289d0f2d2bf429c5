"""Study spec: parsing, defaults, the hume-v1 preset, and one-line typed errors."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from hume_sync.errors import SpecError
from hume_sync.study.presets import HUME_V1, preset_tasks
from hume_sync.study.spec import StudySpec, annotators_for, load_spec, parse_spec
from tests._paths import SOURCE_DATA

os.environ["HF_HUB_OFFLINE"] = "1"

SIB = SOURCE_DATA / "sib200"

# hume.md: task → {hf_subset: items}, samples_per_label (classification), K (clustering)
HUME_SIZES: dict[str, dict[str, int]] = {
    "HUMEEmotionClassification": {"default": 48},
    "HUMEToxicConversationsClassification": {"default": 45},
    "HUMETweetSentimentExtractionClassification": {"default": 45},
    "HUMEMultilingualSentimentClassification": {"eng": 40, "ara": 40, "nor": 40, "rus": 40},
    "HUMEArxivClusteringP2P": {"default": 30},
    "HUMERedditClusteringP2P": {"default": 30},
    "HUMEWikiCitiesClustering": {"default": 30},
    "HUMESIB200ClusteringS2S": {"eng_Latn": 30, "arb_Arab": 30, "dan_Latn": 30, "rus_Cyrl": 30},
    "HUMECore17InstructionReranking": {"default": 20},
    "HUMENews21InstructionReranking": {"default": 31},
    "HUMERobust04InstructionReranking": {"default": 49},
    "HUMEWikipediaRerankingMultilingual": {"en": 30, "da": 30, "no": 30},
    "HUMESICK-R": {"default": 40},
    "HUMESTS12": {"default": 50},
    "HUMESTSBenchmark": {"default": 50},
    "HUMESTS22": {"en": 30, "ar": 30, "ru": 30},
}
HUME_SPL = {
    "HUMEEmotionClassification": 16,
    "HUMEToxicConversationsClassification": 16,
    "HUMETweetSentimentExtractionClassification": 32,
    "HUMEMultilingualSentimentClassification": 8,
}
HUME_K = {
    "HUMEArxivClusteringP2P": 5,
    "HUMERedditClusteringP2P": 6,
    "HUMEWikiCitiesClustering": 6,
    "HUMESIB200ClusteringS2S": 6,
}


@pytest.fixture
def study_dir(tmp_path: Path) -> Path:
    """A study folder with SIB-200 files copied under data/, referenced by relative paths."""
    for lang in ("eng_Latn", "arb_Arab"):
        dest = tmp_path / "data" / lang
        dest.mkdir(parents=True)
        for split in ("test", "train"):
            shutil.copy(SIB / lang / f"{split}.tsv", dest / f"{split}.tsv")
    return tmp_path


def _sib_spec(**task_overrides: Any) -> dict[str, Any]:
    task: dict[str, Any] = {
        "name": "SIB200Classification",
        "type": "classification",
        "source": {
            "path": "data/{subset}/test.tsv",
            "train_path": "data/{subset}/train.tsv",
            "format": "tsv",
            "columns": {"id": "index_id", "text": "text", "label": "category"},
        },
        "samples_per_label": 8,
        "subsets": [
            {"name": "eng_Latn", "language": "eng-Latn", "size": 42},
            {"name": "arb_Arab", "language": "arb_Arab", "size": 42},
        ],
    }
    task.update(task_overrides)
    return {"name": "pilot", "tasks": [task]}


def _write(study_dir: Path, data: dict[str, Any]) -> Path:
    path = study_dir / "study.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_local_spec_resolves_paths_defaults_and_annotators(study_dir: Path) -> None:
    spec = load_spec(_write(study_dir, _sib_spec()))
    assert spec.name == "pilot" and spec.seed == 42
    (task,) = spec.tasks
    assert task.type == "classification"
    eng, arb = task.subsets
    assert eng.path == "data/eng_Latn/test.tsv"
    assert eng.resolved_path == (study_dir / "data/eng_Latn/test.tsv").resolve()
    assert arb.resolved_train_path == (study_dir / "data/arb_Arab/train.tsv").resolve()
    assert arb.language == "arb-Arab"  # underscore normalised
    assert (eng.annotators, arb.annotators) == (2, 1)  # HUME default: 2 English, 1 otherwise
    assert eng.settings.samples_per_label == 8 and eng.size == 42 and eng.sampling == "sample"


def test_loading_a_folder_reads_study_yaml(study_dir: Path) -> None:
    _write(study_dir, _sib_spec())
    assert load_spec(study_dir).spec_hash == load_spec(study_dir / "study.yaml").spec_hash


def test_annotator_overrides_study_task_and_subset(study_dir: Path) -> None:
    data = _sib_spec()
    data["annotators"] = {"en": 3, "default": 2}
    data["tasks"][0]["subsets"][1]["annotators"] = 4
    spec = load_spec(_write(study_dir, data))
    eng, arb = spec.tasks[0].subsets
    assert (eng.annotators, arb.annotators) == (3, 4)
    assert annotators_for("eng-Latn", {"en": 3, "default": 1}) == 3
    assert annotators_for("dan-Latn", {"dan-Latn": 5, "default": 1}) == 5
    assert annotators_for("rus-Cyrl", {"eng": 2, "default": 1}) == 1


def test_annotator_policy_codes_share_one_language_table() -> None:
    """``no``, ``nor`` and ``nb`` all mean Bokmål, which HUME tags ``nob-Latn``."""
    for key in ("no", "nor", "nb", "nob", "nob-Latn"):
        assert annotators_for("nob-Latn", {key: 2}) == 2, key
    assert annotators_for("nob-Latn", {"no": 2}) == 2
    assert annotators_for("no", {"nob": 3, "default": 1}) == 3
    assert annotators_for("eng", {"en": 4}) == annotators_for("en", {"eng": 4}) == 4
    assert annotators_for("nno-Latn", {"no": 2}) == 1  # Nynorsk is not Bokmål
    assert annotators_for("dan-Latn", {"dan-Cyrl": 5}) == 1  # a full tag matches only itself


def test_spec_hash_ignores_layout_but_not_content(study_dir: Path) -> None:
    data = _sib_spec()
    h1 = parse_spec(data, base_dir=study_dir).spec_hash
    reordered = {"tasks": data["tasks"], "name": "pilot", "seed": 42}  # explicit default seed
    assert parse_spec(reordered, base_dir=study_dir).spec_hash == h1
    changed = _sib_spec()
    changed["tasks"][0]["subsets"][0]["size"] = 35
    assert parse_spec(changed, base_dir=study_dir).spec_hash != h1


def test_header_false_positional_columns_and_sts_defaults(tmp_path: Path) -> None:
    data = {
        "name": "sts",
        "tasks": [
            {
                "name": "STSB",
                "type": "sts",
                "source": {
                    "path": str(SOURCE_DATA / "stsb-en-test.csv"),
                    "header": False,
                    "columns": {"sentence1": 0, "sentence2": 1, "score": 2},
                },
                "score_range": [0, 5],
                "subsets": [{"language": "en", "size": 50}],
            }
        ],
    }
    (sub,) = parse_spec(data, base_dir=tmp_path).tasks[0].subsets
    assert (
        sub.name == "default" and sub.settings.bins == 5 and sub.settings.score_range == (0.0, 5.0)
    )
    assert sub.annotators == 2  # "en" is English


def test_a_null_setting_reads_as_not_given(tmp_path: Path) -> None:
    """``bins: null`` keeps the type's default and a task's ``score_range: null`` none: the
    subset and the spec hash are those of a spec without the keys."""

    def spec(**keys: object) -> StudySpec:
        task = {"name": "S", "type": "sts", "source": {"path": "x.csv"}, "size": 5, **keys}
        return parse_spec(
            {"name": "s", "tasks": [{**task, "subsets": [{"language": "en"}]}]},
            base_dir=tmp_path,
            check_files=False,
        )

    nulls, plain = spec(bins=None, score_range=None), spec()
    assert nulls.tasks[0].subsets[0].settings.bins == 5
    assert nulls.tasks[0].subsets[0].settings.score_range is None
    assert nulls.spec_hash == plain.spec_hash != spec(bins=4).spec_hash


def test_clustering_size_is_k_times_n(study_dir: Path) -> None:
    data = _sib_spec(type="clustering", labels=6, items_per_label=5)
    del data["tasks"][0]["samples_per_label"]
    del data["tasks"][0]["source"]["train_path"]
    for s in data["tasks"][0]["subsets"]:
        del s["size"]
    sub = parse_spec(data, base_dir=study_dir).tasks[0].subsets[0]
    assert (sub.settings.labels, sub.settings.items_per_label, sub.size) == (6, 5, 30)


def test_preset_expands_to_the_16_hume_tasks_without_french() -> None:
    spec = parse_spec({"name": "hume", "preset": "hume-v1"})
    assert [t.name for t in spec.tasks] == list(HUME_SIZES)
    subsets = list(spec.iter_subsets())
    assert len(subsets) == 26
    for task, sub in subsets:
        assert sub.size == HUME_SIZES[task.name][sub.name], (task.name, sub.name)
        assert task.source.mteb == task.name and sub.sampling == "all"
        assert not sub.language.startswith("fra") and sub.name not in ("fr", "fra_Latn")
        assert sub.annotators == (2 if sub.language.startswith("eng") else 1)
        if task.type == "classification":
            assert sub.settings.samples_per_label == HUME_SPL[task.name]
        if task.type == "clustering":
            assert sub.settings.labels == HUME_K[task.name]
        if task.type == "reranking":
            assert sub.settings.candidates == 7
    assert {t.type for t in spec.tasks} == {"classification", "clustering", "reranking", "sts"}


def test_preset_entry_with_only_and_hand_written_tasks(study_dir: Path) -> None:
    data = _sib_spec()
    data["tasks"].append({"preset": "hume-v1", "only": ["HUMESTS12", "HUMESTS22"]})
    spec = parse_spec(data, base_dir=study_dir)
    assert [t.name for t in spec.tasks] == ["SIB200Classification", "HUMESTS12", "HUMESTS22"]
    assert spec.task("HUMESTS22").subsets[1].settings.score_range == (1.0, 4.0)


def test_preset_table_matches_mteb_metadata() -> None:
    """The preset's names, types, subsets, languages and samples_per_label are MTEB's."""
    import mteb

    bench = mteb.get_benchmark("HUME(v1)")
    by_name = {t.metadata.name: t for t in bench.tasks}
    assert set(by_name) == {entry["name"] for entry in HUME_V1}
    types = {"Classification": "classification", "Clustering": "clustering"}
    types |= {"Reranking": "reranking", "STS": "sts"}
    for entry in HUME_V1:
        task = by_name[entry["name"]]
        assert types[task.metadata.type] == entry["type"]
        assert [s["name"] for s in entry["subsets"]] == list(task.hf_subsets)
        langs = task.metadata.eval_langs
        for s in entry["subsets"]:
            expected = langs[s["name"]][0] if isinstance(langs, dict) else langs[0]
            assert s["language"] == expected
        if entry["type"] == "classification":
            assert entry["samples_per_label"] == task.samples_per_label


def test_mteb_source_without_subsets_takes_languages_from_mteb() -> None:
    spec = parse_spec(
        {
            "name": "x",
            "tasks": [
                {
                    "name": "STS22",
                    "type": "sts",
                    "source": {"mteb": "HUMESTS22", "hf_subsets": ["en", "ru"]},
                    "size": 20,
                }
            ],
        }
    )
    subs = spec.tasks[0].subsets
    assert [(s.name, s.language, s.annotators) for s in subs] == [
        ("en", "eng-Latn", 2),
        ("ru", "rus-Cyrl", 1),
    ]


def _err(data: Any, base: Path, **kw: Any) -> SpecError:
    with pytest.raises(SpecError) as info:
        parse_spec(data, file="study.yaml", base_dir=base, **kw)
    message = str(info.value)
    assert "\n" not in message and message.startswith("study.yaml: ")
    return info.value


def _with(mutate: Any) -> dict[str, Any]:
    data = _sib_spec()
    mutate(data["tasks"][0])
    return data


@pytest.mark.parametrize(
    ("mutate", "field", "words"),
    [
        (lambda t: t.update(type="ranking"), "type", "unknown type 'ranking'"),
        (lambda t: t["source"].pop("path"), "subsets[eng_Latn].path", "missing"),
        (lambda t: t["subsets"][0].update(size=0), "subsets[eng_Latn].size", "≥ 1"),
        (lambda t: t["subsets"][1].update(size=-3), "subsets[arb_Arab].size", "≥ 1"),
        (lambda t: t["subsets"][0].pop("size"), "subsets[eng_Latn].size", "required"),
        (lambda t: t["subsets"][0].update(language="English"), "subsets[eng_Latn].language", ""),
        (lambda t: t.update(sizes=3), "sizes", "unknown field"),
        (lambda t: t["source"].update(format="xlsx"), "source.format", "unknown format"),
        (lambda t: t["source"]["columns"].update(score="x"), "source.columns", "'score'"),
        (lambda t: t["source"].update(header=False), "source.columns", "positions"),
        (
            lambda t: t["source"].update(path="data/{subset}/nope.tsv"),
            "subsets[eng_Latn].path",
            "file not found",
        ),
        (lambda t: t.update(labels=3), "subsets[eng_Latn].labels", "not used"),
        (lambda t: t["subsets"][1].update(name="eng_Latn"), "subsets[1].name", "duplicate"),
        (lambda t: t.update(source={"mteb": "HUMESTS12", "path": "x"}), "source.path", "MTEB"),
        (lambda t: t.pop("source"), "source", "required"),
        (lambda t: t.update(sampling="most"), "subsets[eng_Latn].sampling", "one of"),
        (lambda t: t.update(label_set=["a"]), "subsets[eng_Latn].label_set", "two"),
    ],
)
def test_errors_name_file_task_and_field(
    study_dir: Path, mutate: Any, field: str, words: str
) -> None:
    err = _err(_with(mutate), study_dir)
    assert err.task == "SIB200Classification"
    assert err.field == field
    assert f"task 'SIB200Classification': {field}: " in str(err)
    assert words in err.reason


def test_clustering_and_sts_specific_errors(study_dir: Path) -> None:
    clus = _sib_spec(type="clustering", items_per_label=5)
    del clus["tasks"][0]["samples_per_label"], clus["tasks"][0]["source"]["train_path"]
    assert _err(clus, study_dir).field == "subsets[eng_Latn].labels"
    clus["tasks"][0]["labels"] = 6  # subsets still say size 42 ≠ 6 × 5
    assert "size 42 ≠ labels × items_per_label = 30" in str(_err(clus, study_dir))
    sts = {
        "name": "s",
        "tasks": [
            {
                "name": "STSB",
                "type": "sts",
                "source": {"path": str(SOURCE_DATA / "stsb-en-test.csv"), "header": False},
                "score_range": [5, 0],
                "subsets": [{"language": "en", "size": 10}],
            }
        ],
    }
    assert _err(sts, study_dir).field == "subsets[default].score_range"
    sts["tasks"][0]["type"] = "reranking"
    del sts["tasks"][0]["score_range"]
    assert "JSONL" in str(_err(sts, study_dir))


def test_study_level_errors(study_dir: Path) -> None:
    assert _err({"tasks": []}, study_dir).field == "name"
    assert _err({"name": "x"}, study_dir).field == "tasks"
    assert _err({"name": "x", "seed": "abc", "preset": "hume-v1"}, study_dir).field == "seed"
    assert _err({"name": "x", "preset": "hume-v2"}, study_dir).field == "preset"
    err = _err({"name": "x", "tasks": [{"preset": "hume-v1", "only": ["HUMESTS99"]}]}, study_dir)
    assert "unknown preset task 'HUMESTS99'" in str(err) and err.task == "HUMESTS99"
    dup = {"name": "x", "tasks": [{"preset": "hume-v1", "only": ["HUMESTS12"]}] * 2}
    assert "duplicate task name" in str(_err(dup, study_dir))
    bad_ann = {"name": "x", "annotators": {"eng": 0}, "preset": "hume-v1"}
    assert _err(bad_ann, study_dir).field == "annotators.eng"


def test_mteb_source_errors(study_dir: Path) -> None:
    def one(source: Any, task_type: str = "sts") -> SpecError:
        task = {"name": "T", "type": task_type, "source": source, "size": 5}
        return _err({"name": "x", "tasks": [task]}, study_dir)

    assert "unknown MTEB task 'NoSuchTask'" in str(one({"mteb": "NoSuchTask"}))
    err = one({"mteb": "HUMESTS12"}, "classification")
    assert err.field == "type" and "is a sts task" in err.reason
    task = {"name": "T", "type": "sts", "source": {"mteb": "HUMESTS22"}, "size": 5}
    task["subsets"] = [{"name": "xx"}]
    err = _err({"name": "x", "tasks": [task]}, study_dir)
    assert err.field == "subsets[xx].name" and "has no subset 'xx'" in err.reason


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "study.yaml"
    path.write_text("name: x\ntasks:\n  - name: [unclosed\n", encoding="utf-8")
    with pytest.raises(SpecError, match=r"study\.yaml: invalid YAML at line \d"):
        load_spec(path)
    with pytest.raises(SpecError, match="cannot read spec"):
        load_spec(tmp_path / "missing.yaml")


def test_preset_tasks_are_copies() -> None:
    first = preset_tasks("hume-v1")
    first[0]["size"] = 1
    first[0]["subsets"].clear()
    again = preset_tasks("hume-v1")[0]
    assert again["size"] == 48 and again["subsets"] == [{"name": "default", "language": "eng-Latn"}]
