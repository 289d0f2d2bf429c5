"""Writing many output files under one folder: whole files only, never outside the folder.

Why: an export writes some thirty files (the MTEB result tree, the reports), each of which must
appear whole or not at all (a reader, or a run interrupted half-way, never sees half a file)
and stay inside its output folder (:mod:`scoring.safe_paths`). Done file by file with
:func:`tempfile.mkstemp` and :func:`~scoring.safe_paths.confined`, the writing cost more than
encoding the files: ``confined`` resolves the whole path (a ``lstat`` per component) for every
file, and ``mkstemp`` and a text-mode file object add several calls more (issue 38).

- :func:`write_text_atomic` writes a temporary file beside the target, created exclusively and
  owner-only (as ``mkstemp`` does: ``O_EXCL``, ``O_NOFOLLOW``, mode 0600), with one ``write``
  of the encoded text, then renames it over the target.
- :class:`OutputTree` checks each folder once: it is resolved with ``confined`` (a link inside
  the root that leads outside is refused, before anything is made), then made. In a folder it
  made itself nothing else can be a link, so a file there needs only its name checked; in a
  folder that was already there every file is still resolved by ``confined``, as before.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from scoring.safe_paths import check_component, confined

__all__ = ["OutputTree", "write_text_atomic"]

#: How the temporary file is opened: exclusively (never an existing file, never through a link).
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL
_TEMP_FLAGS |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all.

    The text goes to ``.<name>.<random>.tmp`` in the same folder (mode 0600, as
    :func:`tempfile.mkstemp` makes it), which then replaces ``path`` in one rename; on any
    error, an interrupt included, the temporary file is removed and ``path`` is unchanged.

    Args:
        path: the file to write; its folder must exist.
        text: the file's text.

    Raises:
        OSError: the file could not be written (the error of the call that failed).
        UnicodeEncodeError: a text that is not valid Unicode (a lone surrogate).
    """
    data = text.encode("utf-8")
    folder, name = os.path.split(os.fspath(path))
    while True:
        tmp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            fd = os.open(tmp, _TEMP_FLAGS, 0o600)
        except FileExistsError:  # pragma: no cover - 48 random bits taken: draw again
            continue
        break
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class OutputTree:
    """Paths for files under ``root``, each folder checked (and made) once.

    Args:
        root: the folder every file must stay in.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        """A tree that has checked no folder yet."""
        self.root = Path(root)
        #: folder parts -> (the folder, whether this tree made it)
        self._folders: dict[tuple[str, ...], tuple[Path, bool]] = {}

    def folder(self, *parts: str) -> tuple[Path, bool]:
        """``root/part/...``, made if missing, and whether it was made now.

        :func:`~scoring.safe_paths.confined` checks it first; a folder made now holds nothing
        that could lead elsewhere.

        Args:
            *parts: the folder's path components under ``root`` (none: ``root`` itself).

        Returns:
            The folder, and True where this call made it.

        Raises:
            UnsafePathError: a part is not a safe component, or the folder leaves ``root``.
            FileExistsError: a file that is not a folder has its name.
        """
        known = self._folders.get(parts)
        if known is None:
            path = confined(self.root, *parts)
            try:
                path.mkdir(parents=True)
                made = True
            except FileExistsError:
                if not path.is_dir():  # a file of that name: refused, as mkdir(exist_ok=True)
                    raise
                made = False
            known = self._folders[parts] = (path, made)
        return known

    def file(self, *parts: str) -> Path:
        """The path of the file ``root/part/.../name``, its folder made.

        As safe as :func:`~scoring.safe_paths.confined`: in a folder made by this tree only the
        name is checked, in any other the whole path is resolved.

        Args:
            *parts: the file's path components under ``root``, its name last.

        Returns:
            ``root/part/.../name`` (not resolved).

        Raises:
            UnsafePathError: a part is not a safe component, or the path leaves ``root``.
        """
        *folders, name = parts
        folder, made = self.folder(*folders)
        if made:
            return folder / check_component(name, "path component")
        return confined(self.root, *parts)
