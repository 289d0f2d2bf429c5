"""Bitext mining's own spec settings (read by :mod:`hume_sync.study.type_settings`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

from hume_sync.study.settings_fields import CountOfTwo, TypeSettings

#: Candidates per sentence unless the spec says otherwise: the translation and three others.
DEFAULT_CANDIDATES = 4
#: Of those, drawn at random from the target side (the rest are the models' near misses).
DEFAULT_RANDOM_FILLERS = 1


def _fillers(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"must be an integer ≥ 0, got {value!r}")
    return value


def _models(value: Any) -> tuple[str, ...]:
    ok = isinstance(value, list | tuple) and all(isinstance(x, str) and x.strip() for x in value)
    if not ok:
        raise ValueError("must be a list of model names (as 'predict --model' takes them)")
    if len(set(value)) != len(value):
        raise ValueError("names a model twice")
    return tuple(x.strip() for x in value)


def _language(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a language code like arb-Arab")
    return value.strip().replace("_", "-")


class BitextMiningSettings(TypeSettings):
    """``target_language``: the language of the candidate translations (the subset's
    ``language`` is the source sentence's; both decide the text direction, and annotators must
    read both); ``candidates``: how many translations a sentence is shown with, the right one
    among them; ``random_fillers``: how many of the wrong ones are drawn at random from the
    whole target side, the rest being the nearest neighbours that ``neighbour_models`` (embedding
    models, named as ``predict`` takes them) find there for the sentence. Without models every
    wrong candidate is random, and the sample report says so."""

    target_language: Annotated[str | None, BeforeValidator(_language)] = None
    candidates: CountOfTwo = DEFAULT_CANDIDATES
    random_fillers: Annotated[int, BeforeValidator(_fillers)] = DEFAULT_RANDOM_FILLERS
    neighbour_models: Annotated[tuple[str, ...], BeforeValidator(_models)] = ()
