"""Progress display for long steps, on stderr so that stdout stays machine-readable."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], *, desc: str, total: int | None = None) -> Iterator[T]:
    """Iterate with a tqdm bar on stderr (plain, when stderr is not a terminal)."""
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with the project's dependencies
        yield from items
        return
    yield from tqdm(
        items,
        desc=desc,
        total=total,
        file=sys.stderr,
        leave=False,
        disable=None,  # off when stderr is not a TTY (CI logs, captured output)
        dynamic_ncols=True,
    )


def say(message: str) -> None:
    """A one-line status message for the user, on stderr."""
    print(message, file=sys.stderr, flush=True)
