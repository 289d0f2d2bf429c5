"""The Label Studio a benchmark runs against, started and stopped in one place.

Three choices, the same for every benchmark that talks to Label Studio:

- by default, the embedded server on SQLite in the benchmark's temporary folder (what a new user
  gets from ``hume-sync up``);
- ``--postgres``: the same server on a private PostgreSQL cluster, configured with the variables
  docker-compose.yml gives its label-studio service (``tests/_postgres.py`` makes the cluster, as
  the ``postgres`` tests do); needs Debian's ``postgresql``;
- ``LABEL_STUDIO_URL`` + ``LABEL_STUDIO_API_KEY`` set: that server, left running (a server
  measured elsewhere; its data folder is known only when it is this machine's embedded one).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hume_sync.labelstudio import server


@dataclass(frozen=True)
class Target:
    url: str
    token: str
    #: the server's data folder (hume reads JSON exports from it); None for a server elsewhere
    data_dir: Path | None
    #: in words, for the benchmark's output: which database Label Studio ran on
    database: str


def cpu_seconds(target: Target) -> Callable[[], float] | None:
    """The CPU seconds the server's process has used so far (user + system), read from
    ``/proc``; None for a server this benchmark did not start (or without ``/proc``).

    Why: on a shared machine a wall-clock ratio moves with everyone else's load; the CPU each
    side spends does not, so a benchmark prints both. The database's own processes (PostgreSQL
    with ``--postgres``) are not counted: the same for both sides of a comparison.
    """
    if target.data_dir is None:
        return None
    try:
        pid = int(json.loads((target.data_dir / server.PID_FILE).read_text())["pid"])
        stat = Path(f"/proc/{pid}/stat")
        stat.read_text()
    except (OSError, ValueError, KeyError):
        return None
    tick = os.sysconf("SC_CLK_TCK")

    def read() -> float:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick  # utime + stime

    return read


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="run Label Studio on a private PostgreSQL cluster (as docker-compose.yml does)",
    )


@contextlib.contextmanager
def label_studio(
    root: Path, *, postgres: bool = False, from_env: bool = True, timeout: float = 600
) -> Iterator[Target]:
    """A running Label Studio for the benchmark (see the module docstring); stopped on exit,
    with its PostgreSQL cluster, when the benchmark started it."""
    if from_env and os.environ.get("LABEL_STUDIO_URL") and not postgres:
        url, token = server.connection_from_env_or_embedded()
        yield Target(url, token, server.embedded_data_dir(url), f"the server at {url}")
        return
    with contextlib.ExitStack() as stack:
        env = None
        database = "SQLite (embedded)"
        if postgres:
            from tests._postgres import start_cluster

            cluster = start_cluster(server.free_port())
            stack.callback(cluster.stop)
            env = cluster.database("bench").label_studio_env()
            database = "PostgreSQL (private cluster, docker-compose.yml's settings)"
        data_dir = root / "ls"
        info = server.start(data_dir, port=server.free_port(), timeout=timeout, extra_env=env)
        stack.callback(server.stop, data_dir)
        yield Target(info.url, info.token, info.data_dir, database)
