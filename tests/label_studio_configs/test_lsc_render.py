"""Rendering, task data and registry of the labeling configs (no server needed)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from hume_sync import task_types
from hume_sync.errors import UnknownTaskTypeError
from label_studio_configs import classification, clustering, reranking, sts
from label_studio_configs._common import is_rtl
from label_studio_configs._screen import SKIP_GUIDANCE
from label_studio_configs.errors import InvalidContentError
from tests.task_type_examples import examples

NASTY_LABELS = ["a & b", "<tag>", 'say "hi"', "it's", "x > y < z", "naïve — ünïcödé"]
TEXT_TAGS = {"Text", "List", "Ranker"}


def render(task_type: str, **kw) -> str:
    """The type's config rendered with its LS_RENDER_KW (tests/task_type_examples) and ``kw``."""
    return task_types.get(task_type).ls_render_config(**{**examples(task_type).LS_RENDER_KW, **kw})


def parents(root: ET.Element) -> dict[ET.Element, ET.Element]:
    return {child: parent for parent in root.iter() for child in parent}


def direction_of(root: ET.Element, element: ET.Element) -> str | None:
    """The CSS direction an element inherits from its View ancestors."""
    up = parents(root)
    node: ET.Element | None = element
    while node is not None:
        style = node.get("style") or ""
        if "direction: rtl" in style:
            return "rtl"
        if "direction: ltr" in style:
            return "ltr"
        node = up.get(node)
    return None


@pytest.mark.parametrize("task_type", task_types.names())
def test_config_is_well_formed_xml_with_a_view_root(task_type: str) -> None:
    root = ET.fromstring(render(task_type))
    assert root.tag == "View"
    names = [e.get("name") for e in root.iter() if e.get("name")]
    assert len(names) == len(set(names)), "Label Studio needs unique tag names"


@pytest.mark.parametrize("task_type", task_types.names())
def test_sdk_label_interface_accepts_config(task_type: str) -> None:
    interface = pytest.importorskip("label_studio_sdk.label_interface")
    li = interface.LabelInterface(render(task_type))
    module = task_types.get(task_type).ls_module
    control = li.get_control(module.FROM_NAME)
    assert control.to_name == [module.TO_NAME]


def test_classification_labels_escaped_and_round_trip_through_xml() -> None:
    xml = classification.render_config(labels=NASTY_LABELS)
    root = ET.fromstring(xml)
    assert [c.get("value") for c in root.iter("Choice")] == NASTY_LABELS
    choices = next(root.iter("Choices"))
    assert choices.get("choice") == "single-radio"
    assert choices.get("toName") == "text"


@pytest.mark.parametrize(
    "labels",
    [None, [], ["a", "a"], ["ok", ""], ["ok", "   "], ["$text"], ["a\x00b"], "joy", [1, 2]],
)
def test_classification_rejects_bad_label_sets(labels) -> None:
    with pytest.raises(InvalidContentError):
        classification.render_config(labels=labels)


def test_sts_has_levels_0_to_5_with_meaning() -> None:
    root = ET.fromstring(sts.render_config())
    choices = list(root.iter("Choice"))
    assert sorted(c.get("alias") for c in choices) == ["0", "1", "2", "3", "4", "5"]
    shown = {c.get("alias"): c.get("value") for c in choices}
    assert "completely dissimilar" in shown["0"]
    assert "completely equivalent" in shown["5"]
    assert all(len(v) > 5 for v in shown.values())  # every level says what it means
    assert not list(root.iter("Rating")), "Rating cannot record 0"


def test_sts_custom_levels() -> None:
    root = ET.fromstring(sts.render_config(labels={1: "unrelated", 2: "related", 3: "same"}))
    assert sorted(c.get("alias") for c in root.iter("Choice")) == ["1", "2", "3"]
    with pytest.raises(InvalidContentError):
        sts.render_config(labels=["0", "1"])
    with pytest.raises(InvalidContentError):
        sts.render_config(labels={"a": "b"})


def instructions_header(root: ET.Element) -> ET.Element:
    """The instructions: the Header in the View of class ``hume-instructions``."""
    views = [v for v in root.iter("View") if v.get("className") == "hume-instructions"]
    assert len(views) == 1
    return next(views[0].iter("Header"))


def instructions_of(root: ET.Element) -> str:
    return instructions_header(root).get("value") or ""


@pytest.mark.parametrize("task_type", task_types.names())
def test_every_screen_says_where_the_annotator_is_and_when_to_skip(task_type: str) -> None:
    root = ET.fromstring(render(task_type))
    bar = [v for v in root.iter("View") if v.get("className") == "hume-bar"]
    assert len(bar) == 1
    assert [h.get("value") for h in bar[0].iter("Header")] == ["$hume_position", SKIP_GUIDANCE]
    assert len(list(root.iter("Style"))) >= 1


@pytest.mark.parametrize("k", [2, 5, 6, 12])
def test_clustering_renders_k_buckets_and_no_default(k: int) -> None:
    root = ET.fromstring(clustering.render_config(n_groups=k))
    buckets = list(root.iter("Bucket"))
    assert [b.get("name") for b in buckets] == clustering.group_names(k)
    assert [b.get("name") for b in buckets] == [f"group_{i}" for i in range(1, k + 1)]
    assert not any(b.get("default") for b in buckets)
    header = instructions_of(root)
    assert f"{k} groups" in header


@pytest.mark.parametrize("n_groups", [None, 0, 1, -3, 2.5, True, "5"])
def test_clustering_rejects_bad_group_counts(n_groups) -> None:
    with pytest.raises(InvalidContentError, match="n_groups"):
        clustering.render_config(n_groups=n_groups)


def test_reranking_has_relevant_and_default_not_relevant_buckets() -> None:
    root = ET.fromstring(reranking.render_config())
    buckets = {b.get("name"): b.get("default") for b in root.iter("Bucket")}
    assert buckets == {"relevant": None, "not_relevant": "true"}
    assert next(root.iter("Ranker")).get("toName") == "candidates"
    assert {t.get("value") for t in root.iter("Text")} == {"$query"}


@pytest.mark.parametrize("task_type", task_types.names())
def test_default_instructions_shown_in_header(task_type: str) -> None:
    module = task_types.get(task_type).ls_module
    header = instructions_of(ET.fromstring(render(task_type)))
    expected = module.DEFAULT_INSTRUCTIONS.replace("{n_groups}", "5")
    assert header == expected


@pytest.mark.parametrize("task_type", task_types.names())
def test_custom_instructions_escaped_and_dollar_neutralised(task_type: str) -> None:
    text = 'Pick <one> & "only" one; costs $text or $5\nsecond line'
    header = instructions_of(ET.fromstring(render(task_type, instructions=text)))
    assert '<one> & "only"' in header
    assert "$" not in header, "a $word would be read by Label Studio as a task data field"
    assert "\uff04text" in header
    assert "\n" in header


@pytest.mark.parametrize("task_type", task_types.names())
@pytest.mark.parametrize(
    "language", ["ar", "ara", "arb", "arb_Arab", "arb-Arab", "ara-Arab", "ur-Arab", "fas", "heb"]
)
def test_rtl_languages_wrap_every_text_tag_right_to_left(task_type: str, language: str) -> None:
    root = ET.fromstring(render(task_type, language=language))
    tags = [e for e in root.iter() if e.tag in TEXT_TAGS]
    assert tags
    for tag in tags:
        assert direction_of(root, tag) == "rtl", (tag.tag, tag.get("name"))
    # the (English) instructions and the progress / skip bar stay left to right
    bar = next(v for v in root.iter("View") if v.get("className") == "hume-bar")
    assert all(direction_of(root, h) is None for h in bar.iter("Header"))
    assert direction_of(root, instructions_header(root)) is None
    # the answer choices stand in the text's direction: beside it, at the right
    for choices in root.iter("Choices"):
        assert direction_of(root, choices) == "rtl"


@pytest.mark.parametrize("task_type", task_types.names())
@pytest.mark.parametrize(
    "language", ["en", "eng", "eng-Latn", "dan_Latn", "rus_Cyrl", "nob-Latn", "da", None, ""]
)
def test_ltr_languages_stay_left_to_right(task_type: str, language: str | None) -> None:
    root = ET.fromstring(render(task_type, language=language))
    tags = [e for e in root.iter() if e.tag in TEXT_TAGS]
    assert tags, f"{task_type}: no text tag to check"
    for tag in tags:
        assert direction_of(root, tag) == "ltr", (tag.tag, tag.get("name"))


def test_is_rtl_script_subtag_decides() -> None:
    assert is_rtl("eng-Arab") and is_rtl("xyz_Arab") and is_rtl("arb")
    assert not is_rtl("ar-Latn") and not is_rtl("en") and not is_rtl("rus_Cyrl")


def test_every_type_names_its_config_module_and_unknown_types_are_refused() -> None:
    # The first four, in registration order (types registered later come after them).
    assert task_types.names()[:4] == ("classification", "clustering", "reranking", "sts")
    for module in (classification, clustering, reranking, sts):
        assert task_types.get(module.TASK_TYPE).ls_module is module
    for name in task_types.names():
        assert name == task_types.get(name).ls_module.TASK_TYPE
    for bad in ("image_captioning", "STS", "", None):
        with pytest.raises(UnknownTaskTypeError, match="unknown task type") as err:
            task_types.get(bad)  # type: ignore[arg-type]
        assert isinstance(err.value, LookupError)
        assert "classification, clustering, reranking, sts" in str(err.value)


def test_xml_files_ship_as_package_data() -> None:
    from importlib import resources

    files = {p.name for p in resources.files("label_studio_configs").iterdir()}
    assert {"classification.xml", "clustering.xml", "reranking.xml", "sts.xml"} <= files


# -- task data ---------------------------------------------------------------------------

GOLD_KEYS = {"label", "gold", "labels", "score", "relevant", "cluster", "answer"}


def test_task_data_shapes_carry_content_and_id_only() -> None:
    assert classification.task_data("c1", {"text": "hi", "label": "joy", "gold": "joy"}) == {
        "hume_ref": "c1",
        "text": "hi",
    }
    assert sts.task_data("s1", {"sentence1": "a", "sentence2": "b", "score": 4.2}) == {
        "hume_ref": "s1",
        "sentence1": "a",
        "sentence2": "b",
    }
    rr = reranking.task_data(
        "r1",
        {
            "query": "q",
            "candidates": [
                {"id": "d1", "text": "one", "relevant": 1},
                {"id": "d2", "text": "two", "relevant": 0},
            ],
            "relevant": ["d1"],
        },
    )
    assert rr == {
        "hume_ref": "r1",
        "query": "q",
        "candidates": [
            {"id": "d1", "title": "#1", "body": "one"},
            {"id": "d2", "title": "#2", "body": "two"},
        ],
    }
    cl = clustering.task_data(
        "k1",
        {"items": [{"id": "a", "text": "x", "label": "cs"}, {"id": "b", "text": "y"}], "gold": {}},
    )
    assert cl == {
        "hume_ref": "k1",
        "items": [{"id": "a", "title": "#1", "body": "x"}, {"id": "b", "title": "#2", "body": "y"}],
    }
    for data in (rr, cl):
        for item in data.get("candidates", data.get("items")):
            assert not GOLD_KEYS & set(item)


@pytest.mark.parametrize(
    ("module", "hume_ref", "content"),
    [
        (classification, "x", {}),
        (classification, "x", {"text": 3}),
        (classification, "", {"text": "t"}),
        (classification, "x", "just text"),
        (sts, "x", {"sentence1": "a"}),
        (reranking, "x", {"query": "q", "candidates": []}),
        (reranking, "x", {"query": "q", "candidates": [{"id": "a", "text": "t"}] * 2}),
        (reranking, "x", {"candidates": [{"id": "a", "text": "t"}]}),
        (clustering, "x", {"items": [{"id": 1, "text": "t"}]}),
        (clustering, "x", {"items": [{"id": "a"}]}),
        (clustering, "x", {"items": "abc"}),
    ],
)
def test_task_data_rejects_malformed_content(module, hume_ref, content) -> None:
    with pytest.raises(InvalidContentError):
        module.task_data(hume_ref, content)


def test_item_ids_follow_content_order() -> None:
    content = {"items": [{"id": "z", "text": ""}, {"id": "a", "text": ""}]}
    assert clustering.item_ids(content) == ["z", "a"]
    assert reranking.item_ids({"query": "q", "candidates": content["items"]}) == ["z", "a"]
