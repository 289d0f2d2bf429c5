"""Start and stop ``python -m llama_cpp.server`` on a free loopback port (tests, benchmarks).

The server runs in its own process group, so stopping it ends it and nothing else; its output
goes to a log file whose tail is shown when it fails to come up.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

#: What ``llama-cpp-python[server]`` brings besides ``llama_cpp`` itself.
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")


def missing_server_modules() -> list[str]:
    """The modules the server needs that are not importable (empty when all are)."""
    return [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LlamaServer:
    """A running server: its OpenAI base URL, the model alias it serves, and its start cost."""

    base_url: str
    model_alias: str
    process: subprocess.Popen[bytes]
    log_path: Path
    load_s: float

    def log_tail(self, n: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


def start(
    model_path: str | Path,
    *,
    log_dir: str | Path,
    model_alias: str = "local-model",
    n_threads: int = 2,
    n_ctx: int = 4096,
    timeout_s: float = 180.0,
) -> LlamaServer:
    """Start the server and wait until ``GET /v1/models`` answers 200 (RuntimeError if not)."""
    port = free_port()
    log_path = Path(log_dir) / f"llama-server-{port}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path), "--model_alias", model_alias,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_threads", str(n_threads), "--n_ctx", str(n_ctx),
    ]  # fmt: skip
    started = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = LlamaServer(f"http://127.0.0.1:{port}/v1", model_alias, process, log_path, 0.0)
    deadline = started + timeout_s
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"llama_cpp.server exited with {process.returncode}:\n{server.log_tail()}"
            )
        try:
            if httpx.get(f"{server.base_url}/models", timeout=2.0).status_code == 200:
                server.load_s = time.perf_counter() - started
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    stop(server)
    raise RuntimeError(f"llama_cpp.server did not answer within {timeout_s}s:\n{server.log_tail()}")


def stop(server: LlamaServer, *, grace_s: float = 10.0) -> None:
    """Terminate the server's process group (SIGTERM, then SIGKILL after ``grace_s``)."""
    process = server.process
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=grace_s)
    except ProcessLookupError:
        pass
