"""records.plain_summary: the full conversion less nested details, without converting them."""

from __future__ import annotations

import numpy as np

from scoring.records import Interval, Score, plain_summary


def _converted_then_dropped(s: Score) -> dict[str, object]:
    d = s.to_dict()
    d["details"] = {k: v for k, v in d["details"].items() if not isinstance(v, dict | list)}
    return d


def test_summary_is_the_full_conversion_less_nested_details() -> None:
    iv = Interval(0.5, 0.4, 0.6, 0.95, "bootstrap:bca", {"seed": 1})
    s = Score(
        np.float64(0.5),
        "human:majority",
        n_items=3,
        per_rater={"a": 0.5, "b": np.float32(0.25)},  # type: ignore[dict-item]
        details={
            "f1": np.float64(0.4),
            "votes": {"i1": ["x", "y"]},
            "order": ("x", "y"),
            "interval": iv,
            1: "one",  # type: ignore[dict-item]
            "1": "string one wins",
            2: {"nested": True},  # type: ignore[dict-item]
            "kind": None,
            "flag": np.bool_(True),
            "cls": Interval,
        },
    )
    got = plain_summary(s)
    assert got == _converted_then_dropped(s)
    assert list(got) == list(s.to_dict())
    assert list(got["details"]) == ["f1", "1", "kind", "flag", "cls"]
    assert type(got["details"]["f1"]) is float and type(got["value"]) is float
