"""Benchmark a cold `hume-sync annotators add` against restarting an annotator's stopped server.

Issue 22's goal: adding an annotator (a new embedded Label Studio, its admin, the annotator's
account) within 1.5x of restarting an existing annotator's stopped server. Alternating, in one
``$HUME_HOME`` with one small study:

- cold: ``hume-sync annotators add STUDY <new email> --languages eng``, as a subprocess (a new
  data folder: the server's database comes from the prepared template, or is migrated from
  scratch with ``--no-template``);
- restart: the same CLI entry (`servers.start_embedded`, what `hume-sync up` runs per annotator)
  on the data folder of an annotator added before, whose server was stopped, as a subprocess.

After each cold add the idle server's memory is read: the RSS (and PSS, which counts a page
shared between processes once) summed over the server's process tree, a few seconds after it
answered. The first add of the run is a warm-up (it builds the template when none is cached for
this Label Studio; its time is printed apart). Prints medians and the ratio cold / restart.

    .venv/bin/python benchmarks/annotator_start.py [--repeat 3] [--no-template] [--idle 5]

Memory, tried (label-studio 1.23.2 serves with Django's ``runserver --noreload``: one process,
a thread per request, no worker or preloading setting to turn down): the prepared database
itself lowers it (the server no longer runs the migrations in its own process: 418 -> 344 MiB
RSS); ``MALLOC_ARENA_MAX=2`` in the server's environment changed nothing (343 MiB), so it is
not set.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hume_sync.labelstudio import server  # noqa: E402
from hume_sync.labelstudio import servers as ls_servers  # noqa: E402
from tests._studies import real_data_spec, write_spec  # noqa: E402

_CLI = "import sys; from hume_sync.cli import main; sys.exit(main())"
_RESTART = (
    "import sys; from pathlib import Path; from hume_sync.labelstudio import servers; "
    "servers.start_embedded(Path(sys.argv[1]))"
)


def _env(home: Path, template: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LABEL_STUDIO_")}
    env["HUME_HOME"] = str(home)
    env["PYTHONPATH"] = str(ROOT)
    if not template:
        env["HUME_LS_TEMPLATE"] = "off"
    return env


def _timed(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{argv[3:5]} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return dt


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants, from /proc (no psutil in the environment)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [pid], [pid]
    while frontier:
        frontier = [p for p, pp in parents.items() if pp in frontier]
        found += frontier
    return found


def _memory_mib(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of the process tree of `pid`, in MiB."""
    rss = pss = 0
    for p in _tree(pid):
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                key, _, value = line.partition(":")
                if key in ("Rss", "Pss"):
                    kib = int(value.split()[0])
                    rss, pss = (rss + kib, pss) if key == "Rss" else (rss, pss + kib)
        except OSError:
            continue
    return rss / 1024, pss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="measured rounds (default: 3)")
    parser.add_argument(
        "--no-template",
        action="store_true",
        help="migrate every new server from scratch (HUME_LS_TEMPLATE=off: the old behaviour)",
    )
    parser.add_argument(
        "--idle", type=float, default=5.0, help="seconds idle before memory is read (default 5)"
    )
    args = parser.parse_args()
    template = not args.no_template

    with tempfile.TemporaryDirectory(prefix="hume-bench-start-") as tmp:
        root = Path(tmp)
        home = root / "home"
        env = _env(home, template)
        study = root / "study"
        spec = real_data_spec("bench", 1, cls_eng=3, cls_arb=2, sts=2, rerank=2)
        init = [sys.executable, "-c", _CLI, "init", str(study), "--spec"]
        _timed([*init, str(write_spec(study, spec))], env)

        stopped: list[Path] = []

        def cold(n: int) -> tuple[float, float, float]:
            email = f"annotator-{n}@bench.test"
            add = [sys.executable, "-c", _CLI, "annotators", "add", str(study), email]
            dt = _timed([*add, "--languages", "eng"], env)
            data_dir = ls_servers.annotator_home(email, home / "annotators") / "label-studio"
            time.sleep(args.idle)
            pid = server.status(data_dir).pid
            assert pid is not None, f"no server runs for {email}"
            rss, pss = _memory_mib(pid)
            server.stop(data_dir)
            stopped.append(data_dir)
            return dt, rss, pss

        def restart() -> float:
            data_dir = stopped.pop(0)
            dt = _timed([sys.executable, "-c", _RESTART, str(data_dir)], env)
            server.stop(data_dir)
            stopped.append(data_dir)
            return dt

        try:
            first, _, _ = cold(0)
            colds: list[float] = []
            restarts: list[float] = []
            rsss: list[float] = []
            psss: list[float] = []
            for i in range(args.repeat):
                order = ("cold", "restart") if i % 2 == 0 else ("restart", "cold")
                for kind in order:
                    if kind == "cold":
                        dt, rss, pss = cold(i + 1)
                        colds.append(dt)
                        rsss.append(rss)
                        psss.append(pss)
                    else:
                        restarts.append(restart())
                print(
                    f"round {i + 1}: cold add {colds[-1]:.1f} s, restart {restarts[-1]:.1f} s, "
                    f"idle RSS {rsss[-1]:.0f} MiB (PSS {pss:.0f})",
                    flush=True,
                )
        finally:
            for d in stopped:
                server.stop(d)

    cold_s, restart_s = statistics.median(colds), statistics.median(restarts)
    mode = "prepared template" if template else "migrated from scratch (--no-template)"
    print(f"\nnew servers: {mode}; first add of the run (warm-up): {first:.1f} s")
    print(f"cold 'annotators add': median {cold_s:.1f} s of {[round(x, 1) for x in colds]}")
    shown = [round(x, 1) for x in restarts]
    print(f"restart of a stopped server: median {restart_s:.1f} s of {shown}")
    print(f"ratio cold / restart: {cold_s / restart_s:.2f} (goal <= 1.5)")
    print(
        f"idle memory per server: RSS median {statistics.median(rsss):.0f} MiB, "
        f"PSS median {statistics.median(psss):.0f} MiB (process tree, {args.idle:.0f} s idle)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
