"""The report's plots as :class:`~hume_sync.report.blocks.Figure` blocks: which bars and
points each shows, and a caption that names only what is drawn. How they are drawn is
:mod:`hume_sync.report.plots`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from hume_sync.report import plots
from hume_sync.report.blocks import Figure, Paragraph
from hume_sync.report.cells import f
from hume_sync.report.plots import Bar
from scoring.subset_report import SubsetReport

if TYPE_CHECKING:
    from hume_sync.report.model import StudyReport


def _subset_plot(index: int, s: SubsetReport) -> str:
    """Humans (with their interval), LLM annotators and models on one subset, best first, on
    the axis of the subset type's main score."""
    t = s.input.task_type
    bars = []
    if s.human is not None:
        iv = s.interval
        bars.append(
            Bar(
                "humans",
                s.human.value,
                "human",
                f(s.human.value),
                None if iv is None else iv.low,
                None if iv is None else iv.high,
            )
        )
    bars += [Bar(f"LLM {n}", sc.value, "llm", f(sc.value)) for n, sc in s.llm_scores.items()]
    bars += [Bar(n, v, "model", f(v)) for n, v in s.input.models.items() if math.isfinite(v)]
    bars.sort(key=lambda b: (-b.value, b.label))
    lows = [b.value for b in bars] + [b.low for b in bars if b.low is not None]
    return plots.bar_chart(
        plot_id=f"plot-subset-{index}",
        title=f"{s.input.key} ({t.name}, {s.input.language})",
        axis_title=f"{t.score_main_label} ({t.score_main_name})",
        bars=bars,
        lo=plots.axis_range(lows),
    )


def subset_plots(report: StudyReport) -> Figure | Paragraph:
    """One bar chart per subset, with a caption that names only what the charts hold."""
    charts = [_subset_plot(i, s) for i, s in enumerate(report.subsets, 1)]
    charts = [c for c in charts if c]
    if not charts:
        return Paragraph("No scores to plot.")
    kinds = {
        "humans (red; the black line is their 95 % interval where there is one)": any(
            s.human is not None for s in report.subsets
        ),
        "LLM annotators (blue)": any(s.llm_scores for s in report.subsets),
        "embedding models (grey)": any(s.input.models for s in report.subsets),
    }
    caption = "Per subset, best first: " + ", ".join(k for k, on in kinds.items() if on) + "."
    return Figure("".join(charts), caption)


def agreement_plot(report: StudyReport) -> Figure | Paragraph:
    """Headline human–human agreement per subset, its statistic named on each bar."""
    headlines = [(s, s.headline_agreement) for s in report.subsets]
    subs = [(s, a) for s, a in headlines if a is not None and math.isfinite(a.value)]
    if not subs:
        return Paragraph("No subset has two annotators on the same items: no agreement to plot.")
    bars = [
        Bar(
            s.input.key,
            a.value,
            "low" if s.low_agreement else "agreement",
            f"{a.method} {f(a.value)} ({a.band})",
        )
        for s, a in subs
    ]
    svg = plots.bar_chart(
        plot_id="plot-agreement",
        title="Human–human agreement per subset",
        axis_title="agreement (the type's headline statistic, named on each bar)",
        bars=bars,
        lo=plots.axis_range([b.value for b in bars], step=0.2),
        step=0.2,
    )
    caption = "Headline human–human agreement per subset; green: not low"
    if any(b.kind == "low" for b in bars):
        caption += "; orange: low (κ < 0.4 or ρ < 0.6)"
    return Figure(svg, caption + ".")


def llm_plot(report: StudyReport) -> Figure:
    """Human score (x) against each LLM annotator's score (y), one named point per subset."""
    points = [
        (s.human.value, sc.value, f"{name} · {s.input.key}")
        for s in report.subsets
        if s.human is not None
        for name, sc in s.llm_scores.items()
    ]
    svg = plots.scatter(
        plot_id="plot-human-vs-llm",
        title="Humans against LLM annotators",
        x_title="human score (each subset's main score)",
        y_title="LLM annotator's score",
        points=points,
    )
    return Figure(svg, "Human vs LLM score per subset.")
