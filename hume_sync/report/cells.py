"""How the report writes one value: numbers to fixed digits, percentages, counts, and a
reason turned into a short mark with a footnote (:class:`~hume_sync.report.blocks.Footnoted`).

Shared by every table of the report so that a number reads the same wherever it is printed.
"""

from __future__ import annotations

import math
from typing import Any

from hume_sync.report.blocks import Footnoted

#: Short marks for the reasons a cell has no number; the reason itself goes to a footnote.
MARKS = (("not estimable", "n/e"), ("not applicable", "n/a"))


def f(x: Any, digits: int = 3) -> str:
    """A number to ``digits`` places; ``–`` for none or a non-finite float."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def pct(x: float | None) -> str:
    """A share as a percentage to one place."""
    return "–" if x is None else f"{100 * x:.1f}"


def signed(x: float | None) -> str:
    """A difference with its sign (``+0.133``)."""
    return "–" if x is None else f"{x:+.3f}"


def count(n: int | None) -> str:
    """A count as people read it: 22.7M, 1.5B, 384."""
    if n is None:
        return "–"
    for size, unit in ((1e9, "B"), (1e6, "M")):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def mark(reason: str) -> str:
    """The short mark for ``reason``: ``n/e`` (not estimable), ``n/a`` (not applicable), else
    ``–``."""
    return next((m for word, m in MARKS if reason.startswith(word)), "–")


def noted(reason: str, value: str | None = None) -> Footnoted:
    """``value`` (or the mark for ``reason`` where there is no value) with ``reason`` as its
    footnote."""
    return Footnoted(value if value is not None else mark(reason), reason)
