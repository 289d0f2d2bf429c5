"""Summarization's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from hume_sync.study.settings_fields import Flag, TypeSettings


class SummarizationSettings(TypeSettings):
    """``show_references``: whether annotators see the text's reference (human-written)
    summaries above the machine summaries they rate. Off by default: SummEval's experts rated
    relevance against the source article alone, and a person shown the references may rate
    closeness to them, which is what a model's score measures, rather than relevance."""

    show_references: Flag = False
