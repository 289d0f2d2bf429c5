"""Peak memory of `hume-sync pull` against the CLI's idle footprint, at growing study sizes.

For each size N (annotations; N/2 classification tasks with 2 annotations each, in one project
on the embedded Label Studio, built as benchmarks/pull.py builds it) a fresh copy of the study
is pulled by the real CLI in a child process (``hume_sync.cli pull``), and its peak resident
memory (the child's own VmHWM, read as it exits) is compared with two baselines:

- *idle*: a child that imports what pull imports (the CLI, the pull step, the Label Studio
  client and SDK, ijson) and exits;
- *empty pull*: the same CLI pulling a study whose project has no annotation yet.

Prints a table (peak, peak − idle, wall time), the growth per annotation between the two
largest sizes, and the projection to 1,000,000 annotations. Goal: peak − idle ≤ 50 MiB at 50k,
and no growth with N beyond noise.

    .venv/bin/python benchmarks/pull_memory.py [--sizes 2000,10000,50000] [--repeat 2] [--postgres]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import _server  # noqa: E402
from pull import import_annotated, make_study  # noqa: E402

from hume_sync.labelstudio import servers as ls_servers  # noqa: E402
from hume_sync.labelstudio.client import LabelStudioClient  # noqa: E402

IDLE_IMPORTS = (
    "import hume_sync.cli, hume_sync.workflow.pull, hume_sync.labelstudio.servers, "
    "hume_sync.labelstudio.client, label_studio_sdk, ijson"
)
MIB = 1024 * 1024


# The child reports its own high-water mark (VmHWM) as it exits. Not ru_maxrss: Linux carries
# the forking parent's peak over into the child's ru_maxrss across exec, and this parent grows
# with the studies it builds.
REPORT_HWM = """
import atexit, os, runpy, sys

def _report():
    with open("/proc/self/status") as status:
        hwm = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ["HUME_BENCH_HWM"], "w") as out:
        out.write(hwm)

atexit.register(_report)
if sys.argv[1:2] == ["--idle"]:
    exec(sys.argv[2])
else:
    sys.argv = ["hume-sync", *sys.argv[1:]]
    runpy.run_module("hume_sync.cli", run_name="__main__", alter_sys=True)
"""


def peak_of(args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(peak RSS in MiB, wall seconds, stdout) of one child: the CLI with ``args``, or
    ``["--idle", CODE]``."""
    with tempfile.TemporaryDirectory() as tmp:
        hwm = Path(tmp) / "hwm"
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", REPORT_HWM, *args],
            env={**env, "HUME_BENCH_HWM": str(hwm)},
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"{args} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        return int(hwm.read_text()) / 1024, wall, proc.stdout  # VmHWM is in kB


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,10000,50000")
    ap.add_argument("--repeat", type=int, default=2)
    _server.add_arguments(ap)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with (
        tempfile.TemporaryDirectory() as tmp,
        _server.label_studio(Path(tmp), postgres=args.postgres, from_env=False) as info,
    ):
        root = Path(tmp)
        print(f"Label Studio on {info.database}", flush=True)
        os.environ["HUME_HOME"] = str(root / "home")
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "HUME_HOME": str(root / "home"),
            "HF_HUB_OFFLINE": "1",
        }
        env.pop("LABEL_STUDIO_URL", None)
        env.pop("LABEL_STUDIO_API_KEY", None)
        ls_servers.remember(info.url, data_dir=info.data_dir)
        client = LabelStudioClient(info.url, info.token, timeout=900, data_dir=info.data_dir)
        idle = statistics.median(peak_of(["--idle", IDLE_IMPORTS], env)[0] for _ in range(3))
        rows = []
        for n in [0, *sizes]:
            base = root / f"n{n}"
            base.mkdir()
            t0 = time.perf_counter()
            study = make_study(base, max(n // 2, 1))
            project = import_annotated(client, study, annotations_per_task=2 if n else 0)
            built = time.perf_counter() - t0
            peaks, walls = [], []
            for k in range(args.repeat):
                copy = base / f"pull-{k}"
                shutil.copytree(study, copy)
                peak, wall, out = peak_of(["pull", str(copy)], env)
                assert f"{n} annotation(s) added" in out, out
                peaks.append(peak)
                walls.append(wall)
                shutil.rmtree(copy)
            client.delete_project(project)
            rows.append((n, statistics.median(peaks), statistics.median(walls), built))
            print(
                f"  built {n} annotations in {built:.0f} s; pull peaks {peaks} MiB, "
                f"walls {[round(w, 1) for w in walls]} s",
                flush=True,
            )
    empty = rows[0][1]
    print(f"\nCLI idle footprint (imports only, median of 3): {idle:.0f} MiB")
    print(f"pull of an empty project: {empty:.0f} MiB (+{empty - idle:.0f} MiB)")
    print(f"{'annotations':>11} {'peak MiB':>9} {'- idle':>7} {'- empty':>8} {'pull s':>7}")
    for n, peak, wall, _ in rows[1:]:
        print(f"{n:>11} {peak:>9.0f} {peak - idle:>+7.0f} {peak - empty:>+8.0f} {wall:>7.1f}")
    if len(rows) >= 3:
        (n1, p1, _, _), (n2, p2, _, _) = rows[-2], rows[-1]
        slope = (p2 - p1) * MIB / (n2 - n1)  # bytes per annotation
        at_1m = p2 + slope * (1_000_000 - n2) / MIB
        print(
            f"growth between {n1} and {n2}: {slope / 1024:.3f} KiB per annotation; "
            f"projected peak at 1,000,000: {at_1m:.0f} MiB ({at_1m - idle:+.0f} MiB vs idle)"
        )
    n, peak = rows[-1][0], rows[-1][1]
    verdict = "meets" if peak - idle <= 50 else "misses"
    print(f"at {n}: peak - idle = {peak - idle:+.0f} MiB ({verdict} the goal of +50 MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
