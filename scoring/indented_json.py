"""``json.dumps(obj, indent=2, ensure_ascii=False)``, the same text, about three times faster.

Why: with ``indent`` the standard library gives up its C encoder for a pure-Python one made of
nested generators, where every token is passed up through one generator per level of nesting.
scores.json and the MTEB result files of a HUME-size export are some 60,000 tokens, and their
encoding was the largest single cost of writing the outputs (issue 38). This encoder walks the
same structure once, appending to one list; the leaves are encoded by the same functions as the
standard library's (its C string escaper, ``float.__repr__``, ``int.__repr__``), in the same
order of type checks, so the text is the same character for character (tests compare the two
on the outputs of real exports and on the edge cases: non-finite floats, non-string keys,
tuples, subclasses of int and float, ``default``, circular references).
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

__all__ = ["dumps_indented"]

_INF = float("inf")


def _float_text(o: float) -> str:
    """As the standard library writes a float (``allow_nan=True``)."""
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


def _no_default(o: Any) -> Any:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def _key_text(key: Any) -> str:
    """A dict key as the standard library turns it into a string (no ``skipkeys``)."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float_text(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def _scalar(o: Any) -> str | None:
    """The text of a leaf, or None for a container or another object (the library's order)."""
    if isinstance(o, str):
        return encode_basestring(o)
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if isinstance(o, int):
        return int.__repr__(o)
    if isinstance(o, float):
        return _float_text(o)
    return None


class _Writer:
    """One encoding.

    It holds the text's parts, the containers being encoded (for circular references) and,
    per indentation, the text before each string key already seen there.
    """

    def __init__(self, step: str, default: Callable[[Any], Any]) -> None:
        self.parts: list[str] = []
        self.markers: set[int] = set()
        self.step = step
        self.default = default
        self.heads: dict[str, dict[str, str]] = {}

    def enter(self, o: Any) -> int:
        mark = id(o)
        if mark in self.markers:
            raise ValueError("Circular reference detected")
        self.markers.add(mark)
        return mark

    def value(self, o: Any, pad: str) -> None:
        text = _scalar(o)
        if text is not None:
            self.parts.append(text)
        elif isinstance(o, list | tuple | dict):
            self.container(o, pad)
        else:
            mark = self.enter(o)
            self.value(self.default(o), pad)
            self.markers.remove(mark)

    def container(self, o: list[Any] | tuple[Any, ...] | dict[Any, Any], pad: str) -> None:
        """A list, tuple or dict, one item per line.

        Every item starts with the separator (``,``, newline, indent) and, in a dict, its
        key; the first item's comma is cut afterwards.
        """
        is_dict = isinstance(o, dict)
        parts = self.parts
        if not o:
            parts.append("{}" if is_dict else "[]")
            return
        mark = self.enter(o)
        inner = pad + self.step
        parts.append("{" if is_dict else "[")
        first = len(parts)
        if isinstance(o, dict):
            self.dict_items(o, inner)
        else:
            self.list_items(o, inner)
        parts[first] = parts[first][1:]
        parts.append(pad + ("}" if is_dict else "]"))
        self.markers.remove(mark)

    def dict_items(self, o: dict[Any, Any], inner: str) -> None:
        """A dict's items; the common exact types here, the rest as :meth:`value` writes them.

        The text before a string key (separator, key, colon) is made once per key and
        indentation: the same keys recur in thousands of records (issue 38).
        """
        append, container = self.parts.append, self.container
        float_repr, int_repr = float.__repr__, int.__repr__
        heads = self.heads.get(inner)
        if heads is None:
            heads = self.heads[inner] = {}
        sep = "," + inner
        for key, item in o.items():
            if type(key) is str:
                head = heads.get(key)
                if head is None:
                    head = heads[key] = sep + encode_basestring(key) + ": "
                append(head)
            else:  # not kept: True, 1 and 1.0 are one key of a dict but three texts
                append(sep + encode_basestring(_key_text(key)) + ": ")
            kind = type(item)
            if kind is float:
                append(float_repr(item) if item - item == 0.0 else _float_text(item))
            elif kind is str:
                append(encode_basestring(item))
            elif kind is dict or kind is list:
                container(item, inner)
            elif kind is int:
                append(int_repr(item))
            elif item is None:
                append("null")
            else:
                self.value(item, inner)

    def list_items(self, o: list[Any] | tuple[Any, ...], inner: str) -> None:
        """A list's or tuple's items, as :meth:`dict_items` writes values."""
        append, container = self.parts.append, self.container
        float_repr, int_repr = float.__repr__, int.__repr__
        sep = "," + inner
        for item in o:
            append(sep)
            kind = type(item)
            if kind is float:
                append(float_repr(item) if item - item == 0.0 else _float_text(item))
            elif kind is str:
                append(encode_basestring(item))
            elif kind is dict or kind is list:
                container(item, inner)
            elif kind is int:
                append(int_repr(item))
            elif item is None:
                append("null")
            else:
                self.value(item, inner)


def dumps_indented(
    obj: Any, *, indent: int = 2, default: Callable[[Any], Any] | None = None
) -> str:
    """The text of ``json.dumps(obj, indent=indent, ensure_ascii=False, default=default)``.

    Args:
        obj: what to encode (dicts, lists, tuples, strings, numbers, booleans, None; anything
            else through ``default``).
        indent: spaces per level.
        default: turns an object of another type into one that can be encoded; without it
            such an object is a TypeError, as in the standard library.

    Returns:
        The JSON text.

    Raises:
        TypeError: an object that cannot be encoded, or a dict key that is no string, number,
            boolean or None.
        ValueError: a circular reference.
    """
    writer = _Writer(" " * indent, _no_default if default is None else default)
    writer.value(obj, "\n")
    return "".join(writer.parts)
