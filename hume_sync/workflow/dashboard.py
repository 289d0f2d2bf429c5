"""`hume-sync dashboard`: a live progress page for the project manager, on loopback by default.

Why: Label Studio Community shows finished tasks per project card and nothing per annotator (its
per-annotator dashboards are Enterprise-only), and every annotator works in a Label Studio of
their own. This serves one self-contained page (:mod:`hume_sync.report.dashboard_html`) and its
data as JSON (``/data.json``, :mod:`hume_sync.report.dashboard_model`) with the standard
library's threaded HTTP server. The counts are ``status --json``'s, from the same function.

- **Loopback only, unless asked.** The page shows annotator emails and links into their Label
  Studio servers, so a host that is not a loopback address is refused unless the user passes
  ``--allow-non-loopback``. On loopback, a request whose ``Host`` header names another host is
  refused too (a web page elsewhere cannot read the dashboard through DNS rebinding).
- **One read per refresh period.** The page reloads itself; however many tabs are open, Label
  Studio is read at most once per ``refresh`` seconds (one snapshot at a time, the others wait
  for it and share it).
- **Reads only.** The study lock is not taken, so ``pull`` and the other writing commands run
  while the dashboard is up; the store is opened for each snapshot and closed at once.
- **Label Studio down** is one line on the page (the store's part still shows) and the server
  keeps running; a port in use is a one-line error and a non-zero exit.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from hume_sync.errors import CliError, HumeError
from hume_sync.labelstudio.client import LabelStudioClient
from hume_sync.report.dashboard_html import render_page
from hume_sync.report.dashboard_model import headline, page_model, store_part
from hume_sync.store import CLOSED_AT, PULLED_AT, Store
from hume_sync.workflow.status import status_json

#: Makes the per-URL client factory for one snapshot (fresh, so that a changed token or server
#: address is seen at the next refresh).
ClientsFactory = Callable[[], Callable[[str], LabelStudioClient]]

DEFAULT_REFRESH_S = 30
DEFAULT_PORT = 8765

#: No script, no external load of any kind: only the page's own inline style.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def loopback_only(host: str) -> bool:
    """Whether every address ``host`` resolves to is a loopback address (a one-line error for
    a host that does not resolve)."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise CliError(f"--host {host}: cannot resolve it ({exc.strerror})") from None
    addresses = {ipaddress.ip_address(str(i[4][0]).split("%")[0]) for i in infos}
    return all(a.is_loopback for a in addresses)


class Snapshots:
    """The page model, read from the store and Label Studio at most once per ``refresh_s``."""

    def __init__(self, store_path: Path, clients: ClientsFactory, refresh_s: int) -> None:
        self.store_path = store_path
        self.clients = clients
        self.refresh_s = refresh_s
        self._lock = threading.Lock()
        self._model: dict[str, Any] | None = None
        self._read_at = 0.0
        self._headline: tuple[tuple[str | None, str | None], Any] | None = None
        self._effort: tuple[tuple[Any, ...], dict[str, Any]] | None = None

    def get(self) -> dict[str, Any]:
        with self._lock:
            if self._model is None or time.monotonic() - self._read_at >= self.refresh_s:
                self._model = self.read()
                self._read_at = time.monotonic()
            return self._model

    def read(self) -> dict[str, Any]:
        """One snapshot now (see the module docstring)."""
        now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        with Store.open(self.store_path) as store:
            study = store.study_meta().study_name or ""
            status: dict[str, Any] | None = None
            error: str | None = None
            try:
                status = status_json(store, self.clients(), effort=self._cached_effort)
            except HumeError as exc:  # Label Studio down, a refused token, no connection set
                error = _one_line(f"Label Studio could not be read, counts not shown: {exc}")
            stored = store_part(store, with_headline=False)
            stored["headline"] = self._cached_headline(store)
        return page_model(study, status, error, stored, generated_at=now, refresh_s=self.refresh_s)

    def _cached_headline(self, store: Store) -> Any:
        """The report headline once closed, recomputed only when a pull or the close changed
        what it is computed from (it runs the export's scoring, bootstrap included)."""
        meta = store.meta()
        if CLOSED_AT not in meta:
            return None
        key = (meta.get(PULLED_AT), meta.get(CLOSED_AT))
        if self._headline is None or self._headline[0] != key:
            self._headline = (key, headline(store))
        return self._headline[1]

    def _cached_effort(self, store: Store) -> dict[str, Any]:
        """The effort and quality signals, recomputed only when what they are computed from
        changed: a pull (its time and the store's annotation rows) or the annotators (added,
        retired, languages). Computed, they read every stored answer and instance (about 5 s
        at 100,000 answers; the store keeps them too, :mod:`hume_sync.store.effort_cache`), so
        once per refresh would cost more than the refresh itself."""
        from hume_sync.workflow.status_effort import effort_json

        key = (
            store.meta().get(PULLED_AT),
            store.annotation_count(),
            tuple((a.slot, a.retired_at, tuple(a.languages)) for a in store.annotators()),
        )
        if self._effort is None or self._effort[0] != key:
            self._effort = (key, effort_json(store))
        return self._effort[1]


def _handler(snapshots: Snapshots) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "hume-dashboard"
        sys_version = ""

        def do_GET(self) -> None:  # http.server's name
            hosts = getattr(self.server, "allowed_hosts", None)
            if hosts is not None and (self.headers.get("Host") or "").lower() not in hosts:
                self._send(403, "text/plain", b"forbidden: unexpected Host header\n")
                return
            path = self.path.split("?", 1)[0]
            if path not in ("/", "/index.html", "/data.json"):
                self._send(404, "text/plain", b"not found\n")
                return
            try:
                model = snapshots.get()
            except HumeError as exc:  # the store itself could not be read
                self._send(503, "text/plain", (_one_line(str(exc)) + "\n").encode())
                return
            except Exception as exc:  # a defect: one line here, the traceback on stderr
                traceback.print_exc()
                line = _one_line(f"dashboard error: {type(exc).__name__}: {exc}")
                self._send(500, "text/plain", (line + "\n").encode())
                return
            if path == "/data.json":
                body = json.dumps(model, ensure_ascii=False, default=str).encode()
                self._send(200, "application/json", body)
            else:
                self._send(200, "text/html; charset=utf-8", render_page(model).encode())

        def _send(self, code: int, kind: str, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # one line per reload would drown the terminal

    return Handler


def make_server(
    study_dir: Path,
    clients: ClientsFactory,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    refresh_s: int = DEFAULT_REFRESH_S,
    allow_non_loopback: bool = False,
) -> ThreadingHTTPServer:
    """The dashboard's server, bound and ready for ``serve_forever`` (one-line errors)."""
    from hume_sync.store import STORE_NAME

    store_path = study_dir / STORE_NAME
    if not store_path.is_file():
        raise CliError(f"{study_dir}: not a study (no {STORE_NAME}); run 'hume-sync init' first")
    if refresh_s < 1:
        raise CliError(f"--refresh {refresh_s}: must be at least 1 second")
    loopback = loopback_only(host)
    if not loopback and not allow_non_loopback:
        raise CliError(
            f"--host {host} is not a loopback address and the page shows annotator emails; "
            "pass --allow-non-loopback to serve it there anyway"
        )
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    server_class = type("DashboardServer", (ThreadingHTTPServer,), {"address_family": family})
    try:
        server = server_class((host, port), _handler(Snapshots(store_path, clients, refresh_s)))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CliError(f"port {port} on {host} is in use; choose another with --port") from None
        raise CliError(f"cannot serve on {host}:{port} ({exc.strerror or exc})") from None
    server.daemon_threads = True
    if loopback:  # the names a browser on this machine puts in Host (port 0: the one bound)
        bound = server.server_address[1]
        names = {host.lower(), "localhost", "127.0.0.1", "[::1]"}
        server.allowed_hosts = frozenset(f"{n}:{bound}" for n in names) | frozenset(names)
    return server


def serve(server: ThreadingHTTPServer, study_dir: Path) -> int:
    """Serve until interrupted (Ctrl-C ends it with the usual 'interrupted')."""
    address, port = server.server_address[:2]
    host = address.decode() if isinstance(address, bytes) else address  # typeshed allows bytes
    shown = f"[{host}]" if ":" in host else host
    print(f"dashboard of {study_dir} at http://{shown}:{port}/ (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    print("dashboard stopped", file=sys.stderr)
    return 0
