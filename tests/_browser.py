"""Headless Debian Chromium for the browser tests: its path, its flags, where screenshots go.

Shared by every test that opens a page in a real browser (the report, Label Studio), so they
launch Chromium the same way and keep their screenshots under one folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[1]


def chromium_path(*, playwright: bool = True) -> str:
    """Debian's chromium (and Playwright, where asked), or skip the test: .ci/run installs it."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    if playwright:
        pytest.importorskip("playwright.sync_api")
    return path


def artifacts(name: str) -> Path:
    """An emptied ``test-artifacts/<name>`` (or under ``$HUME_TEST_ARTIFACTS``) for screenshots."""
    base = Path(os.environ.get("HUME_TEST_ARTIFACTS") or ROOT / "test-artifacts")
    out = base / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    return out


@contextlib.contextmanager
def playwright_chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (or skip: .ci/run installs both)."""
    path = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, headless=True)
        try:
            yield browser
        finally:
            browser.close()
