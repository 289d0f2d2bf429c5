"""Names that become path components, and writers that stay inside their folder.

Why: study, task, subset, model and annotator names end up as folder and file names under an
output folder (MTEB result files, reports, logs). A name like ``../../x`` or ``a/b`` would make a
writer leave that folder. Two guards, both needed:

- :func:`check_component` refuses such a name where it enters (the study spec, a model name), with
  a message that says what is wrong;
- :func:`confined` resolves the final path and refuses it unless it lies inside the folder, so
  that a writer is safe whatever its caller checked (symlinks included).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from scoring.errors import InvalidInputError

__all__ = [
    "MAX_COMPONENT_CHARS",
    "UnsafePathError",
    "check_component",
    "component_problem",
    "confined",
]

#: Longest name accepted as one path component (file systems allow 255 bytes; leave room for
#: the suffixes and prefixes the writers add).
MAX_COMPONENT_CHARS = 120


class UnsafePathError(InvalidInputError):
    """A name that cannot be a path component, or a path that would leave its folder."""


def component_problem(name: str) -> str | None:
    r"""Why ``name`` cannot be one path component (None when it can).

    Refused: empty, ``.`` or ``..`` or any name starting with ``.`` (hidden, and the parent),
    ``/`` or ``\`` (a path, not a name), control characters (NUL, newlines, ...), leading or
    trailing spaces, and names longer than :data:`MAX_COMPONENT_CHARS` characters.

    Args:
        name: a candidate file or folder name.

    Returns:
        The reason, or None for a safe name.
    """
    if not isinstance(name, str) or not name:
        return "it is empty"
    if name.startswith("."):
        return "it starts with '.'"
    if "/" in name or "\\" in name:
        return "it contains '/' or '\\'"
    # a printable name has none of these (str.isprintable refuses every "Other" and
    # "Separator" but the space): one C call instead of a category look-up per character
    if not name.isprintable() and any(
        unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in name
    ):
        return "it contains control characters"
    if name != name.strip():
        return "it starts or ends with a space"
    if len(name) > MAX_COMPONENT_CHARS:
        return f"it is longer than {MAX_COMPONENT_CHARS} characters"
    return None


def check_component(name: str, what: str) -> str:
    """``name`` if it is safe as one path component.

    Args:
        name: a candidate file or folder name.
        what: what the name is, for the message ("revision", "task name").

    Returns:
        ``name`` unchanged.

    Raises:
        UnsafePathError: the name is not safe; the message says why.
    """
    problem = component_problem(name)
    if problem is not None:
        raise UnsafePathError(f"{what} {name!r} cannot be used as a file or folder name: {problem}")
    return name


def confined(root: str | os.PathLike[str], *parts: str) -> Path:
    """``root/part/...`` after checking every part and that the resolved path stays in ``root``.

    Symlinks are resolved on both sides, so a link inside ``root`` that points outside is refused
    as well.

    Args:
        root: the folder the path must stay in.
        *parts: the path components under ``root``.

    Returns:
        ``root/part/...`` (not resolved).

    Raises:
        UnsafePathError: a part is not a safe component, or the path leaves ``root``.
    """
    base = Path(root)
    for part in parts:
        check_component(part, "path component")
    path = base.joinpath(*parts)
    real_root = base.resolve()
    real = path.resolve()
    if real != real_root and real_root not in real.parents:
        raise UnsafePathError(f"{path} would be written outside {base}")
    return path
