"""`python -m ml_backend.healthcheck [URL]`: exit 0 when the ML backend answers /health.

For container health checks: it sends the basic-auth credentials the app itself reads
(ML_BACKEND_USER / ML_BACKEND_PASSWORD) when they are set, since /health is protected too.
"""

from __future__ import annotations

import base64
import os
import sys
import urllib.request

from ml_backend.app import AUTH_PASSWORD_ENV, AUTH_USER_ENV

__all__ = ["DEFAULT_URL", "main"]

DEFAULT_URL = "http://127.0.0.1:9090/health"


def main(argv: list[str] | None = None) -> int:
    """Ask the backend's /health once, with the app's own credentials when they are set.

    Args:
        argv: the command-line arguments after the program name (``sys.argv[1:]`` when None);
            the first, when given, is the URL to ask instead of :data:`DEFAULT_URL`.

    Returns:
        The exit code: 0 when the backend answers 200, 1 otherwise (the reason on stderr).
    """
    args = sys.argv[1:] if argv is None else argv
    request = urllib.request.Request(args[0] if args else DEFAULT_URL)
    password = os.environ.get(AUTH_PASSWORD_ENV)
    if password:
        pair = f"{os.environ.get(AUTH_USER_ENV, '')}:{password}".encode()
        request.add_header("Authorization", "Basic " + base64.b64encode(pair).decode())
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return 0 if response.status == 200 else 1
    except OSError as exc:
        print(f"ml-backend health check failed: {exc.__class__.__name__}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
