"""What the command modules share besides the steps themselves: opening the study named on the
command line, its lock, a client per annotator server, JSON output and the mirror's report.

Here rather than in one command so that no command module imports another
(``tests/test_import_graph.py``); every heavy import waits inside a function, because the
command modules reach this module on every run (``hume-sync --help`` excepted).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from hume_sync.errors import CliError, HumeError

if TYPE_CHECKING:
    from hume_sync.labelstudio.servers import Clients
    from hume_sync.store import Store


def require_study(study_dir: str) -> Path:
    """The study's store file; a folder that is not a study is a clear error."""
    from hume_sync.store import STORE_NAME

    path = Path(study_dir) / STORE_NAME
    if not path.is_file():
        raise CliError(f"{study_dir}: not a study (no {STORE_NAME}); run 'hume-sync init' first")
    return path


def study_store(study_dir: str) -> Store:
    """Open an existing study's store."""
    from hume_sync.store import Store

    return Store.open(require_study(study_dir))


def clients() -> Clients:
    """A client per annotator server (each annotator has a Label Studio of their own)."""
    from hume_sync.labelstudio.servers import Clients

    return Clients()


@contextlib.contextmanager
def locked(study: Path, command: str, *, create: bool = False) -> Iterator[None]:
    """The study's lock (:mod:`hume_sync.study_lock`) for the block; with ``create`` the study
    folder is made (0700) first. A folder that does not exist is not a study: the command itself
    says so, unlocked."""
    from hume_sync.file_modes import private_dir
    from hume_sync.study_lock import study_lock

    if create:
        try:
            private_dir(study)
        except OSError as exc:
            raise CliError(f"{study}: cannot create the study folder ({exc.strerror})") from None
    elif not study.is_dir():
        yield
        return
    with study_lock(study, command):
        yield


def print_json(obj: object) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


def mirror(store: Store, *, full: bool = False) -> None:
    """Mirror the study into the manager's Label Studio, where one was set up (what changed,
    or every subset whole with ``full``). The command's own work is done and kept when the
    mirror fails: a warning, and the next run mirrors."""
    from hume_sync.workflow.mirror import mirror_if_set_up

    try:
        summary = mirror_if_set_up(store, full=full)
    except HumeError as exc:
        print(f"warning: the manager's Label Studio was not updated: {exc}", file=sys.stderr)
        return
    if summary is not None:
        print(summary)
        for line in summary.backend_failures:
            print(f"warning: ML backend not connected: {line}", file=sys.stderr)
