"""scoring.indented_json writes what json.dumps(indent=2, ensure_ascii=False) writes."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

from scoring.indented_json import dumps_indented


def _reference(obj: Any, **kw: Any) -> str:
    return json.dumps(obj, indent=kw.pop("indent", 2), ensure_ascii=False, **kw)


class _Int(int):
    pass


class _Float(float):
    pass


def test_edge_cases_match_the_standard_library() -> None:
    odd: dict[Any, Any] = {
        "values": [
            float("nan"),
            float("inf"),
            -float("inf"),
            1e-5,
            1e300,
            -0.0,
            0.1 + 0.2,
            np.float64(0.1),
            _Int(3),
            _Float(2.5),
            _Float("nan"),
            True,
            False,
            None,
            (1, [], {}, ()),
            'é"\\\n\u2028\x00',
            10**30,
        ],
        3: 2,
        2.5: 3,
        True: 4,
        None: 5,
        float("inf"): [],
        "nested": {"a": {"b": [[[]], [{}], [{"c": None}]]}},
        "objects": [object, np.arange(3), np.int64(4), np.bool_(True)],
    }
    odd[False] = 1
    assert dumps_indented(odd, default=str) == _reference(odd, default=str)
    assert dumps_indented(odd, indent=4, default=repr) == _reference(odd, indent=4, default=repr)
    for top in ["s", 1, None, True, [], {}, 1.5, (), [[1]], float("nan")]:
        assert dumps_indented(top) == _reference(top)


def test_random_structures_match_the_standard_library() -> None:
    rng = random.Random(3)

    def make(depth: int) -> Any:
        kind = rng.randrange(8 if depth < 5 else 5)
        if kind == 0:
            return rng.random() * 10 ** rng.randint(-8, 8)
        if kind == 1:
            return rng.randint(-(10**6), 10**6)
        if kind == 2:
            return "".join(rng.choice('ab"\\ \n\té€😀') for _ in range(rng.randint(0, 6)))
        if kind == 3:
            return rng.choice([None, True, False])
        if kind == 4:
            return rng.choice([float("nan"), float("-inf"), 0.0])
        if kind == 5:
            return [make(depth + 1) for _ in range(rng.randint(0, 4))]
        if kind == 6:
            return tuple(make(depth + 1) for _ in range(rng.randint(0, 3)))
        return {f"k{i}": make(depth + 1) for i in range(rng.randint(0, 4))}

    for _ in range(200):
        obj = make(0)
        assert dumps_indented(obj) == _reference(obj)


def test_errors_are_the_standard_librarys() -> None:
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        dumps_indented({"a": [object()]})
    with pytest.raises(TypeError, match="keys must be str, int, float, bool or None, not tuple"):
        dumps_indented({(1, 2): 1})
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps_indented(loop)
    loop_through_default: list[Any] = []

    class Back:
        def plain(self) -> Any:
            return loop_through_default

    loop_through_default.append(Back())
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps_indented(loop_through_default, default=lambda o: o.plain())
