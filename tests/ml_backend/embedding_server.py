"""A small but real OpenAI-compatible ``/v1/embeddings`` server over a local sentence-transformers
model, and a helper that runs it in its own process on a free loopback port.

Why a server of our own: ``infinity-emb`` (the PyPI server the issue names) pins
``numpy<2`` and ``sentence-transformers<4``, so it cannot be installed beside this project's
pins (numpy 2.2, sentence-transformers 6.3); no other PyPI server that serves ``/v1/embeddings``
from local sentence-transformers weights installs here either. This one speaks the same wire
format (``{"model", "input", "encoding_format"}`` in; ``{"data": [{"index", "embedding"}],
"usage"}`` out), over HTTP, from another process, with the packaged all-MiniLM-L6-v2.

Faults a real server shows (5xx, slowness, vectors of another size) are switched on for the
next N requests by ``POST /fault {"kind": "500"|"slow"|"dim", "count": N}``: the client under
test cannot tell them from a failing server.

Run: ``python tests/ml_backend/embedding_server.py MODEL_DIR PORT SERVED_NAME``.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(model_dir: str, port: int, served_name: str) -> None:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_dir, device="cpu")
    lock = threading.Lock()
    faults: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"data": [{"id": served_name, "object": "model"}]})
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if self.path == "/fault":
                with lock:
                    faults.extend([body["kind"]] * int(body["count"]))
                self._send(200, {"pending": len(faults)})
                return
            if self.path.rstrip("/") != "/v1/embeddings":
                self._send(404, {"error": "not found"})
                return
            with lock:
                fault = faults.pop(0) if faults else None
            if fault == "500":
                self._send(503, {"error": "overloaded"})
                return
            if fault == "slow":
                time.sleep(3)
            if body.get("model") != served_name:
                self._send(404, {"error": f"model {body.get('model')!r} not served"})
                return
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            with lock:  # one forward pass at a time, as a one-GPU server
                vectors = model.encode(texts, batch_size=len(texts), show_progress_bar=False)
                tokens = sum(len(i) for i in model.tokenizer(texts)["input_ids"])
            rows = [v.tolist()[: 100 if fault == "dim" else None] for v in vectors]
            self._send(
                200,
                {
                    "object": "list",
                    "model": served_name,
                    "data": [
                        {"object": "embedding", "index": i, "embedding": r}
                        for i, r in enumerate(rows)
                    ],
                    "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
                },
            )

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


@dataclass
class EmbeddingServer:
    base_url: str
    root: str
    process: subprocess.Popen

    def fault(self, kind: str, count: int) -> None:
        httpx.post(f"{self.root}/fault", json={"kind": kind, "count": count}).raise_for_status()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)


def start_server(model_dir: str, served_name: str, log: Path) -> EmbeddingServer:
    """Start the server in its own process group; return once ``/v1/models`` answers."""
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, __file__, model_dir, str(port), served_name],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
    root = f"http://127.0.0.1:{port}"
    server = EmbeddingServer(f"{root}/v1", root, proc)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"embedding server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{root}/v1/models", timeout=1).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"embedding server did not come up: {log.read_text()[-2000:]}")


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]), sys.argv[3])
