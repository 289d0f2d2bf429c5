"""Owner-only folders and files for what holds gold or sealed answers.

The study store keeps gold labels and sealed model/LLM answers; the embedding and reply caches,
the LLM call logs and the webhook event log hold answers and texts as well. Like the Label Studio
credentials, they are for the study's owner only: folders 0700, files 0600. Existing folders and
files are tightened when hume opens them (never widened), and only when this user owns them
(changing someone else's modes would fail, and is not ours to do).

SQLite creates its journal and WAL files with the mode of the database file, so a database
created here as an empty 0600 file keeps its side files private too.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def _tighten(path: Path, mode: int) -> None:
    """Remove group/other permissions from ``path`` if this user owns it (best effort)."""
    with contextlib.suppress(OSError):
        st = path.stat()
        if st.st_uid == os.geteuid() and st.st_mode & 0o077:
            os.chmod(path, st.st_mode & mode & 0o777)


def private_dir(
    path: str | os.PathLike[str], *, up_to: str | os.PathLike[str] | None = None
) -> Path:
    """Create ``path`` and its missing parents as 0700, or tighten ``path`` if it exists.

    Parents that exist already are left as they are (they may be shared folders), except those
    from ``path`` up to and including ``up_to`` when ``path`` lies inside it: folders that are
    hume's own, which an earlier version may have made 0755.
    """
    path = Path(path)
    missing = []
    here = path
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    for folder in reversed(missing):
        folder.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
    _tighten(path, PRIVATE_DIR_MODE)
    if up_to is not None:
        top, inner = Path(up_to).resolve(), path.resolve()
        if top == inner or top in inner.parents:
            for folder in inner.parents:
                if top != folder and top not in folder.parents:
                    break
                _tighten(folder, PRIVATE_DIR_MODE)
    return path


def private_file(path: str | os.PathLike[str], *, create: bool = False) -> Path:
    """Tighten ``path`` to 0600; with ``create``, make it (empty, 0600) if it does not exist."""
    path = Path(path)
    if create and not path.exists():
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))
    _tighten(path, PRIVATE_FILE_MODE)
    return path


def open_private_append(path: str | os.PathLike[str]) -> IO[str]:
    """Open a text file for appending, created 0600 (an existing one is tightened)."""
    path = Path(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE_MODE)
    try:
        _tighten(path, PRIVATE_FILE_MODE)
        return os.fdopen(fd, "a", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise
