"""Inline SVG plots for ``report.html``: horizontal bar charts and a scatter, from plain rows.

The report (:mod:`hume_sync.report.render`) decides what is plotted; this module only how, so
every plot reads the same way without hovering: each bar carries its name and its value as
text, each axis a title, text is :data:`FONT_PX` user units, and an SVG has a ``viewBox`` and
``width="100%"`` with its natural width as ``max-width``: it shrinks with a narrow page instead
of overflowing it, and is never drawn larger than designed (text stays at 13 px on a wide page).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from hume_sync.report.safe_text import html_text

FONT_PX = 13
#: Average advance of a 13 px sans-serif character, to size label columns from their text.
CHAR_PX = 7.2
#: Names longer than this are cut (with "…"; the full name stays in the element's title).
LABEL_CHARS = 56
ROW_PX = 22
BAR_AREA_PX = 440

COLOURS = {
    "human": "#c02020",
    "llm": "#3060c0",
    "model": "#8a8a8a",
    "agreement": "#3a8a3a",
    "low": "#d08020",
}


@dataclass(frozen=True)
class Bar:
    """One bar: its name, value, kind (CSS class and colour, see :data:`COLOURS`), the value
    as printed at its end, and an interval drawn over it where there is one."""

    label: str
    value: float
    kind: str
    text: str
    low: float | None = None
    high: float | None = None


def _e(x: object) -> str:
    return html_text(x)  # html.escape's text, with its quick way for text with nothing to escape


def _cut(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def _width(texts: Sequence[str]) -> float:
    return max((len(t) for t in texts), default=0) * CHAR_PX


def _open(plot_id: str, title: str, width: float, height: float) -> str:
    return (
        f'<svg id="{_e(plot_id)}" class="plot" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" width="100%" '
        f'style="max-width:{width:.0f}px" role="img" aria-label="{_e(title)}">'
        f'<text class="plot-title" x="4" y="16" font-weight="bold">{_e(title)}</text>'
    )


def _ticks(lo: float, hi: float, step: float) -> list[float]:
    n = round((hi - lo) / step)
    return [round(lo + k * step, 6) for k in range(n + 1)]


def axis_range(values: Sequence[float], hi: float = 1.0, step: float = 0.25) -> float:
    """The lower end of an axis that ends at ``hi``: 0, or below the lowest value in whole
    ``step``s (a negative Spearman ρ or κ)."""
    low = min([0.0, *[v for v in values if math.isfinite(v)]])
    return math.floor(low / step) * step


def bar_chart(
    *,
    plot_id: str,
    title: str,
    axis_title: str,
    bars: Sequence[Bar],
    lo: float = 0.0,
    hi: float = 1.0,
    step: float = 0.25,
) -> str:
    """A horizontal bar chart: one row per bar, name on the left, value at the bar's end,
    ticks every ``step`` and ``axis_title`` under the axis."""
    if not bars:
        return ""
    left = min(_width([b.label for b in bars]), LABEL_CHARS * CHAR_PX) + 12
    right = _width([b.text for b in bars]) + 16
    width = left + BAR_AREA_PX + right
    top = 30
    bottom = top + ROW_PX * len(bars)
    height = bottom + 44

    def x(v: float) -> float:
        v = max(lo, min(hi, v))
        return left + (v - lo) / (hi - lo) * BAR_AREA_PX

    parts = [_open(plot_id, title, width, height)]
    for t in _ticks(lo, hi, step):
        parts.append(
            f'<line x1="{x(t):.1f}" y1="{top - 4}" x2="{x(t):.1f}" y2="{bottom}" stroke="#ddd"/>'
            f'<text class="tick" x="{x(t):.1f}" y="{bottom + 16}" text-anchor="middle">'
            f"{t:g}</text>"
        )
    parts.append(
        f'<text class="axis-title" x="{left + BAR_AREA_PX / 2:.1f}" y="{bottom + 36}" '
        f'text-anchor="middle">{_e(axis_title)}</text>'
    )
    zero = x(max(lo, 0.0))
    for i, b in enumerate(bars):
        y = top + i * ROW_PX
        mid = y + ROW_PX / 2
        x0, x1 = sorted((zero, x(b.value)))
        colour = COLOURS.get(b.kind, "#888")
        parts.append(
            f'<text class="label" x="{left - 8:.1f}" y="{mid + 4.5:.1f}" text-anchor="end">'
            f"<title>{_e(b.label)}</title>{_e(_cut(b.label))}</text>"
            f'<rect class="{_e(b.kind)}" x="{x0:.1f}" y="{y + 4}" width="{max(1.0, x1 - x0):.1f}" '
            f'height="{ROW_PX - 8}" fill="{colour}"><title>{_e(b.label)}: {_e(b.text)}</title>'
            "</rect>"
        )
        end = x1
        if b.low is not None and b.high is not None:
            lx, hx = x(b.low), x(b.high)
            parts.append(
                f'<path class="interval" d="M{lx:.1f},{mid:.1f}H{hx:.1f}M{lx:.1f},{y + 3}'
                f'V{y + ROW_PX - 3}M{hx:.1f},{y + 3}V{y + ROW_PX - 3}" stroke="#222" '
                'stroke-width="1.5" fill="none"/>'
            )
            end = max(end, hx)
        parts.append(
            f'<text class="value" x="{end + 5:.1f}" y="{mid + 4.5:.1f}">{_e(b.text)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def scatter(
    *,
    plot_id: str,
    title: str,
    x_title: str,
    y_title: str,
    points: Sequence[tuple[float, float, str]],
) -> str:
    """Points ``(x, y, label)`` on [0, 1]², the diagonal drawn, each point named beside it."""
    if not points:
        return ""
    size, pad = 360, 56
    label_w = min(_width([p[2] for p in points]), LABEL_CHARS * CHAR_PX) + 12
    width, height = pad + size + label_w, pad + size + 50

    def px(v: float) -> float:
        return pad + max(0.0, min(1.0, v)) * size

    def py(v: float) -> float:
        return 30 + size - max(0.0, min(1.0, v)) * size

    parts = [
        _open(plot_id, title, width, height),
        f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(1)}" y2="{py(1)}" stroke="#ccc"/>',
    ]
    for t in _ticks(0.0, 1.0, 0.25):
        parts.append(
            f'<text class="tick" x="{px(t):.1f}" y="{py(0) + 16:.1f}" text-anchor="middle">'
            f'{t:g}</text><text class="tick" x="{pad - 6}" y="{py(t) + 4:.1f}" '
            f'text-anchor="end">{t:g}</text>'
        )
    parts.append(
        f'<text class="axis-title" x="{px(0.5):.1f}" y="{py(0) + 38:.1f}" '
        f'text-anchor="middle">{_e(x_title)}</text>'
        f'<text class="axis-title" x="14" y="{py(0.5):.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {py(0.5):.1f})">{_e(y_title)}</text>'
    )
    for hx, ly, label in points:
        parts.append(
            f'<circle class="llm-point" cx="{px(hx):.1f}" cy="{py(ly):.1f}" r="4.5" '
            f'fill="{COLOURS["llm"]}"><title>{_e(label)}</title></circle>'
            f'<text class="label" x="{px(hx) + 7:.1f}" y="{py(ly) + 4:.1f}">'
            f"{_e(_cut(label))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


__all__ = ["Bar", "axis_range", "bar_chart", "scatter"]
