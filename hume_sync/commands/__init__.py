"""The ``hume-sync`` commands: one module each, listed once, in the order ``--help`` shows them.

A command module holds all of its command (:class:`Command`): its name and help, its arguments,
its run function with what it prints, and whether it writes the study. ``hume_sync.cli`` builds
the parser from :data:`COMMANDS` and runs the one asked for; a new command is a new module and
a line here. Command modules import nothing heavy at module level (this list is read at every
start-up, ``--help`` included) and never another command module: what several commands do
(setup, pull, the mirror, status, the lock...) lives below them, in :mod:`hume_sync.workflow`.
Both rules are tested (``tests/test_commands.py``, ``tests/test_import_graph.py``).
"""

from __future__ import annotations

import argparse
from typing import Protocol

from hume_sync.commands import (
    annotators,
    close,
    dashboard,
    demo,
    deploy,
    down,
    export,
    init,
    leaderboard,
    manager,
    predict,
    pull,
    reveal,
    setup,
    status,
    types,
    up,
    verify,
)


class Command(Protocol):
    """What each command module defines."""

    #: The word after ``hume-sync``.
    NAME: str
    #: Its line in ``hume-sync --help``.
    HELP: str
    #: The text of ``hume-sync NAME --help`` (None: none).
    DESCRIPTION: str | None
    #: The run writes the study: it holds the study's lock (:mod:`hume_sync.study_lock`) for its
    #: whole run, taken by the dispatcher on ``args.study_dir``. An action of the command may
    #: say otherwise with ``set_defaults(writes_study=...)`` (``annotators list`` only reads).
    WRITES_STUDY: bool
    #: The run makes the study folder: it takes the lock itself once it knows what to create
    #: (:func:`hume_sync.workflow.cli_support.locked` with ``create=True``).
    CREATES_STUDY: bool

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the command's arguments (and actions) to its own parser."""

    def run(self, args: argparse.Namespace) -> int:
        """Do the command and say what it did; the exit status."""


COMMANDS: tuple[Command, ...] = (
    leaderboard,
    up,
    down,
    init,
    manager,
    setup,
    status,
    pull,
    dashboard,
    annotators,
    deploy,
    predict,
    close,
    reveal,
    export,
    verify,
    types,
    demo,
)
