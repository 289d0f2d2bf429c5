"""Common tests over every ``hume-sync`` command (issue 37): each is one module of
``hume_sync/commands``, listed once in :data:`hume_sync.commands.COMMANDS`, declaring what the
dispatcher needs; ``cli.py`` stays a small dispatcher and no command module grows into a floor.

The import rules (no command module imports another; commands above ``hume_sync/workflow``) are
in ``tests/test_import_graph.py``; start-up lightness in ``tests/test_cli_startup.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from hume_sync.cli import build_parser
from hume_sync.commands import COMMANDS
from tests._paths import REPO_ROOT

COMMANDS_DIR = REPO_ROOT / "hume_sync" / "commands"
MAX_CLI_LINES = 200
MAX_COMMAND_LINES = 400


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_command_module_is_listed_once_under_its_name() -> None:
    files = sorted(p.stem for p in COMMANDS_DIR.glob("*.py") if p.stem != "__init__")
    names = [c.NAME for c in COMMANDS]
    modules = [c.__name__.rpartition(".")[2] for c in COMMANDS]
    assert len(names) == len(set(names))
    assert names == modules  # a command's module is named after it
    assert sorted(modules) == files


def test_the_parser_lists_the_commands_in_order() -> None:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == [c.NAME for c in COMMANDS]
    assert [c.NAME for c in COMMANDS][:3] == ["leaderboard", "up", "down"]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.NAME)
def test_each_command_declares_what_the_dispatcher_needs(command) -> None:
    assert isinstance(command.NAME, str) and command.NAME
    assert isinstance(command.HELP, str) and command.HELP
    assert command.DESCRIPTION is None or isinstance(command.DESCRIPTION, str)
    assert isinstance(command.WRITES_STUDY, bool)
    assert isinstance(command.CREATES_STUDY, bool)
    assert not command.CREATES_STUDY or command.WRITES_STUDY
    assert callable(command.add_arguments) and callable(command.run)


#: (argv, the dispatcher takes the lock) for every command and action; init and demo make the
#: study folder and lock it themselves. This was LOCKED_COMMANDS plus `_run`'s special cases.
DISPATCH = [
    (["leaderboard", "r"], False),
    (["up"], False),
    (["down"], False),
    (["init", "s"], False),
    (["manager", "url"], False),
    (["setup", "s"], True),
    (["status", "s"], False),
    (["pull", "s"], True),
    (["dashboard", "s"], False),
    (["annotators", "add", "s", "e@x.org"], True),
    (["annotators", "list", "s"], False),
    (["annotators", "remove", "s", "e@x.org"], True),
    (["deploy", "compose", "s", "--out", "o"], False),
    (["predict", "s"], True),
    (["close", "s"], True),
    (["reveal", "s"], True),
    (["export", "s", "--out", "o"], False),
    (["verify", "s"], False),
    (["types"], False),
    (["demo"], False),
]


def test_the_table_covers_every_command() -> None:
    assert list(dict.fromkeys(argv[0] for argv, _ in DISPATCH)) == [c.NAME for c in COMMANDS]


@pytest.mark.parametrize(("argv", "locked"), DISPATCH, ids=[" ".join(a[:2]) for a, _ in DISPATCH])
def test_the_dispatcher_locks_the_commands_that_write(argv: list[str], locked: bool) -> None:
    args = build_parser().parse_args(argv)
    assert args.writes_study is locked
    if locked:
        assert args.study_dir == "s"  # the lock is taken on the study named


def test_init_and_demo_lock_the_study_they_create() -> None:
    creating = sorted(c.NAME for c in COMMANDS if c.CREATES_STUDY)
    assert creating == ["demo", "init"]
    for name in creating:
        text = (COMMANDS_DIR / f"{name}.py").read_text(encoding="utf-8")
        assert "locked(" in text and "create=True" in text


def test_cli_is_a_small_dispatcher() -> None:
    assert _lines(REPO_ROOT / "hume_sync" / "cli.py") <= MAX_CLI_LINES


def test_every_command_module_is_small() -> None:
    sizes = {p.name: _lines(p) for p in COMMANDS_DIR.glob("*.py")}
    assert len(sizes) == len(COMMANDS) + 1  # the modules and the list
    assert {name: n for name, n in sizes.items() if n > MAX_COMMAND_LINES} == {}
