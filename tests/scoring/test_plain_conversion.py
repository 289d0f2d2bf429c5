"""records.plain_dict: the quick way through the built-in types converts as the full walk does.

The reference is the conversion written out in full (dataclasses.fields, an isinstance test per
case, as records._plain was before issue 38), on records holding every kind of value."""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from enum import IntEnum
from types import MappingProxyType
from typing import Any

import numpy as np

from scoring.records import Agreement, Interval, Score, plain_dict


def _reference(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _reference(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): _reference(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_reference(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):
        return obj.item()
    return obj


class _Str(str):
    pass


class _Dict(dict):
    pass


class _Level(IntEnum):
    LOW = 1


@dataclass(frozen=True)
class _Holder:
    values: Any
    more: Any = field(default_factory=list)


def test_conversion_equals_the_full_walk_value_for_value_and_type_for_type() -> None:
    pair = namedtuple("pair", "a b")
    iv = Interval(0.5, 0.4, 0.6, 0.95, "bootstrap:bca", {"seed": np.int64(1)})
    values = {
        "numbers": [1, 2.5, True, None, np.float64(0.25), np.bool_(False), np.int32(3)],
        "texts": ("a", _Str("b"), b"c"),
        "maps": [_Dict(x=iv), OrderedDict([(2, "two"), (1.5, "x")]), MappingProxyType({"m": 1})],
        "pairs": [pair(1, (2, 3))],
        "enum": _Level.LOW,
        "class": Interval,
        "nested": _Holder([iv, {"deep": [_Holder(np.float32(0.5))]}]),
    }
    records = [
        Score(0.5, "m", per_rater={"a": np.float64(0.5)}, details=values),
        Agreement(0.4, "fleiss_kappa", "fair", 3, 10, ("w",), {"per_item": {"i": [1, 2]}}),
        iv,
        _Holder(values, [values]),
    ]
    for record in records:
        got, want = plain_dict(record), _reference(record)
        assert got == want

        def types(o: Any) -> Any:
            if isinstance(o, dict):
                return {k: types(v) for k, v in o.items()}
            if isinstance(o, list):
                return [types(v) for v in o]
            return type(o)

        assert types(got) == types(want)
        assert list(got) == list(want)
