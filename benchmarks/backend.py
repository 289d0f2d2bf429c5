"""Benchmark of the ML backend's ``/predict`` for one task, on a real gunicorn server.

Builds two closed studies from the shared real data (``benchmarks/export.py``'s HUME-size
study: 26 subsets, 724 items; and 10 copies of it: 260 subsets, 7,240 items), each with two
stored model versions per instance (an embedding model and an LLM annotator, both answering
gold) and two annotators whose Label Studio task ids are recorded. For each study it starts
``hume-ml-backend`` (gunicorn, ``--workers`` / ``--threads`` as given) from this checkout, then
for each concurrency (1, 8, 32 client threads, keep-alive connections) posts ``/predict`` with
one task, as Label Studio does when an annotator opens a task, for ``--seconds``, alternating
between the two servers for ``--rounds`` rounds, and prints the medians of requests per second
and of the median latency. First it times ``StudySource.predict`` for one task in-process (no
HTTP, no scheduling noise): the cost of the request itself. Every answer is checked: one list
with the two predictions. The last lines compare the two studies: per-request cost that does not
grow with the study gives ratios near 1::

    PYTHONPATH=. .venv/bin/python benchmarks/backend.py [--seconds 5] [--workers 2]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import yaml  # noqa: E402
from export import hume_size_spec  # noqa: E402

from hume_sync.store import PredictionRecord, Store, gold  # noqa: E402
from hume_sync.study.spec import load_spec  # noqa: E402
from hume_sync.workflow.init import init_from_spec  # noqa: E402
from tests.task_type_examples import examples  # noqa: E402

VERSIONS = ("emb:bench/oracle", "llm:bench-oracle")
BACKEND_MAIN = (
    "import sys; from hume_sync.cli import backend_main; sys.exit(backend_main(sys.argv[1:]))"
)


def make_study(root: Path, copies: int) -> tuple[Path, list[dict[str, Any]], int]:
    """A closed study with predictions; the Label Studio tasks to ask about; its item count."""
    study = root / f"study-x{copies}"
    study.mkdir()
    (study / "study.yaml").write_text(yaml.safe_dump(hume_size_spec(copies=copies)), "utf-8")
    init_from_spec(study, load_spec(study / "study.yaml"))
    tasks: list[dict[str, Any]] = []
    items = 0
    with Store.open(study) as store:
        subsets = store.subsets()
        langs = sorted({s.language.split("-")[0] for s in subsets})
        slots = [
            store.add_annotator(f"a{n}@x.org", langs, f"http://127.0.0.1:{7000 + n}", 2).slot
            for n in (1, 2)
        ]
        task_id = 1
        records = []
        for n, sub in enumerate(subsets):
            golds = gold(store, sub.key)
            simulated = examples(sub.task_type)  # model answers shaped as tests/ shape them
            insts = store.instances(sub.key)
            for slot in slots:
                ids = {}
                for inst in insts:
                    ids[inst.hume_id] = task_id
                    tasks.append({"id": task_id, "data": {"hume_ref": inst.hume_ref}})
                    task_id += 1
                store.set_slot_project(sub.key, slot, 1000 + 10 * n + slot, f"hume:{n}:{slot}")
                store.set_slot_tasks(sub.key, slot, ids)
            for inst in insts:
                g = golds[inst.hume_id]
                items += simulated.items_in(g)
                for version in VERSIONS:
                    answer = simulated.stored_prediction(g, llm=version.startswith("llm:"))
                    records.append(PredictionRecord(inst.hume_id, version, answer, 0.5))
        store.add_predictions(records)
        store.set_meta({"closed_at": "2025-01-01T00:00:00Z"})
    return study, tasks, items


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(study: Path, workers: int, threads: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("ML_BACKEND_USER", None)
    env.pop("ML_BACKEND_PASSWORD", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", BACKEND_MAIN, "--study-dir", str(study),
         "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return proc, port
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("hume-ml-backend did not start")
        time.sleep(0.3)


def stop_server(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=60)


def load(port: int, tasks: list[dict[str, Any]], clients: int, seconds: float) -> dict[str, float]:
    """``clients`` threads posting one-task /predict requests for ``seconds``."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []
    failed: list[str] = []  # no answer in time (the client waits 60 s): counted, not fatal
    start = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def client(k: int) -> None:
        rng = random.Random(k)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        start.wait()
        while time.perf_counter() < stop_at[0]:
            task = rng.choice(tasks)
            body = json.dumps({"tasks": [task], "project": "1001.1700000000"})
            t0 = time.perf_counter()
            try:
                conn.request("POST", "/predict", body, {"Content-Type": "application/json"})
                data = json.loads(conn.getresponse().read())
            except (OSError, http.client.HTTPException) as exc:
                failed.append(repr(exc))
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                continue
            latencies[k].append(time.perf_counter() - t0)
            got = data.get("results")
            if not (isinstance(got, list) and len(got) == 1 and len(got[0]) == len(VERSIONS)):
                errors.append(f"unexpected answer for task {task['id']}: {str(data)[:200]}")
        conn.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    stop_at[0] = time.perf_counter() + seconds
    t0 = time.perf_counter()
    start.wait()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    done = [x for per in latencies for x in per]
    if errors:
        raise SystemExit(f"{len(errors)} bad answers, first: {errors[0]}")
    p50 = statistics.median(done) * 1000 if done else float("nan")
    return {"rps": len(done) / elapsed, "p50_ms": p50, "n": len(done), "failed": len(failed)}


def source_cost(study: Path, tasks: list[dict[str, Any]], n: int = 2000) -> tuple[float, float]:
    """Median seconds of ``StudySource.predict`` for one task, in this process (no HTTP): on a
    task's first request (its Label Studio predictions are made) and on a later one."""
    from hume_sync.workflow.backend import StudySource

    source = StudySource(study)
    rng = random.Random(0)
    one_each = list({t["data"]["hume_ref"]: t for t in tasks}.values())  # one task per instance
    picked = rng.sample(one_each, min(n, len(one_each)))
    source.predict(picked[:1], None)  # the first call reads the study
    medians = []
    for _ in range(2):  # first touch of each task, then again
        times = []
        for task in picked[1:]:
            t0 = time.perf_counter()
            source.predict([task], None)
            times.append(time.perf_counter() - t0)
            if len(times) >= 5 and sum(times) > 10:  # a slow source: enough samples
                break
        medians.append(statistics.median(times))
    return medians[0], medians[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (medians)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--concurrency", default="1,8,32")
    args = ap.parse_args(argv)
    levels = [int(c) for c in args.concurrency.split(",")]
    root = Path(tempfile.mkdtemp(prefix="hume-backendbench-"))
    servers: list[subprocess.Popen] = []
    try:
        studies = {}
        for copies in (1, 10):
            study, tasks, items = make_study(root, copies)
            studies[f"{items} items ({copies}x)"] = (study, tasks)
        for label, (study, tasks) in studies.items():
            first, again = source_cost(study, tasks)
            print(f"{label:>22}  StudySource.predict, 1 task, in-process: first request "
                  f"{first * 1000:8.3f} ms, again {again * 1000:8.3f} ms")  # fmt: skip
        ports = {}
        for label, (study, _) in studies.items():
            proc, ports[label] = start_server(study, args.workers, args.threads)
            servers.append(proc)
        for label, (_, tasks) in studies.items():
            # warm-up, not counted: every worker reads the study once (its first request)
            load(ports[label], tasks, 4 * args.workers, 3.0)
        runs: dict[str, dict[int, list[dict[str, float]]]] = {
            label: {c: [] for c in levels} for label in studies
        }
        for _ in range(args.rounds):
            for c in levels:
                for label, (_, tasks) in studies.items():  # alternating: neighbours in time
                    runs[label][c].append(load(ports[label], tasks, c, args.seconds))
        rps: dict[str, dict[int, float]] = {}
        for label, per in runs.items():
            rps[label] = {}
            for c, rs in per.items():
                rps[label][c] = statistics.median(r["rps"] for r in rs)
                p50 = statistics.median(r["p50_ms"] for r in rs)
                failed = sum(r["failed"] for r in rs)
                print(f"{label:>22}  c={c:<3} {rps[label][c]:8.1f} req/s  p50 {p50:8.2f} ms"
                      f"  (median of {len(rs)}, {failed} timed out)", flush=True)  # fmt: skip
        small, big = rps.values()
        for c in levels:
            print(f"c={c}: req/s 10x study / 1x study = {big[c] / small[c]:.2f}")
        print(f"server: gunicorn, {args.workers} worker(s) x {args.threads} thread(s)")
    finally:
        for proc in servers:
            stop_server(proc)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
