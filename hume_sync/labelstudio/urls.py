"""Label Studio URLs as hume shows them: never with a user name or password in them.

A URL such as ``http://admin:secret@host:8080`` carries a password that every one-line error,
log line or listing would print. hume authenticates with API tokens from the environment, so it
refuses such a URL at the door (naming it with the password masked) instead of redacting it in
every message afterwards.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from hume_sync.errors import LabelStudioURLError


def shown(url: str) -> str:
    """``url`` with any ``user:password@`` replaced by ``***@`` (for messages)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"***@{host}"))


def checked(url: str, what: str = "the Label Studio URL") -> str:
    """``url`` when it is http(s) with a host and no user name or password; else a one-line
    error naming ``what`` and the URL with its secret masked."""
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    if parts is not None and "@" in parts.netloc:
        raise LabelStudioURLError(
            f"{what} must not hold a user name or password ({shown(url)}): give the admin "
            "API token in LABEL_STUDIO_API_KEY instead"
        )
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise LabelStudioURLError(f"{what} must start with http:// or https://, got {url!r}")
    return url
