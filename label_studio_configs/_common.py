"""Helpers shared by the per-type configs: template rendering, escaping, RTL, result checks.

Label Studio does not check annotations or predictions against the labeling config, so every
result goes through the checks here before a study uses it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

from ._screen import SCREEN_XML
from .errors import InvalidContentError, InvalidResultError

Result = list[dict[str, Any]]

# ISO 639-1/-3 codes of languages written right to left by default, and RTL ISO 15924 scripts.
# A script subtag decides when present ("ur-Latn" is left to right, "eng-Arab" right to left).
RTL_LANGUAGES = frozenset(
    {"ar", "ara", "arb", "arz", "apc", "ary", "acm", "ajp", "ars", "aeb", "he", "heb"}
    | {"fa", "fas", "per", "pes", "prs", "ur", "urd", "ps", "pus", "pbt", "yi", "yid"}
    | {"dv", "div", "ckb", "sd", "snd", "ug", "uig"}
)
RTL_SCRIPTS = frozenset({"arab", "hebr", "syrc", "thaa", "nkoo", "adlm", "rohg", "mand", "samr"})

_INVALID_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
# Label Studio replaces `$name` in attribute values with task data (utils/data.js parseValue).
_LS_VARIABLE = re.compile(r"\$[\w[\].{}]")


def is_rtl(language: str | None) -> bool:
    """True for right-to-left languages/scripts: "ar", "ara", "arb", "arb_Arab", "*-Arab", "he"."""
    if not language:
        return False
    parts = [p for p in re.split(r"[-_]", language.strip()) if p]
    if not parts:
        return False
    scripts = [p.lower() for p in parts[1:] if len(p) == 4 and p.isalpha()]
    if scripts:
        return scripts[0] in RTL_SCRIPTS
    return parts[0].lower() in RTL_LANGUAGES


def direction_style(language: str | None) -> str:
    """CSS for the View around the text tags (Text and List have no `dir` attribute)."""
    if is_rtl(language):
        return "direction: rtl; text-align: right;"
    return "direction: ltr; text-align: left;"


def xml_attr(value: str, *, what: str) -> str:
    """Escape `value` for a double-quoted XML attribute; reject what XML cannot hold."""
    if not isinstance(value, str):
        raise InvalidContentError(f"{what} must be a string, got {type(value).__name__}")
    if _INVALID_XML_CHARS.search(value):
        raise InvalidContentError(f"{what} {value!r} contains a control character XML cannot hold")
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
        .replace("\r\n", "\n")
        .replace("\n", "&#10;")
        .replace("\r", "&#10;")
        .replace("\t", "&#9;")
    )


def static_text(value: str, *, what: str) -> str:
    """Escaped attribute text that Label Studio shows as is (a `$word` would be read as data)."""
    # U+FF04 FULLWIDTH DOLLAR SIGN looks like "$" but is not a Label Studio variable.
    return xml_attr(value.replace("$", "\uff04") if isinstance(value, str) else value, what=what)


def check_labels(labels: Sequence[str] | None, *, what: str = "label") -> list[str]:
    """A usable label set: non-empty, unique, non-blank strings without `$`."""
    if labels is None or isinstance(labels, str) or not isinstance(labels, Iterable):
        raise InvalidContentError(f"a {what} set (a list of strings) is required")
    out = list(labels)
    if not out:
        raise InvalidContentError(f"the {what} set is empty")
    seen: set[str] = set()
    for label in out:
        if not isinstance(label, str) or not label.strip():
            raise InvalidContentError(f"{what} {label!r} is not a non-blank string")
        if _LS_VARIABLE.search(label) or "$" in label:
            raise InvalidContentError(
                f"{what} {label!r} contains '$', which Label Studio would read as a data field"
            )
        if label in seen:
            raise InvalidContentError(f"{what} {label!r} appears twice")
        seen.add(label)
        xml_attr(label, what=what)
    return out


def check_n_groups(n_groups: int | None) -> int:
    """A usable group count for clustering (at least 2)."""
    if isinstance(n_groups, bool) or not isinstance(n_groups, int):
        raise InvalidContentError(f"n_groups must be an integer >= 2, got {n_groups!r}")
    if n_groups < 2:
        raise InvalidContentError(f"n_groups must be at least 2, got {n_groups}")
    return n_groups


def check_ref(hume_ref: str) -> str:
    """The task's reference to its study instance: a non-empty string that carries nothing
    (the study store maps it back; never a source id, which can encode gold)."""
    if not isinstance(hume_ref, str) or not hume_ref:
        raise InvalidContentError(f"hume_ref must be a non-empty string, got {hume_ref!r}")
    return hume_ref


def check_text(content: Mapping[str, Any], key: str) -> str:
    if not isinstance(content, Mapping):
        raise InvalidContentError(f"content must be a mapping, got {type(content).__name__}")
    value = content.get(key)
    if not isinstance(value, str):
        raise InvalidContentError(f"content[{key!r}] must be a string, got {type(value).__name__}")
    return value


def check_items(content: Mapping[str, Any], key: str) -> list[dict[str, str]]:
    """The `[{id, text}]` list of `content[key]`: ids unique non-empty strings, texts strings."""
    if not isinstance(content, Mapping):
        raise InvalidContentError(f"content must be a mapping, got {type(content).__name__}")
    items = content.get(key)
    if not isinstance(items, list) or not items:
        raise InvalidContentError(f"content[{key!r}] must be a non-empty list of {{id, text}}")
    seen: set[str] = set()
    out = []
    for n, item in enumerate(items):
        # a dict first: the Mapping ABC's check is most of this loop's time (issue 38)
        if type(item) is not dict and not isinstance(item, Mapping):
            raise InvalidContentError(f"content[{key!r}][{n}] is not a mapping")
        item_id, text = item.get("id"), item.get("text")
        if not isinstance(item_id, str) or not item_id:
            raise InvalidContentError(f"content[{key!r}][{n}] has no string id")
        if item_id in seen:
            raise InvalidContentError(f"content[{key!r}] has the id {item_id!r} twice")
        if not isinstance(text, str):
            raise InvalidContentError(f"content[{key!r}][{n}] (id {item_id!r}) has no string text")
        seen.add(item_id)
        out.append({"id": item_id, "text": text})
    return out


def list_items(items: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """Items in the shape Label Studio's List tag shows: id, a short numbered title, body."""
    return [{"id": it["id"], "title": f"#{n}", "body": it["text"]} for n, it in enumerate(items, 1)]


def check_item_ids(item_ids: Sequence[str] | None, *, what: str = "item") -> list[str]:
    """The expected ids of a List task (needed to check that a result covers every item)."""
    if item_ids is None or isinstance(item_ids, str):
        raise InvalidContentError(f"the expected {what} ids (a list of strings) are required")
    ids = list(item_ids)
    if not ids or not all(isinstance(i, str) and i for i in ids):
        raise InvalidContentError(f"the expected {what} ids must be non-empty strings")
    if len(set(ids)) != len(ids):
        raise InvalidContentError(f"the expected {what} ids contain duplicates")
    return ids


def render_template(name: str, **fragments: str) -> str:
    """Fill `{{key}}` placeholders of the packaged `<name>.xml` with ready (escaped) XML;
    `{{screen}}` is the progress/skip bar and layout CSS every screen shares (``_screen``)."""
    template = resources.files(__package__).joinpath(f"{name}.xml").read_text(encoding="utf-8")
    fragments = {"screen": SCREEN_XML, **fragments}

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in fragments:
            raise KeyError(f"template {name}.xml needs a value for {{{{{key}}}}}")
        return fragments[key]

    xml = _PLACEHOLDER.sub(fill, template)
    ET.fromstring(xml)  # a rendering bug must fail here, not in Label Studio
    return xml


def result_item(from_name: str, to_name: str, type_: str, value: dict[str, Any]) -> dict[str, Any]:
    """One result region as Label Studio stores it for a whole-task control."""
    return {
        "id": f"hume-{from_name}",
        "from_name": from_name,
        "to_name": to_name,
        "type": type_,
        "value": value,
    }


def choice_list(item: Mapping[str, Any], *, from_name: str) -> list[str]:
    """The ``choices`` of a Choices result item, which must be a list of strings."""
    choices = item["value"].get("choices")
    if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
        raise InvalidResultError(f"control {from_name!r} has no list of choices")
    return choices


def single_result(result: Any, *, from_name: str, to_name: str, type_: str) -> dict[str, Any]:
    """The one result item of control `from_name`; anything else in `result` is an error."""
    if not isinstance(result, list):
        raise InvalidResultError(
            f"result must be a list of result items, got {type(result).__name__}"
        )
    if not result:
        raise InvalidResultError(f"result is empty: no {type_} answer from control {from_name!r}")
    mine = []
    for n, item in enumerate(result):
        if not isinstance(item, Mapping):
            raise InvalidResultError(f"result item {n} is not a mapping")
        name = item.get("from_name")
        if name != from_name:
            raise InvalidResultError(
                f"result item {n} comes from control {name!r}; this config has only {from_name!r}"
            )
        mine.append(item)
    if len(mine) > 1:
        raise InvalidResultError(f"control {from_name!r} has {len(mine)} result items, expected 1")
    item = mine[0]
    if item.get("to_name") != to_name:
        raise InvalidResultError(
            f"control {from_name!r} points to {item.get('to_name')!r}, expected {to_name!r}"
        )
    if item.get("type") != type_:
        raise InvalidResultError(
            f"control {from_name!r} has result type {item.get('type')!r}, expected {type_!r}"
        )
    if not isinstance(item.get("value"), Mapping):
        raise InvalidResultError(f"control {from_name!r} has no value mapping")
    return dict(item)


def ranker_buckets(
    item: Mapping[str, Any],
    *,
    from_name: str,
    buckets: Sequence[str],
    item_ids: Sequence[str],
    what: str,
) -> dict[str, str]:
    """{item_id: bucket} from a Ranker result; every item exactly once, in a known bucket.

    The "_" column holds items left in the original list (Ranker without a default bucket): an
    empty "_" is fine, a non-empty one means items were not placed.
    """
    value = item["value"]
    ranker = value.get("ranker")
    if not isinstance(ranker, Mapping):
        raise InvalidResultError(f"control {from_name!r} has no 'ranker' mapping in its value")
    known = set(item_ids)
    placed: dict[str, str] = {}
    for bucket, ids in ranker.items():
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise InvalidResultError(f"bucket {bucket!r} of {from_name!r} is not a list of ids")
        if bucket == "_":
            unplaced = [i for i in ids if i in known]
            if unplaced:
                raise InvalidResultError(
                    f"{len(unplaced)} {what}(s) left unsorted (not in any bucket): "
                    + ", ".join(map(repr, unplaced[:10]))
                )
            if ids:
                raise InvalidResultError(f"unknown {what} ids {ids[:10]!r} in {from_name!r}")
            continue
        if bucket not in buckets:
            raise InvalidResultError(
                f"unknown bucket {bucket!r} in {from_name!r}; expected one of {list(buckets)!r}"
            )
        for i in ids:
            if i not in known:
                raise InvalidResultError(f"unknown {what} id {i!r} in bucket {bucket!r}")
            if i in placed:
                raise InvalidResultError(
                    f"{what} {i!r} is in two buckets ({placed[i]!r} and {bucket!r})"
                    if placed[i] != bucket
                    else f"{what} {i!r} appears twice in bucket {bucket!r}"
                )
            placed[i] = bucket
    missing = [i for i in item_ids if i not in placed]
    if missing:
        raise InvalidResultError(
            f"{len(missing)} {what}(s) missing from the result: "
            + ", ".join(map(repr, missing[:10]))
        )
    return placed
